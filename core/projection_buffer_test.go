package core

import (
	"bytes"
	"runtime"
	"testing"
	"unsafe"
)

// AppendProjectionOf is LinearProjectionOf into a reused buffer.
func TestAppendProjectionOfGivesTheLinearProjectionAfterWhatTheBufferHeld(t *testing.T) {
	tr := forkedTree(t)
	for _, branch := range []string{MainBranch, "branch-1"} {
		want, err := tr.LinearProjectionOf(branch)
		if err != nil {
			t.Fatal(err)
		}
		prefix := Message(`{"role":"x"}`)
		got, err := tr.AppendProjectionOf([]Message{prefix}, branch)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want)+1 || !bytes.Equal(got[0], prefix) {
			t.Fatalf("%s: %q, want the prefix then %q", branch, got, want)
		}
		for i := range want {
			if !bytes.Equal(got[i+1], want[i]) {
				t.Fatalf("%s: message %d = %s, want %s", branch, i, got[i+1], want[i])
			}
		}
	}
}

// forkedTree is a two-message chat whose reply was rewound and answered again:
// main and branch-1.
func forkedTree(t *testing.T) *Tree {
	t.Helper()
	tr := New(counterIDs())
	a := mustAppend(t, tr, msg("user", "a"), 1)
	mustAppend(t, tr, msg("assistant", "b"), 2)
	if _, err := tr.Rewind(a, 3); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, tr, msg("assistant", "c"), 4)
	return tr
}

// A projection that fails leaves the buffer as it was and says why.
func TestAppendProjectionOfFailsClosedLikeLinearProjectionOf(t *testing.T) {
	tr := New(counterIDs())
	mustAppend(t, tr, msg("user", "a"), 1)
	buf := []Message{Message(`{"role":"x"}`)}
	got, err := tr.AppendProjectionOf(buf, "nope")
	wantCode(t, err, CodeBranchNotFound)
	if len(got) != 1 {
		t.Fatalf("buffer changed on error: %q", got)
	}
	tr.branches[MainBranch].leaf = "ghost"
	got, err = tr.AppendProjectionOf(buf, MainBranch)
	wantCode(t, err, CodeCorrupt)
	if len(got) != 1 {
		t.Fatalf("buffer changed on a corrupt path: %q", got)
	}
}

// A projection into an empty buffer allocates the path once, at its length: in
// wasm, memory grown for a full list of a long chat never shrinks, and a buffer
// grown by doubling would leave up to twice the path behind (issue 26: memory
// after the full list).
func TestAppendProjectionOfAllocatesThePathOnceAtItsLength(t *testing.T) {
	tr := New(counterIDs())
	for i := 0; i < 5000; i++ {
		mustAppend(t, tr, msg("user", "m"), int64(i+1))
	}
	loaded, err := Unmarshal(tr.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []*Tree{tr, loaded} {
		got, err := x.AppendProjectionOf(nil, MainBranch)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 5000 || cap(got) > len(got)+len(got)/16 { // the allocator rounds up a little
			t.Fatalf("len %d cap %d, want 5000 and room for little more", len(got), cap(got))
		}
		// The bytes a projection allocates: the path's buffer once. Under
		// the race detector (make test runs core both ways) sync.Pool drops
		// the walk's scratch at random, so only the plain build counts.
		if raceEnabled {
			continue
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		const runs = 5
		for range runs {
			_, _ = x.AppendProjectionOf(nil, MainBranch)
		}
		runtime.ReadMemStats(&after)
		per := (after.TotalAlloc - before.TotalAlloc) / runs
		once := uint64(cap(got)) * uint64(unsafe.Sizeof(Message(nil)))
		if per > once+once/8 {
			t.Fatalf("%d bytes a projection, want about one buffer of the path's length (%d bytes): a buffer grown by doubling allocates ~2x", per, once)
		}
	}
}

// EachUpOf visits the messages LinearProjectionOf gives, leaf first, and
// fails closed as it does.
func TestEachUpOfVisitsTheProjectionLeafFirst(t *testing.T) {
	tr := forkedTree(t)
	mustAppend(t, tr, msg("user", "d"), 5)
	for _, branch := range []string{MainBranch, "branch-1"} {
		want, err := tr.LinearProjectionOf(branch)
		if err != nil {
			t.Fatal(err)
		}
		var got []Message
		if err := tr.EachUpOf(branch, func(m Message) { got = append(got, m) }); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %q, want %q reversed", branch, got, want)
		}
		for i := range want {
			if !bytes.Equal(got[len(got)-1-i], want[i]) {
				t.Fatalf("%s: message %d from the leaf = %s, want %s", branch, len(got)-1-i, got[len(got)-1-i], want[i])
			}
		}
	}
	wantCode(t, tr.EachUpOf("nope", func(Message) { t.Fatal("visited a message of no branch") }), CodeBranchNotFound)
	tr.branches[MainBranch].leaf = "ghost"
	wantCode(t, tr.EachUpOf(MainBranch, func(Message) { t.Fatal("visited a message of a dangling leaf") }), CodeCorrupt)
}
