package treecalls

import (
	"encoding/binary"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// projection decodes a project result: the slots and the messages sent.
func projection(t *testing.T, res string) (slots []uint32, sent []string) {
	t.Helper()
	b := []byte(res)
	n := int(binary.LittleEndian.Uint32(b))
	b = b[4:]
	for range n {
		slots = append(slots, binary.LittleEndian.Uint32(b))
		b = b[4:]
	}
	for len(b) > 0 {
		at, size := binary.LittleEndian.Uint32(b), int(binary.LittleEndian.Uint32(b[4:]))
		sent = append(sent, messageAt(t, at, size))
		b = b[8:]
	}
	return slots, sent
}

// messageAt finds the message a result names by its address and length, as JS
// reads it from the module's memory, among the messages of every live tree's
// slots (the address is the low 32 bits of one in a native build).
func messageAt(t *testing.T, at uint32, size int) string {
	t.Helper()
	for _, e := range trees {
		for i := range e.slots.len() {
			if m := e.slots.at(i); keyOf(m) == at && len(m) == size {
				return string(m)
			}
		}
	}
	t.Fatalf("no message of %d bytes at %#x", size, at)
	return ""
}

func TestAProjectionSendsEachMessageItsSlotOnceAndOnlyUnseenBytes(t *testing.T) {
	lin := handleOf(t, must(t, "fromLinear", 0, `[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]`))
	if slots, sent := projection(t, must(t, "project", lin)); len(slots) != 2 || slots[1] != 1 || len(sent) != 0 {
		t.Fatalf("fromLinear: JS holds what it sent, slots 0…n-1: %v, sent %q", slots, sent)
	}
	h := handleOf(t, must(t, "new", 0)) // apply makes no slots: the bytes cross once
	must(t, "apply", h, `[{"op":"append","message":{"role":"user","content":"a"}},{"op":"append","message":{"role":"assistant","content":"b"}}]`)
	slots, sent := projection(t, must(t, "project", h))
	if len(slots) != 2 || slots[0] != 0 || slots[1] != 1 || len(sent) != 2 || sent[1] != `{"role":"assistant","content":"b"}` {
		t.Fatalf("first projection: slots %v, sent %q", slots, sent)
	}
	must(t, "append", h, `{"role":"user","content":"c"}`) // JS holds it: slot 2
	slots, sent = projection(t, must(t, "project", h))
	if len(slots) != 3 || slots[2] != 2 || len(sent) != 0 {
		t.Fatalf("after an append: slots %v, sent %q", slots, sent)
	}
	c := handleOf(t, must(t, "clone", h))
	if slots, sent = projection(t, must(t, "project", c)); len(slots) != 3 || len(sent) != 0 {
		t.Fatalf("a clone keeps the slots: %v, %q", slots, sent)
	}
	if _, ok := do(t, "project", h, "nope"); ok {
		t.Fatal("an unknown branch must fail")
	}
	must(t, "prune", h) // forgets every slot
	slots, sent = projection(t, must(t, "project", h))
	if len(slots) != 3 || slots[0] != 0 || len(sent) != 3 {
		t.Fatalf("after prune: slots %v, sent %q", slots, sent)
	}
}

// held splits a project result asked with a held length into the slots sent
// and how many messages of the held list stay. It checks the positions the
// result lists after the slots: exactly those of slots JS held before (below
// the new ones, whose places follow).
func held(t *testing.T, res string) (slots []uint32, kept uint32) {
	t.Helper()
	b := []byte(res)
	kept = binary.LittleEndian.Uint32(b[len(b)-4:])
	n := int(binary.LittleEndian.Uint32(b))
	at := 4 + 4*n
	m := int(binary.LittleEndian.Uint32(b[at:]))
	var old []int
	for i := range m {
		old = append(old, int(binary.LittleEndian.Uint32(b[at+4+4*i:])))
	}
	slots, sent := projection(t, string(slices.Concat(b[:at], b[at+4+4*m:len(b)-4])))
	known := uint32(0) // the first new slot
	for _, s := range slots {
		known = max(known, s+1)
	}
	known -= uint32(len(sent))
	var want []int
	for i, s := range slots {
		if s < known {
			want = append(want, i)
		}
	}
	if !slices.Equal(old, want) {
		t.Fatalf("the result lists %v as the positions of held slots in %v (%d new); they are %v", old, slots, len(sent), want)
	}
	return slots, kept
}

func TestAProjectionBuildsOnThePartOfTheListJSHoldsThePathStillStartsWith(t *testing.T) {
	h := handleOf(t, must(t, "fromLinear", 0, `[{"role":"user","content":"a"},{"role":"assistant","content":"b"}]`))
	if slots, kept := held(t, must(t, "project", h, "", "")); len(slots) != 2 || kept != 0 {
		t.Fatalf("first: slots %v, kept %d; want the path, 0", slots, kept)
	}
	if slots, kept := held(t, must(t, "project", h, "", "2")); len(slots) != 0 || kept != 2 {
		t.Fatalf("unchanged: slots %v, kept %d; want none, 2", slots, kept)
	}
	must(t, "append", h, `{"role":"user","content":"c"}`)
	must(t, "append", h, `{"role":"assistant","content":"d"}`)
	if slots, kept := held(t, must(t, "project", h, "", "2")); len(slots) != 2 || slots[0] != 2 || kept != 2 {
		t.Fatalf("after two appends: slots %v, kept %d; want slots 2 and 3, 2", slots, kept)
	}
	if slots, kept := held(t, must(t, "project", h, "", "3")); len(slots) != 4 || kept != 0 {
		t.Fatalf("JS holds another length: slots %v, kept %d; want the path, 0", slots, kept)
	}
	// A regenerate of the last message: the list keeps all but it.
	path := strings.Split(must(t, "pathOf", h), "\n")
	must(t, "regenerate", h, path[3], `{"role":"assistant","content":"d2"}`)
	if slots, kept := held(t, must(t, "project", h, "", "4")); len(slots) != 1 || slots[0] != 4 || kept != 3 {
		t.Fatalf("after a regenerate of the last: slots %v, kept %d; want slot 4, 3", slots, kept)
	}
	// A rewind to the second and three appends: the list keeps two.
	must(t, "rewind", h, path[1])
	must(t, "append", h, `{"role":"user","content":"e"}`)
	must(t, "append", h, `{"role":"assistant","content":"f"}`)
	must(t, "append", h, `{"role":"user","content":"g"}`)
	if slots, kept := held(t, must(t, "project", h, "", "4")); len(slots) != 3 || kept != 2 {
		t.Fatalf("after a rewind and three appends: slots %v, kept %d; want 3 new, 2", slots, kept)
	}
	if slots, kept := held(t, must(t, "project", h, "", "5")); len(slots) != 0 || kept != 5 {
		t.Fatalf("unchanged again: slots %v, kept %d; want none, 5", slots, kept)
	}
	// Another branch's list, from the one held: the part both paths share.
	if slots, kept := held(t, must(t, "project", h, "main", "5")); len(slots) != 2 || kept != 2 {
		t.Fatalf("another branch: slots %v, kept %d; want its last 2, 2", slots, kept)
	}
	// A change that may drop or change stored messages: the whole path.
	gone := strings.TrimSpace(must(t, "activeBranch", h))
	must(t, "switchBranch", h, "main")
	must(t, "deleteBranch", h, gone)
	if slots, kept := held(t, must(t, "project", h, "main", "4")); kept != 0 || len(slots) == 0 {
		t.Fatalf("after a deletion: slots %v, kept %d; want the path, 0", slots, kept)
	}
}

// A list JS builds from what project keeps of the list it held and the slots
// it sends is always the path's list, whatever came between two projections;
// and after calls that leave every stored message as it was, only the part the
// paths do not share is sent.
func TestAHeldListPlusWhatProjectSendsIsThePath(t *testing.T) {
	for seed := range uint64(40) {
		rng := rand.New(rand.NewPCG(seed, 7))
		h := handleOf(t, must(t, "fromLinear", 0, `[{"role":"user","content":"a"},{"role":"assistant","content":"b"},{"role":"user","content":"c"}]`))
		if seed%2 == 1 { // a loaded file: JS holds none of its messages yet
			saved := must(t, "save", h)
			must(t, "free", h)
			h = handleOf(t, must(t, "load", 0, saved))
		}
		var list []uint32
		var ids []string // the node of each message of list
		keeps := true    // only calls that keep every stored message since list
		branch := ""
		for step := range 60 {
			path := strings.Split(strings.TrimSpace(must(t, "pathOf", h)), "\n")
			node := path[rng.IntN(len(path))]
			msg := `{"role":"user","content":"m` + strconv.Itoa(step) + `"}`
			switch rng.IntN(10) {
			case 0:
				must(t, "append", h, msg)
			case 1: // JS gets no slot for it: the next list sends it (and the list starts over)
				must(t, "apply", h, `[{"op":"append","message":`+msg+`}]`)
				keeps = false
			case 2:
				must(t, "regenerate", h, node, msg)
			case 3:
				must(t, "edit", h, node, msg)
			case 4:
				must(t, "rewind", h, node)
			case 5:
				must(t, "label", h, node, "l"+strconv.Itoa(step))
			case 6:
				must(t, "checkout", h, node)
			case 7:
				names := branchNames(t, h)
				must(t, "switchBranch", h, names[rng.IntN(len(names))])
			case 8:
				names := branchNames(t, h)
				if len(names) > 1 {
					if b := names[rng.IntN(len(names))]; b != "main" && b != strings.TrimSpace(must(t, "activeBranch", h)) {
						must(t, "deleteBranch", h, b)
						keeps = false
						if branch == b {
							branch = ""
						}
					}
				}
			case 9:
				if rng.IntN(2) == 0 {
					branch = ""
				} else {
					names := branchNames(t, h)
					branch = names[rng.IntN(len(names))]
				}
			}
			if rng.IntN(3) == 0 {
				continue // two calls or more between projections
			}
			slots, kept := held(t, must(t, "project", h, branch, strconv.Itoa(len(list))))
			if int(kept) > len(list) {
				t.Fatalf("seed %d step %d: kept %d of a list of %d", seed, step, kept, len(list))
			}
			got := append(list[:kept:kept], slots...)
			c := handleOf(t, must(t, "clone", h)) // the same slots; its own list memo
			want, _ := projection(t, must(t, "project", c, branch))
			must(t, "free", c)
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d step %d: the held list's first %d plus %v is %v; the path is %v", seed, step, kept, slots, got, want)
			}
			var now []string
			if branch == "" {
				now = strings.Split(strings.TrimSpace(must(t, "pathOf", h)), "\n")
			} else {
				now = strings.Split(strings.TrimSpace(must(t, "pathOf", h, branch)), "\n")
			}
			if shared := sharedPrefix(ids, now); keeps && len(list) > 0 && int(kept) != shared {
				t.Fatalf("seed %d step %d: kept %d; the paths share %d", seed, step, kept, shared)
			}
			list, ids, keeps = got, now, true
		}
		must(t, "free", h)
	}
}

