package convert

import (
	"bufio"
	"bytes"
	"io"
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// EachLine calls fn with every non-blank line of a JSONL stream that is one
// valid JSON object, compacted, with its 1-based number. Lines that are not are
// reported (a last line without a newline that does not parse is reported as
// torn) and skipped; the rest are kept. Memory is bounded by the longest line.
//
// The line fn gets is lent: it is overwritten by the next one, so fn copies
// what it keeps (Session.Fold and Session.Node do).
func EachLine(r io.Reader, rep *Report, fn func(line int, obj []byte)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	for n := 1; ; n++ {
		raw, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A line longer than the reader's buffer: gather it.
			long = append(long[:0], raw...)
			for err == bufio.ErrBufferFull {
				raw, err = br.ReadSlice('\n')
				long = append(long, raw...)
			}
			raw = long
		}
		if err != nil && err != io.EOF {
			return &core.Error{Code: core.CodeInvalidInput, Message: "reading line " + strconv.Itoa(n) + ": " + err.Error()}
		}
		last := err == io.EOF
		line := bytes.TrimSpace(raw)
		if len(line) > 0 {
			rep.Records++
			obj, cerr := rawjson.Compact(nil, line)
			switch {
			case cerr != nil && last && raw[len(raw)-1] != '\n':
				rep.Problemf(n, "", "torn last line (no newline, not valid JSON): "+cerr.Error())
			case cerr != nil:
				rep.Problemf(n, "", "malformed line: "+cerr.Error())
			case obj[0] != '{':
				rep.Problemf(n, "", "line is not a JSON object")
			default:
				fn(n, rep.KeepLastKeys(n, obj))
			}
		}
		if last {
			return nil
		}
	}
}
