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
func EachLine(r io.Reader, rep *Report, fn func(line int, obj []byte)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	for n := 1; ; n++ {
		buf = buf[:0]
		var err error
		for {
			var chunk []byte
			chunk, err = br.ReadSlice('\n')
			buf = append(buf, chunk...)
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if err != nil && err != io.EOF {
			return &core.Error{Code: core.CodeInvalidInput, Message: "reading line " + strconv.Itoa(n) + ": " + err.Error()}
		}
		last := err == io.EOF
		line := bytes.TrimSpace(buf)
		if len(line) > 0 {
			rep.Records++
			obj, cerr := rawjson.Compact(nil, line)
			switch {
			case cerr != nil && last && buf[len(buf)-1] != '\n':
				rep.Problemf(n, "", "torn last line (no newline, not valid JSON): "+cerr.Error())
			case cerr != nil:
				rep.Problemf(n, "", "malformed line: "+cerr.Error())
			case obj[0] != '{':
				rep.Problemf(n, "", "line is not a JSON object")
			default:
				if len(line) == len(obj) {
					obj = append([]byte(nil), obj...) // line aliases the reader's buffer
				}
				fn(n, obj)
			}
		}
		if last {
			return nil
		}
	}
}
