package formats

import "github.com/sessiontree/sessiontree/core"

// SessionTree is the name of the library's own .tree.json format, accepted by
// Import, Export and "auto" like the others so a caller can pass any file.
const SessionTree = "sessiontree"

// importNative loads a .tree.json; its structural problems (Validate) are
// listed in the report, and the tree is returned as loaded for the caller to
// Repair or refuse.
func importNative(data []byte, opts ...core.Option) (*core.Tree, Report, error) {
	t, err := core.Unmarshal(data, opts...)
	if err != nil {
		return nil, Report{}, err
	}
	st := t.Stats()
	rep := Report{Records: st.Nodes, Nodes: st.Nodes, Roots: st.Roots, Branches: st.Branches}
	for _, p := range t.Validate() {
		rep.Problems = append(rep.Problems, Problem{ID: p.Node, Message: p.Message})
	}
	return t, rep, nil
}

func exportNative(t *core.Tree) ([]byte, error) { return t.Marshal(), nil }

func init() {
	importers[SessionTree] = importNative
	exporters[SessionTree] = exportNative
}
