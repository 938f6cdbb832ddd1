package treecalls

import (
	"bytes"

	"github.com/sessiontree/sessiontree/core"
)

// replace swaps the tree behind the handle for argument 0, a .tree.json file,
// keeping the handle: what JavaScript's t.merge does in the lean module with
// the tree the interchange helper merged (merge itself is not in the lean
// table, so that the lean module does not carry it; the full flavour merges in
// place, wasm/internal/fullcalls). The JS object stays valid, and so do
// the message slots JS holds, remapped to the new tree (see remapSlots). It
// returns nothing; on failure the old tree stays.
//
// With arguments 1 "rows" and 2, a branch name or "", it is applyChanges of a
// delta with every row (all: true): the rows' tree takes over the old one as
// core's TakeOver says (the later labels, argument 2's branch kept, refused
// when not sound).
func replace(r *Request) ([]byte, error) {
	b, err := r.arg(0, "json")
	if err != nil {
		return nil, err
	}
	t, err := core.Unmarshal(b) // copies b
	if err != nil {
		return nil, err
	}
	e := trees[r.handle]
	if len(r.args) == 3 && string(r.args[1]) == "rows" {
		if err := t.TakeOver(e.tree, string(r.args[2])); err != nil {
			if ce, ok := err.(*core.Error); ok {
				return nil, &core.Error{Code: ce.Code, Message: "applyChanges: " + ce.Message}
			}
			return nil, err
		}
		if t.Equal(e.tree) {
			return nil, nil // rows it holds already (a delta delivered twice): nothing changes
		}
	}
	e.slots = remapSlots(&e.slots, e.tree, t)
	t.Succeed(e.tree) // its version goes on; listeners hear that anything changed
	e.tree = t
	// The new tree recorded no changes: a store that follows takeChanges gets
	// every row again from the next call ("all"), never a silent gap.
	e.tracking = false
	return nil, nil
}

// remapSlots returns the slots JS holds for old, remapped to next: a slot keeps
// its number wherever a node of next has, under the same id, a message of the
// same bytes as the old node whose message the slot holds (a merge never
// changes a stored message, so that is every node both trees have), and holds
// that node's message now. A slot no node of next matches is left empty: it is
// never looked up again, so JS's cached message for it is never handed out,
// and the old tree's messages are not kept alive by the table.
//
// The slot numbers stay dense and JS keeps its cache as it is, so after a
// merge a projection sends only the messages new to JS, and the messages JS had
// are the same frozen objects as before.
func remapSlots(s *slotTable, old, next *core.Tree) slotTable {
	out := slotTable{n: s.n}
	if s.n == 0 {
		return out
	}
	for _, ch := range s.chunks {
		out.chunks = append(out.chunks, make([]slotMsg, len(ch), cap(ch)))
	}
	// Walk next from its roots (the root's siblings), breadth first: every node
	// of a structurally sound tree, once. The walk stops after next.Len() steps,
	// so a broken tree (children listed twice, a cycle) cannot keep it going; a
	// node it misses keeps no slot, which is safe.
	var queue []string
	if root := next.Root(); root != "" {
		if roots, _, err := next.Siblings(root); err == nil {
			queue = roots
		}
	}
	for i := 0; i < len(queue) && i < next.Len(); i++ {
		id := queue[i]
		n, ok := next.Node(id)
		if !ok {
			continue
		}
		queue = append(queue, n.Children...)
		o, ok := old.Node(id)
		if !ok {
			continue
		}
		slot, ok := s.lookup(o.Message)
		if !ok || !bytes.Equal(o.Message, n.Message) {
			continue
		}
		c := &out.chunks[slot/chunkSize][slot%chunkSize]
		if c.p == nil {
			*c = slotMsgOf(n.Message)
		}
	}
	return out
}
