package treecalls

import (
	"strconv"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

func handleResult(t *core.Tree) []byte {
	return strconv.AppendUint(nil, uint64(keep(t)), 10)
}

// newTree makes an empty tree.
func newTree(*Request) ([]byte, error) { return handleResult(core.New()), nil }

// fromLinear builds a tree from argument 0, a JSON array of messages.
func fromLinear(r *Request) ([]byte, error) {
	b, err := r.arg(0, "messages")
	if err != nil {
		return nil, err
	}
	data := append([]byte(nil), b...) // the messages keep these bytes
	d := rawjson.NewDecoder(data)
	var msgs []core.Message
	err = d.Array(func() error {
		raw, err := d.Raw()
		if err != nil {
			return err
		}
		msgs = append(msgs, core.Message(raw))
		return nil
	})
	if err == nil {
		err = d.End()
	}
	if err != nil {
		return nil, invalid("messages must be a JSON array of message objects: " + err.Error())
	}
	t, err := core.FromLinear(msgs, r.at)
	if err != nil {
		return nil, err
	}
	// JS holds every message it sent: slots 0…n-1, in order (see sent).
	e := &entry{tree: t}
	for _, m := range msgs {
		e.slots.add(m)
	}
	return strconv.AppendUint(nil, uint64(keepEntry(e)), 10), nil
}

// load reads argument 0, a .tree.json file (Unmarshal copies it).
func load(r *Request) ([]byte, error) {
	b, err := r.arg(0, "json")
	if err != nil {
		return nil, err
	}
	t, err := core.Unmarshal(b)
	if err != nil {
		return nil, err
	}
	return handleResult(t), nil
}

// free forgets the tree behind the handle; freeing twice is harmless.
func free(r *Request) ([]byte, error) {
	delete(trees, r.handle)
	return nil, nil
}

// clone copies the tree and its slots: the copy shares the messages, and JS
// copies its cache with it.
func clone(r *Request) ([]byte, error) {
	h := keepEntry(&entry{tree: r.tree.Clone(), slots: r.slots.clone()})
	return strconv.AppendUint(nil, uint64(h), 10), nil
}

func save(r *Request) ([]byte, error) { return r.tree.Marshal(), nil }
