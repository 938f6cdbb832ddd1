package core

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestSaveLoadSaveIsByteForByte(t *testing.T) {
	tr, ids := chain(t, "q", "a", "q2")
	tr.Rewind(ids[1], 10)
	mustAppend(t, tr, Message(`{"role":"user","content":"é 😀 \u2028 \"quoted\"","n":1.50e+3,"z":null,"a":[]}`), 11)
	tr.Label(ids[0], "start ✓")
	tr.Branch(ids[0], "__proto__", 12)
	tr.SummarizeBranch("branch-1", "the first try", "m-1", 13)
	tr.SummarizeBranch("__proto__", "proto line", "", 14)
	b := tr.Marshal()
	back, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if b2 := back.Marshal(); !bytes.Equal(b, b2) {
		t.Fatalf("not byte-stable:\n%s\n%s", b, b2)
	}
	if back.ActiveBranch() != "__proto__" || back.Root() != ids[0] {
		t.Fatal("active branch or root lost")
	}
}

func TestCanonicalJSONHasTheHeaderFixedKeyOrderAndOmitsAbsentValues(t *testing.T) {
	tr, ids := chain(t, "q")
	_ = ids
	got := string(tr.Marshal())
	want := `{"format":"sessiontree","version":1,"root":"n1","active_branch":"main","branches":{` +
		`"main":{"name":"main","leaf":"n1","created_at_ms":0,"used":1}},"nodes":{` +
		`"n1":{"id":"n1","children":[],"message":{"role":"user","content":"q"},"created_at_ms":1}}}`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if strings.Contains(string(New().Marshal()), `"root"`) {
		t.Fatal("an empty tree wrote a root")
	}
}

