package treecalls

import "github.com/sessiontree/sessiontree/core/rawjson"

func validate(r *Request) ([]byte, error) { return appendProblems(nil, r.tree.Validate()), nil }

func repair(r *Request) ([]byte, error) { return appendProblems(nil, r.tree.Repair()), nil }

func prune(r *Request) ([]byte, error) {
	ids, err := r.tree.Prune()
	if err != nil {
		return nil, err
	}
	r.slots.reset() // JS drops its cache too: removed messages are not kept

	return rawjson.AppendStrings(nil, ids), nil
}

// search takes the query and the limit (a decimal, "0" for none).
func search(r *Request) ([]byte, error) {
	q, err := r.str(0, "query")
	if err != nil {
		return nil, err
	}
	lim, err := r.str(1, "limit")
	if err != nil {
		return nil, err
	}
	limit, ok := rawjson.Atoi(lim)
	if !ok {
		return nil, invalid(`"limit" must be an integer`)
	}
	b := []byte{'['}
	for i, h := range r.tree.Search(q, limit) {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"nodeId":`...)
		b = rawjson.AppendString(b, h.NodeID)
		b = append(b, `,"role":`...)
		b = rawjson.AppendString(b, h.Role)
		b = append(b, `,"snippet":`...)
		b = rawjson.AppendString(b, h.Snippet)
		b = append(b, '}')
	}
	return append(b, ']'), nil
}

func stats(r *Request) ([]byte, error) {
	s := r.tree.Stats()
	b := []byte(`{"nodes":`)
	b = rawjson.AppendInt(b, int64(s.Nodes))
	b = append(b, `,"branches":`...)
	b = rawjson.AppendInt(b, int64(s.Branches))
	b = append(b, `,"roots":`...)
	b = rawjson.AppendInt(b, int64(s.Roots))
	b = append(b, `,"leaves":`...)
	b = rawjson.AppendInt(b, int64(s.Leaves))
	b = append(b, `,"depth":`...)
	b = rawjson.AppendInt(b, int64(s.Depth))
	b = append(b, `,"messageBytes":`...)
	b = rawjson.AppendInt(b, int64(s.MessageBytes))
	return append(b, '}'), nil
}
