package edge

import (
	"strings"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// importTree reads body as a file of an interchange format (SPEC §7,
// core/formats; "auto" detects it) for POST /v1/trees?format=…, within the
// limits of a created tree, and returns the tree and the import's report as
// JSON: what the format could not carry and every record that could not be
// read as written (nothing is dropped silently).
func (h *Handler) importTree(format string, body []byte) (*core.Tree, []byte, *apiError) {
	if format == "auto" {
		if format = formats.Detect(body); format == "" {
			return nil, nil, errInput("the body is not a file of a format the worker reads; formats: " + strings.Join(formats.Names, ", "))
		}
	}
	if format == "sessiontree" {
		if ae := checkJSON(body, "a .tree.json file"); ae != nil {
			return nil, nil, ae
		}
		if ae := h.checkBrought(body, nil); ae != nil {
			return nil, nil, ae
		}
		t, ae := h.treeFromFile(body)
		return t, nil, ae
	}
	if !contains(formats.Names, format) {
		return nil, nil, errInput("unknown format " + quote(format) + "; formats: sessiontree, auto, " + strings.Join(formats.Names, ", "))
	}
	t, rep, err := formats.Import(format, body)
	if err != nil {
		return nil, nil, fromCore(err)
	}
	if t.Len() > h.limits.Nodes {
		return nil, nil, errTooLarge("the import has " + itoa(t.Len()) + " nodes; the limit is " + itoa(h.limits.Nodes))
	}
	branches, nodes := t.Rows()
	for _, f := range nodes {
		if n, _ := t.Node(f.Key); len(n.Message) > h.limits.Message {
			return nil, nil, h.messageTooLarge("the message of node "+quote(f.Key), len(n.Message))
		}
	}
	if ae := h.checkRowsBrought(nodes, branches); ae != nil {
		return nil, nil, ae
	}
	buf := []byte(`{"format":`)
	buf = rawjson.AppendString(buf, rep.Format)
	for _, f := range []struct {
		k string
		v int
	}{{"records", rep.Records}, {"nodes", rep.Nodes}, {"roots", rep.Roots}, {"branches", rep.Branches}} {
		buf = append(buf, `,"`+f.k+`":`...)
		buf = rawjson.AppendInt(buf, int64(f.v))
	}
	buf = append(buf, `,"not_carried":`...)
	buf = rawjson.AppendStrings(buf, rep.NotCarried)
	buf = append(buf, `,"problems":[`...)
	for i, p := range rep.Problems {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"line":`...)
		buf = rawjson.AppendInt(buf, int64(p.Line))
		buf = append(buf, `,"id":`...)
		buf = rawjson.AppendString(buf, p.ID)
		buf = append(buf, `,"message":`...)
		buf = rawjson.AppendString(buf, p.Message)
		buf = append(buf, '}')
	}
	buf = append(buf, "]}"...)
	return t, buf, nil
}