func TestMessagesKeepEveryFieldKeyOrderNumberTextAndUnicode(t *testing.T) {
	in := `{"z":1,"role":"user","content":"\u00e9t\u00e9 😀","big":123456789012345678901234567890,"f":1.000,"nested":{"b":[true,false,null],"a":{}}}`
	tr, err := FromLinear([]Message{Message(in)}, 1)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Unmarshal(tr.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	msgs, _ := back.LinearProjection()
	if string(msgs[0]) != in {
		t.Fatalf("got %s", msgs[0])
	}
}

func TestMessagesAreCompactedWhenTheyComeIn(t *testing.T) {
	m, err := ParseMessage([]byte(" {\n \"role\" : \"user\", \"content\": \"a  b\" }\n"))
	if err != nil || string(m) != `{"role":"user","content":"a  b"}` {
		t.Fatalf("%s %v", m, err)
	}
}

// SPEC §2: canonical JSON is one compact line, messages compacted. A file
// written by hand or by a pretty-printer (indented, members on lines of their
// own, spaces inside messages) loads, and its save is what Marshal writes of
// the same tree: one line, every message compacted, each value the same.
func TestAnIndentedFileSavesAsTheCanonicalLine(t *testing.T) {
	tr, ids := chain(t, "q", "a")
	mustAppend(t, tr, Message(`{"role":"user","content":[{"type":"text","text":"x  y"}],"n":1.50,"e":"\u00e9"}`), 3)
	tr.Label(ids[0], "start")
	tr.SummarizeBranch(MainBranch, "s", "m", 4)
	want := tr.Marshal()
	var indented bytes.Buffer
	if err := json.Indent(&indented, want, "", "\t"); err != nil {
		t.Fatal(err)
	}
	spaced := strings.ReplaceAll(indented.String(), ":", " : ")
	back, err := Unmarshal([]byte(spaced))
	if err != nil {
		t.Fatalf("%v\n%s", err, spaced)
	}
	if got := back.Marshal(); !bytes.Equal(got, want) {
		t.Fatalf("an indented file saved as\n%s\nwant\n%s", got, want)
	}
}

func TestLoaderRejectsANewerVersionClearly(t *testing.T) {
	_, err := Unmarshal([]byte(`{"format":"sessiontree","version":2,"active_branch":"main","branches":{},"nodes":{}}`))
	wantCode(t, err, CodeUnsupportedVersion)
	if !strings.Contains(err.Error(), "version 2") {
		t.Fatalf("error should name the version: %v", err)
	}
	// Past 64 bits, or after other members, a newer version is still one (before
	// Dec 5 a version past int64 was "corrupt"); a fraction or a sign is not.
	for _, v := range []string{"99999999999999999999", " 18446744073709551616 ", "1000000"} {
		_, err := Unmarshal([]byte(`{"active_branch":"main","format":"sessiontree","version":` + v + `,"branches":{},"nodes":{}}`))
		wantCode(t, err, CodeUnsupportedVersion)
	}
	for _, v := range []string{"2.0", "-99999999999999999999", "0", "99999999999999999999e1", "1e400"} {
		_, err := Unmarshal([]byte(`{"format":"sessiontree","version":` + v + `,"active_branch":"main","branches":{},"nodes":{}}`))
		wantCode(t, err, CodeCorrupt)
	}
}

func TestLoaderIsStrictAboutSyntaxTypesAndUnknownFields(t *testing.T) {
	good := string(New().Marshal())
	for name, in := range map[string]string{
		"empty":             ``,
		"not json":          `hello`,
		"array":             `[]`,
		"trailing":          good + `x`,
		"wrong format":      strings.Replace(good, `"sessiontree"`, `"other"`, 1),
		"missing nodes":     strings.Replace(good, `,"nodes":{}`, ``, 1),
		"unknown top field": strings.Replace(good, `"nodes":{}`, `"nodes":{},"extra":1`, 1),
		"duplicate field":   strings.Replace(good, `"nodes":{}`, `"nodes":{},"nodes":{}`, 1),
		"bad branch field":  strings.Replace(good, `"name":"main"`, `"name":"main","x":1`, 1),
		"twice in a branch": strings.Replace(good, `"name":"main"`, `"name":"main","name":"main"`, 1),
		"bad time":          strings.Replace(good, `"created_at_ms":0`, `"created_at_ms":1.5`, 1),
		"empty id":          `{"format":"sessiontree","version":1,"active_branch":"main","branches":{},"nodes":{"":{"id":"","children":[],"message":{"role":"u"},"created_at_ms":1}}}`,
		"control in name":   `{"format":"sessiontree","version":1,"active_branch":"ma\u0001in","branches":{},"nodes":{}}`,
		"zero version":      strings.Replace(good, `"version":1`, `"version":0`, 1),
	} {
		if _, err := Unmarshal([]byte(in)); err == nil {
			t.Errorf("%s: loaded", name)
		} else {
			wantCode(t, err, CodeCorrupt)
		}
	}
	// An error names where in the file it is, as the load's path spelled it.
	for in, want := range map[string]string{
		strings.Replace(good, `"name":"main"`, `"name":"main","name":"main"`, 1): "branches.main.name: duplicate field",
		strings.Replace(good, `"created_at_ms":0`, `"created_at_ms":"0"`, 1):     "branches.main.created_at_ms: expected an integer",
		strings.Replace(good, `"name":"main"`, `"name":"main","leaf":7`, 1):      "branches.main.leaf: expected a string id",
		strings.Replace(good, `"active_branch":"main"`, `"active_branch":7`, 1):  "active_branch: expected a string branch name",
	} {
		if _, err := Unmarshal([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
}

func TestUnmarshalCopiesItsInput(t *testing.T) {
	tr, _ := chain(t, "hello")
	b := tr.Marshal()
	back, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range b {
		b[i] = ' '
	}
	msgs, _ := back.LinearProjection()
	if string(msgs[0]) != `{"role":"user","content":"hello"}` {
		t.Fatalf("message changed with the caller's buffer: %s", msgs[0])
	}
}

func TestUnmarshalOwnedReadsWhatUnmarshalReadsWithoutACopy(t *testing.T) {
	tr, _ := chain(t, "hello", "world")
	tr.Branch(tr.root, "idea", 9)
	b := tr.Marshal()
	owned, err := UnmarshalOwned(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := owned.Marshal(); string(got) != string(b) {
		t.Fatalf("UnmarshalOwned then Marshal:\n%s\nwant\n%s", got, b)
	}
	msgs, _ := owned.LinearProjection()
	for i := range b {
		if b[i] == 'h' {
			b[i] = 'j' // the owner broke the rule: the tree shows it, so it held no copy
		}
	}
	if len(msgs) == 0 || string(msgs[0]) != `{"role":"user","content":"jello"}` {
		t.Fatalf("the messages are not views of the owned buffer: %s", msgs[0])
	}
	if _, err := UnmarshalOwned([]byte(`{"format":"sessiontree","version":1,"nodes":`)); err == nil {
		t.Fatal("a truncated file loaded")
	}
}

func TestAppendMarshalAppendsExactlyMarshal(t *testing.T) {
	tr, _ := chain(t, "a", "b", "c")
	want := tr.Marshal()
	buf := []byte("prefix")
	got := tr.AppendMarshal(buf)
	if string(got) != "prefix"+string(want) {
		t.Fatalf("AppendMarshal = %s", got)
	}
	again := tr.AppendMarshal(got[:0])
	if string(again) != string(want) || &again[0] != &got[0] {
		t.Fatal("AppendMarshal into a buffer with room did not reuse it")
	}
}

func TestCloneIsIndependent(t *testing.T) {
	tr, ids := chain(t, "q", "a")
	c := tr.Clone()
	c.Rewind(ids[0], 5)
	c.Label(ids[0], "x")
	mustAppend(t, c, msg("user", "z"), 6)
	if tr.Len() != 2 || tr.HasBranches() {
		t.Fatal("clone shares state")
	}
	if n, _ := tr.Node(ids[0]); n.Label != "" || len(n.Children) != 1 {
		t.Fatalf("clone shares nodes: %+v", n)
	}
}

func TestAppendEditAndInsertStoreTheCompactedMessage(t *testing.T) {
	tr := New(counterIDs())
	spaced := Message("{ \"role\" : \"user\" ,\n \"content\" : \"x  y\" }")
	want := `{"role":"user","content":"x  y"}`
	a := mustAppend(t, tr, spaced, 1)
	e, _ := tr.Edit(a, spaced, 2)
	if err := tr.InsertNode("i", "", spaced, "", 3); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{a, e, "i"} {
		if n, _ := tr.Node(id); string(n.Message) != want {
			t.Fatalf("%s stored %s", id, n.Message)
		}
	}
}

// An empty file (or one of whitespace alone: a download that never came, a
// body of nothing) says so, not that its top level is not an object.
func TestAnEmptyFileIsCorruptSayingItIsEmpty(t *testing.T) {
	for _, in := range []string{``, " \n\t"} {
		_, err := Unmarshal([]byte(in))
		wantCode(t, err, CodeCorrupt)
		if err == nil || !strings.Contains(err.Error(), "it is empty") {
			t.Errorf("%q: %v", in, err)
		}
	}
	if _, err := Unmarshal([]byte(`[]`)); err == nil || !strings.Contains(err.Error(), "the top level is not a JSON object") {
		t.Errorf("[]: %v", err)
	}
}

// SPEC §2: Unmarshal reads what Marshal writes and refuses, as CodeCorrupt
// naming the field, what it never writes: a node or branch member named
// twice, a node without its time, an empty label or summary text, a summary
// that is as of no node, a message whose "role" is not a string. Each file
// is tried as Marshal lays it out (the fast path) and indented (the path
// that reads any layout), so neither path accepts what the other refuses.
func TestLoaderRefusesWhatMarshalNeverWrites(t *testing.T) {
	head := `{"format":"sessiontree","version":1,"root":"a","active_branch":"main","branches":{`
	main := `"main":{"name":"main","leaf":"a","created_at_ms":0}`
	node := func(fields string) string {
		return `},"nodes":{"a":{"id":"a","children":[],"message":{"role":"user"},` + fields + `}}}`
	}
	good := head + main + node(`"created_at_ms":1`)
	if _, err := Unmarshal([]byte(good)); err != nil {
		t.Fatalf("the base file does not load: %v", err)
	}
	for name, c := range map[string]struct{ file, where string }{
		"node time twice":    {head + main + node(`"created_at_ms":1,"created_at_ms":2`), "nodes.a.created_at_ms: duplicate field"},
		"node label twice":   {head + main + node(`"label":"x","label":"y","created_at_ms":1`), "nodes.a.label: duplicate field"},
		"node without time":  {head + main + `},"nodes":{"a":{"id":"a","children":[],"message":{"role":"user"}}}}`, `nodes.a: a node needs`},
		"empty label":        {head + main + node(`"label":"","created_at_ms":1`), "nodes.a.label: expected a non-empty string"},
		"role not a string":  {head + main + `},"nodes":{"a":{"id":"a","children":[],"message":{"role":1},"created_at_ms":1}}}`, "nodes.a.message"},
		"role an object":     {head + main + `},"nodes":{"a":{"id":"a","children":[],"message":{"content":"x","role":{"x":"y"}},"created_at_ms":1}}}`, "nodes.a.message"},
		"branch named twice": {head + main + `,` + main + node(`"created_at_ms":1`), "branches.main: duplicate branch name"},
		"empty summary text": {head + `"main":{"name":"main","leaf":"a","summary":{"summary":"","node_id":"a","branch":"main","created_at_ms":1},"created_at_ms":0}` + node(`"created_at_ms":1`), "branches.main.summary.summary: expected a non-empty string"},
		"empty model id":     {head + `"main":{"name":"main","leaf":"a","summary":{"summary":"s","node_id":"a","branch":"main","model_id":"","created_at_ms":1},"created_at_ms":0}` + node(`"created_at_ms":1`), "branches.main.summary.model_id: expected a non-empty string"},
		"summary of no node": {head + `"main":{"name":"main","leaf":"a","summary":{"summary":"s","branch":"main","created_at_ms":1},"created_at_ms":0}` + node(`"created_at_ms":1`), `branches.main.summary: a summary needs`},
		"control in a name":  {head + main + `,"x\u007f":{"name":"x\u007f","created_at_ms":0}` + node(`"created_at_ms":1`), "branches: branch name"},
	} {
		var indented bytes.Buffer
		if err := json.Indent(&indented, []byte(c.file), "", " "); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, in := range []string{c.file, indented.String()} {
			_, err := Unmarshal([]byte(in))
			if err == nil {
				t.Errorf("%s: loaded\n%s", name, in)
				continue
			}
			wantCode(t, err, CodeCorrupt)
			if !strings.Contains(err.Error(), c.where) {
				t.Errorf("%s: %v, want it to name %q", name, err, c.where)
			}
		}
	}
}
