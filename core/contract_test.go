package core

import (
	"errors"
	"testing"
)

// unknownActive is a file whose "active_branch" names no branch: "gone". (The
// same shape as testdata/corrupt/unknown-active.tree.json, inline so that the
// GOOS=js run, which has no file system, checks it too.)
const unknownActive = `{"format":"sessiontree","version":1,"root":"a","active_branch":"gone",` +
	`"branches":{"main":{"name":"main","leaf":"b","created_at_ms":0},"side":{"name":"side","leaf":"a","created_at_ms":0}},` +
	`"nodes":{"a":{"id":"a","children":["b"],"message":{"role":"user","content":"a"},"created_at_ms":1},` +
	`"b":{"id":"b","parent":"a","children":[],"message":{"role":"assistant","content":"b"},"created_at_ms":2}}}`

// A file whose active_branch names no branch loads (Validate reports it and
// Repair fixes it, losing nothing), and every read or write of the active
// branch fails with corrupt: the file is at fault. branch_not_found is kept for
// a name the caller passed.
func TestAFileWhoseActiveBranchNamesNoBranchIsCorruptNeverBranchNotFound(t *testing.T) {
	tr, err := Unmarshal([]byte(unknownActive))
	if err != nil {
		t.Fatalf("the file should load (a structural problem): %v", err)
	}
	calls := map[string]func() error{
		"LinearProjection":      func() error { _, err := tr.LinearProjection(); return err },
		"ActivePath":            func() error { _, err := tr.ActivePath(); return err },
		"LinearProjectionOf":    func() error { _, err := tr.LinearProjectionOf(tr.ActiveBranch()); return err },
		"PathOf":                func() error { _, err := tr.PathOf(tr.ActiveBranch()); return err },
		"AppendProjectionOf":    func() error { _, err := tr.AppendProjectionOf(nil, tr.ActiveBranch()); return err },
		"SpliceForLinearExport": func() error { _, err := tr.SpliceForLinearExport(); return err },
		"StubSummary":           func() error { _, err := tr.StubSummary(tr.ActiveBranch()); return err },
		"SummarizeBranch":       func() error { return tr.SummarizeBranch(tr.ActiveBranch(), "s", "m", 3) },
		"Append":                func() error { _, err := tr.Append(msg("user", "x"), 3); return err },
		"Rewind":                func() error { _, err := tr.Rewind("a", 3); return err },
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			err := call()
			var e *Error
			if !errors.As(err, &e) || e.Code != CodeCorrupt {
				t.Fatalf("want corrupt, got %v", err)
			}
			if errors.Is(err, ErrBranchNotFound) {
				t.Fatal("a file's fault is never branch_not_found")
			}
		})
	}
	// A caller's unknown name is still branch_not_found.
	_, err = tr.PathOf("nope")
	wantCode(t, err, CodeBranchNotFound)
	_, err = tr.LinearProjectionOf("nope")
	wantCode(t, err, CodeBranchNotFound)
	if got := tr.Marshal(); string(got) != unknownActive {
		t.Fatalf("the failed calls changed the tree:\n%s", got)
	}
	tr.Repair()
	msgs, err := tr.LinearProjection()
	if err != nil || len(msgs) != 2 || tr.ActiveBranch() != MainBranch {
		t.Fatalf("after Repair main is active and projects 2 messages: %d, %v", len(msgs), err)
	}
}

// FromLinear of no messages saves exactly what New saves, whatever its time
// (it once wrote "moved_at_ms":0 and main stamped with the time, which New
// does not), and loads back to the same bytes.
func TestFromLinearOfNoMessagesSavesExactlyWhatNewSaves(t *testing.T) {
	want := string(New().Marshal())
	for _, at := range []int64{0, 1, 1_700_000_000_000} {
		for _, msgs := range [][]Message{nil, {}} {
			tr, err := FromLinear(msgs, at)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(tr.Marshal()); got != want {
				t.Fatalf("FromLinear(%v, %d) saves\n%s\nNew saves\n%s", msgs, at, got, want)
			}
			back, err := Unmarshal(tr.Marshal())
			if err != nil || string(back.Marshal()) != want {
				t.Fatalf("reloaded: %v", err)
			}
		}
	}
}

// A loader reports a corrupt file and never fixes it silently (STYLE, "Errors
// and bad input"): a file whose branch stored under "side", the active one,
// says its name is "other" loads with "side" active, as the file says, and
// saves back byte for byte; Validate reports the mismatch, and Repair renames
// the branch after its key and leaves the user on it. Before Dec 5 the load
// made "other" active (a name no branch is stored under): the branch's path
// failed closed as corrupt, a save wrote "other", and Repair, finding the
// active branch unknown, moved the user to main.
func TestALoadKeepsTheFilesActiveBranchWhenItsRecordNamesAnother(t *testing.T) {
	file := `{"format":"sessiontree","version":1,"root":"a","active_branch":"side",` +
		`"branches":{"main":{"name":"main","leaf":"a","created_at_ms":0},"side":{"name":"other","leaf":"b","created_at_ms":0}},` +
		`"nodes":{"a":{"id":"a","children":["b"],"message":{"role":"user","content":"a"},"created_at_ms":1},` +
		`"b":{"id":"b","parent":"a","children":[],"message":{"role":"assistant","content":"b"},"created_at_ms":2}}}`
	tr, err := Unmarshal([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	if tr.ActiveBranch() != "side" {
		t.Fatalf("active branch %q after the load, the file says \"side\"", tr.ActiveBranch())
	}
	if got := tr.Marshal(); string(got) != string(file) {
		t.Fatalf("save(load(b)) changed the file:\n%s\nwant\n%s", got, file)
	}
	if p, err := tr.ActivePath(); err != nil || len(p) != 2 {
		t.Fatalf("the active path: %v %v", p, err)
	}
	problems := tr.Validate()
	if len(problems) != 1 || problems[0].Kind != ProblemBranchName {
		t.Fatalf("Validate: %+v, want the name mismatch alone", problems)
	}
	tr.Repair()
	if tr.ActiveBranch() != "side" || len(tr.Validate()) != 0 {
		t.Fatalf("after Repair: active %q, problems %+v", tr.ActiveBranch(), tr.Validate())
	}
}
