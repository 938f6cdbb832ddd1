package main

import (
	"github.com/sessiontree/sessiontree/core/formats"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// importTree reads argument 1 in format argument 0 (SPEC §7) and returns
// {"handle","report"}.
func importTree(r *request) ([]byte, error) {
	format, err := r.str(0, "format")
	if err != nil {
		return nil, err
	}
	data, err := r.arg(1, "text")
	if err != nil {
		return nil, err
	}
	t, rep, err := formats.Import(format, append([]byte(nil), data...))
	if err != nil {
		return nil, err
	}
	b := append([]byte(`{"handle":`), handleResult(t)...)
	b = append(b, `,"report":{"format":`...)
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
		b = appendOptString(b, p.ID)
		b = append(b, `,"message":`...)
		b = rawjson.AppendString(b, p.Message)
		b = append(b, '}')
	}
	return append(b, "]}}"...), nil
}

// exportTree writes the tree in format argument 0.
func exportTree(r *request) ([]byte, error) {
	format, err := r.str(0, "format")
	if err != nil {
		return nil, err
	}
	return formats.Export(r.tree, format)
}
