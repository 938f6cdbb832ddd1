package core

import (
	"strings"
	"testing"
)

// A message that names a key twice reads as its first member here and as its
// last in JSON.parse: every way into a tree refuses it (issue 23, §1).

var dupMessages = []struct{ msg, key, where string }{
	{`{"role":"user","role":"assistant","content":"hi"}`, "role", "$.role"},
	{`{"role":"user","r\u006fle":"assistant","content":"hi"}`, "role", "$.role"},
	{`{"role":"user","content":[{"type":"text","text":"shown","text":"sent"}]}`, "text", "$.content[0].text"},
	{`{"role":"assistant","tool_calls":[{"id":"a","id":"b","type":"function","function":{"name":"f","arguments":"{}"}}]}`, "id", "$.tool_calls[0].id"},
}

func wantNamed(t *testing.T, err error, code Code, parts ...string) {
	t.Helper()
	wantCode(t, err, code)
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("%q does not name %q", err, p)
		}
	}
}

func TestEveryOperationRefusesAMessageNamingAKeyTwice(t *testing.T) {
	for _, c := range dupMessages {
		m := Message(c.msg)
		tr := New(counterIDs())
		first := mustAppend(t, tr, msg("user", "q"), 1)
		reply := mustAppend(t, tr, msg("assistant", "a"), 2)
		before := string(tr.Marshal())

		_, err := tr.Append(m, 3)
		wantNamed(t, err, CodeInvalidInput, `"`+c.key+`"`, c.where)
		_, err = tr.Edit(first, m, 3)
		wantNamed(t, err, CodeInvalidInput, c.where)
		_, err = tr.Regenerate(reply, m, 3)
		wantNamed(t, err, CodeInvalidInput, c.where)
		_, err = FromLinear([]Message{msg("user", "x"), m}, 3)
		wantNamed(t, err, CodeInvalidInput, c.where)
		_, err = ParseMessage([]byte(c.msg))
		wantNamed(t, err, CodeInvalidInput, c.where)
		_, err = ParseOps([]byte(`[{"op":"append","message":` + c.msg + `}]`))
		wantNamed(t, err, CodeInvalidInput, "op 0", c.where)
		if got := string(tr.Marshal()); got != before {
			t.Fatalf("a refused message changed the tree")
		}
	}
}

// dupFile is a one-node tree file whose message is msg, laid out as Marshal
// writes it (the loader's fast path) or with spaces (its slow path).
func dupFile(msg string, spaced bool) []byte {
	node := `{"id":"n1","children":[],"message":` + msg + `,"created_at_ms":1}`
	if spaced {
		node = `{ "id": "n1", "children": [], "message": ` + msg + `, "created_at_ms": 1 }`
	}
	return []byte(`{"format":"sessiontree","version":1,"root":"n1","active_branch":"main","branches":{"main":{"name":"main","leaf":"n1","created_at_ms":1}},"nodes":{"n1":` + node + `}}`)
}

func TestALoadedMessageNamingAKeyTwiceIsCorruptNamingTheNode(t *testing.T) {
	for _, c := range dupMessages {
		for _, spaced := range []bool{false, true} {
			_, err := Unmarshal(dupFile(c.msg, spaced))
			wantNamed(t, err, CodeCorrupt, `node "n1"`, `"`+c.key+`"`, c.where)
			_, err = UnmarshalOwned(dupFile(c.msg, spaced))
			wantNamed(t, err, CodeCorrupt, `node "n1"`, c.where)
		}
	}
}

func TestRowsAndDeltasNamingAKeyTwiceAreCorrupt(t *testing.T) {
	c := dupMessages[0]
	row := Fragment{Key: "n1", JSON: []byte(`{"id":"n1","children":[],"message":` + c.msg + `,"created_at_ms":1}`)}
	main := Fragment{Key: "main", JSON: []byte(`{"name":"main","leaf":"n1","created_at_ms":1}`)}
	_, err := Unmarshal(JoinRows("n1", MainBranch, []Fragment{main}, []Fragment{row}))
	wantNamed(t, err, CodeCorrupt, `node "n1"`, c.where)

	tr := New(counterIDs())
	before := string(tr.Marshal())
	err = tr.ApplyRows("n1", MainBranch, false, []Fragment{main}, []Fragment{row})
	wantNamed(t, err, CodeCorrupt, `node "n1"`, c.where)
	if string(tr.Marshal()) != before {
		t.Fatal("refused changes changed the tree")
	}
}

func TestKeptDuplicateKeysAreReportedFailClosedAndRepairedToTheLastValue(t *testing.T) {
	for _, spaced := range []bool{false, true} {
		tr, err := Unmarshal(dupFile(`{"role":"user","role":"assistant","content":[{"type":"text","text":"a","text":"b"}]}`, spaced), KeepDuplicateKeys())
		if err != nil {
			t.Fatal(err)
		}
		probs := tr.Validate()
		if len(probs) != 1 || probs[0].Kind != ProblemDuplicateKey || probs[0].Node != "n1" || !strings.Contains(probs[0].Message, "$.role") {
			t.Fatalf("Validate: %+v", probs)
		}
		_, err = tr.LinearProjection()
		wantNamed(t, err, CodeCorrupt, `node "n1"`)
		_, err = tr.ActivePath()
		wantCode(t, err, CodeCorrupt)
		_, err = tr.RenderBranchText(MainBranch)
		wantCode(t, err, CodeCorrupt)
		_, err = New().Merge(tr)
		wantCode(t, err, CodeCorrupt)
		if _, err := tr.Clone().LinearProjection(); err == nil {
			t.Fatal("a clone lost the problem")
		}

		fixed := tr.Repair()
		if len(fixed) != 2 || fixed[0].Kind != ProblemDuplicateKey {
			t.Fatalf("Repair: %+v", fixed)
		}
		if p := tr.Validate(); len(p) != 0 {
			t.Fatalf("after Repair: %+v", p)
		}
		msgs, err := tr.LinearProjection()
		if err != nil {
			t.Fatal(err)
		}
		if got, want := string(msgs[0]), `{"role":"assistant","content":[{"type":"text","text":"b"}]}`; got != want {
			t.Fatalf("repaired message %s, want %s (JSON.parse's reading)", got, want)
		}
		if _, err := Unmarshal(tr.Marshal()); err != nil {
			t.Fatalf("the repaired tree does not load: %v", err)
		}
	}
}