func branchNames(t *testing.T, h uint32) []string {
	t.Helper()
	var bs []struct{ Name string }
	if err := json.Unmarshal([]byte(must(t, "branches", h)), &bs); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range bs {
		names = append(names, b.Name)
	}
	return names
}

func sharedPrefix(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// A projection that fails partway up its path (a message that names a key
// twice, kept by the load) hands JS no slot, so the next projection numbers
// its new messages from where the slots stood; the slots a walk makes, leaf
// first, are numbered root first.
func TestAProjectionThatFailsPartwayMakesNoSlot(t *testing.T) {
	ids := make([]string, 2500) // past two chunks of the slot table
	contents := make([]string, len(ids))
	for i := range ids {
		ids[i], contents[i] = "n"+strconv.Itoa(i), "m"+strconv.Itoa(i)
	}
	file := strings.Replace(fileOf(ids, contents), `"content":"m3"`, `"content":"m3","content":"twice"`, 1)
	h := handleOf(t, must(t, "load", 0, file, "keep"))
	sound := must(t, "branch", h, "n2", "sound") // a branch whose path is sound
	for range 2 {
		if res, ok := do(t, "project", h, "main"); ok || code(t, res) != "corrupt" {
			t.Fatalf("the path through a key named twice: %s", res)
		}
		if e := trees[h]; e.slots.len() != 0 {
			t.Fatalf("a failed projection left %d slots", e.slots.len())
		}
	}
	slots, sent := projection(t, must(t, "project", h, sound))
	if len(slots) != 3 || slots[0] != 0 || slots[1] != 1 || slots[2] != 2 || len(sent) != 3 || sent[0] != `{"role":"user","content":"m0"}` {
		t.Fatalf("after failed projections: slots %v, sent %q", slots, sent)
	}
}
