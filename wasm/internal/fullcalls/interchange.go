package fullcalls

import (
	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats"
	"github.com/sessiontree/sessiontree/core/rawjson"
	"github.com/sessiontree/sessiontree/wasm/internal/bridge"
	"github.com/sessiontree/sessiontree/wasm/internal/treecalls"
)

// importFile reads argument 1 in format argument 0 (a SPEC §7 name or "auto")
// and returns a little-endian uint32 length, the report as JSON, and then the
// tree's canonical .tree.json bytes.
func importFile(c *treecalls.Request) ([]byte, error) {
	format, err := c.Str(0, "format")
	if err != nil {
		return nil, err
	}
	data, err := c.Arg(1, "text")
	if err != nil {
		return nil, err
	}
	// The tree may alias data, a view of the input buffer: it is saved and
	// dropped within this call, so the file is not copied.
	t, rep, err := formats.Import(format, data)
	if err != nil {
		return nil, err
	}
	defer scratch(t, 0) // (its bytes are the input buffer's)
	// Written into the module's reusable result buffer (an import makes a
	// file's size of output once, not again on each import).
	b := sealReport(appendReport(append(bridge.Out(0), 0, 0, 0, 0), rep))
	b = t.AppendMarshal(b)
	bridge.KeepOut(b)
	return b, nil
}

// scratch counts a tree that a call made and lets go, with the bytes of its
// file it holds, as garbage (bridge.Scratch), as a freed tree is counted
// (treecalls' free).
func scratch(t *core.Tree, file int) { bridge.Scratch(file + 64*t.Len()) }

// sealReport writes the length of the report that follows the 4 bytes at the
// start of b into them, little-endian: the framing of import and merge results.
func sealReport(b []byte) []byte {
	n := len(b) - 4
	b[0], b[1], b[2], b[3] = byte(n), byte(n>>8), byte(n>>16), byte(n>>24)
	return b
}

// exportFile writes argument 1, a .tree.json file, in format argument 0.
func exportFile(c *treecalls.Request) ([]byte, error) {
	format, err := c.Str(0, "format")
	if err != nil {
		return nil, err
	}
	data, err := c.Arg(1, "tree")
	if err != nil {
		return nil, err
	}
	t, err := core.Unmarshal(data) // copies data
	if err != nil {
		return nil, err
	}
	defer scratch(t, len(data))
	if c.NArgs() > 2 { // "report": see exportReported
		return exportReported(t, format)
	}
	return formats.Export(t, format)
}

// appendReport writes rep as the JS API's ImportReport: {"format","records",
// "nodes","roots","branches","notCarried","problems":[{"line","id","message"}]}.
func appendReport(b []byte, rep formats.Report) []byte {
	b = append(b, `{"format":`...)
	b = rawjson.AppendString(b, rep.Format)
	for _, f := range []struct {
		key string
		n   int
	}{{"records", rep.Records}, {"nodes", rep.Nodes}, {"roots", rep.Roots}, {"branches", rep.Branches}} {
		b = append(b, ',')
		b = rawjson.AppendString(b, f.key)
		b = append(b, ':')
		b = rawjson.AppendInt(b, int64(f.n))
	}
	b = append(b, `,"notCarried":`...)
	b = rawjson.AppendStrings(b, rep.NotCarried)
	b = append(b, `,"problems":[`...)
	for i, p := range rep.Problems {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"line":`...)
		b = rawjson.AppendInt(b, int64(p.Line))
		b = append(b, `,"id":`...)
		if p.ID == "" {
			b = append(b, "null"...)
		} else {
			b = rawjson.AppendString(b, p.ID)
		}
		b = append(b, `,"message":`...)
		b = rawjson.AppendString(b, p.Message)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}
