package treecalls

import (
	"strconv"
	"unsafe"

	"github.com/sessiontree/sessiontree/wasm/internal/bridge"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

func handleResult(t *core.Tree, size int) []byte {
	return strconv.AppendUint(nil, uint64(keep(t, size)), 10)
}

// newTree makes an empty tree.
func newTree(*Request) ([]byte, error) { return handleResult(core.New(), 0), nil }

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
	e := &entry{tree: t, size: len(data)}
	for _, m := range msgs {
		e.slots.add(m)
	}
	return strconv.AppendUint(nil, uint64(keepEntry(e)), 10), nil
}

// load reads argument 0, a .tree.json file. A large file is read where
// JavaScript wrote it: the tree keeps the input buffer (bridge.TakeInput)
// instead of a copy, so a load's peak is the file once plus the tree's
// structure; a small one is copied (Unmarshal). An argument 1 of "keep"
// keeps messages that name a key twice (core.KeepDuplicateKeys). A large load
// starts no collection: the call that takes a large buffer holds the
// collector (bridge.Reserve, with wasm/internal/gcpace).
func load(r *Request) ([]byte, error) {
	b, err := r.arg(0, "json")
	if err != nil {
		return nil, err
	}
	var opts []core.Option
	if len(r.args) > 1 && string(r.args[1]) == "keep" {
		opts = append(opts, core.KeepDuplicateKeys())
	}
	var t *core.Tree
	if bridge.TakeInput() {
		t, err = core.UnmarshalOwned(b, opts...)
	} else {
		t, err = core.Unmarshal(b, opts...)
	}
	if err != nil {
		return nil, err
	}
	return handleResult(t, len(b)), nil
}

// free forgets the tree behind the handle; freeing twice is harmless. Its
// memory is garbage now: a large tree's is collected before the next large
// call (bridge.Owe), so that a load after a free reuses it.
func free(r *Request) ([]byte, error) {
	if e := trees[r.handle]; e != nil {
		// Its footprint, so that a load of the same file after this free
		// finds its need covered and collects first (bridge.Room).
		bridge.Owe(e.footprint())
		delete(trees, r.handle)
	}
	return nil, nil
}

// clone copies the tree and its slots: the copy shares the messages, and JS
// copies its cache with it.
func clone(r *Request) ([]byte, error) {
	h := keepEntry(&entry{tree: r.tree.Clone(), slots: r.slots.clone(), size: r.entry.size})
	return strconv.AppendUint(nil, uint64(h), 10), nil
}

// SaveInParts is the at of a save that JavaScript may be answered in parts:
// when the nodes of the file are the loaded file's own (core's MarshalParts),
// the answer is a zero byte, three more, the address and the length of those
// nodes in the module's memory (32 bits each, little-endian), then the file
// before them; the file is that, the nodes and "}". Otherwise, and at any
// other at, the answer is the file (its first byte a '{').
const SaveInParts = 1

// SaveInPieces is the at of a save whose answer JavaScript hands on as it
// comes (saveWith): in parts, as SaveInParts, where it can; otherwise the
// first piece of the file (core's MarshalInPieces, ~pieceSize bytes), after a
// 1 byte, three more and a uint32 that is 1 when more pieces follow (0 for
// the last). A save at SaveNextPiece answers the next piece so, until the
// last; any other save forgets the pieces left. So a changed 100k-message tree
// is written out through a result buffer of ~1 MB, not one of the file's size
// (42 MB of new memory that WebAssembly never gives back).
const (
	SaveInPieces  = 2
	SaveNextPiece = 3
	pieceSize     = 1 << 20
)

// bigPiece is the piece of a save at SaveInParts (save(), a string) of a tree
// whose file passes it: JavaScript joins the pieces. Larger than the bridge's
// big buffer, so the result buffer is dropped after the next small call, as a
// whole file's was; a file of the size of that buffer, written whole, stayed
// in a page's memory for good (47 MB at 100k messages), and asking room for
// it collected first (Chromium's save of the 100k file: 222 → ~100 ms, Dec 6).
const bigPiece = 8 << 20

// savePiece is the size of the pieces a save call writes when it is a save in
// pieces or its next piece (a saveWith, or the save() of a tree estimated
// past bigPiece), else 0: such a call needs room for one piece, and keeps the
// save under way.
func savePiece(at int64, e *entry) int {
	switch {
	case at == SaveInPieces:
		return pieceSize
	case at == SaveNextPiece && e.saving != nil:
		return e.piece
	case at == SaveInParts && e.size > bigPiece:
		return bigPiece
	}
	return 0
}

// save writes the tree into the reusable result buffer: a page that saves after
// every change makes no garbage of the file's size each time. A loaded tree
// whose nodes did not change since is answered in parts, if asked: its nodes
// are read where the load keeps them, and the module neither writes nor holds
// a second copy (a first save of a 100k-message file grew the memory by the
// file's size, and the collection that followed marked the whole tree).
func save(r *Request) ([]byte, error) {
	c := r.entry.saving
	r.entry.saving = nil
	if r.at == SaveNextPiece {
		if c == nil {
			return nil, &core.Error{Code: core.CodeInvalidInput, Message: "no save in pieces is under way on this tree"}
		}
		return nextPiece(r, c)
	}
	if r.at == SaveInParts || r.at == SaveInPieces {
		head := grow(4096)[:12]
		if head, nodes, ok := r.tree.MarshalParts(head); ok {
			// WebAssembly is little-endian, and the result buffer is 8-byte aligned.
			*(*[3]uint32)(unsafe.Pointer(&head[0])) = [3]uint32{0, uint32(uintptr(unsafe.Pointer(unsafe.SliceData(nodes)))), uint32(len(nodes))}
			bridge.KeepOut(head)
			r.entry.size = len(head) - 12 + len(nodes) + 1
			return head, nil
		}
	}
	if r.at == SaveInPieces {
		r.entry.saved, r.entry.piece = 0, pieceSize
		return nextPiece(r, r.tree.MarshalInPieces())
	}
	if r.at == SaveInParts && r.entry.size > bigPiece {
		// By the estimate, as savePiece decides (MarshalSize, a pass over
		// every node, took ~19 ms of the 100k file's ~140).
		r.entry.saved, r.entry.piece = 0, bigPiece
		return nextPiece(r, r.tree.MarshalInPieces())
	}
	b := r.tree.AppendMarshal(grow(r.tree.MarshalSize()))
	// Marshal sorts the nodes in buffers of ~64 bytes a node that are garbage
	// now: counted, so that a page saving after every change collects them
	// before its next large call rather than growing the memory.
	bridge.Owe(64 * r.tree.Len())
	r.entry.size = len(b)
	return b, nil
}

// nextPiece answers the next piece of a save in pieces (SaveInPieces).
func nextPiece(r *Request, c *core.MarshalCursor) ([]byte, error) {
	b, more, err := c.Next(grow(r.entry.piece + r.entry.piece/8)[:8], r.entry.piece)
	if err != nil {
		return nil, err
	}
	r.entry.saved += len(b) - 8
	b[0], b[1], b[2], b[3] = 1, 0, 0, 0
	b[4], b[5], b[6], b[7] = 0, 0, 0, 0
	if more {
		b[4] = 1
		r.entry.saving = c
	} else {
		r.entry.size = r.entry.saved
		bridge.Owe(64 * r.tree.Len()) // the sort's buffers (see save)
	}
	bridge.KeepOut(b)
	return b, nil
}
