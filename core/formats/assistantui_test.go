package formats_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats"
)

// An assistant-ui repository of two answers to one question (a reload): the
// tree holds both, main ends at the head, the other answer is a branch, every
// message keeps its parts and fields, and its time is createdAt.
func TestAssistantUIRepositoryIsTheTree(t *testing.T) {
	data := fixture(t, "assistant-ui/edits.json")
	if d := formats.Detect(data); d != formats.AssistantUI {
		t.Fatalf("detected as %q", d)
	}
	tr, rep := mustImport(t, formats.AssistantUI, data)
	if len(rep.Problems) > 0 {
		t.Fatalf("problems: %v", rep.Problems)
	}
	path, _ := tr.ActivePath()
	if strings.Join(path, ",") != "u1,a2,u2,a3" {
		t.Fatalf("active path %v", path)
	}
	if kids, _ := tr.Children("u1"); strings.Join(kids, ",") != "a1,a2" {
		t.Fatalf("u1's children %v", kids)
	}
	if len(tr.Branches()) != 2 {
		t.Fatalf("branches %v", tr.Branches())
	}
	a2, _ := tr.Node("a2")
	if !strings.HasPrefix(string(a2.Message), `{"role":"assistant","content":[{"type":"tool-call"`) || !strings.Contains(string(a2.Message), `"metadata":{"custom":{"model":"m2"}}`) || strings.Contains(string(a2.Message), `"id"`) {
		t.Fatalf("a2 stored as %s", a2.Message)
	}
	if a2.CreatedAtMs != 1796032805000 {
		t.Fatalf("a2's time %d", a2.CreatedAtMs)
	}
	checkRoundTrip(t, "assistant-ui/edits.json", formats.AssistantUI, data)
}

func TestAssistantUIImportReportsWhatItCannotRead(t *testing.T) {
	file := `{"headId":"gone","messages":[{"message":{"id":"a","role":"user","content":[{"type":"text","text":"hi"}]},"parentId":null},` +
		`{"message":{"id":"b","role":"tool","content":[]},"parentId":"a"},{"message":{"id":"c","role":"assistant","content":"x"},"parentId":"a"},` +
		`{"message":{"id":"a","role":"assistant","content":[]},"parentId":"a"}]}`
	tr, rep, err := formats.Import(formats.AssistantUI, []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	var said []string
	for _, p := range rep.Problems {
		said = append(said, p.Message)
	}
	all := strings.Join(said, "; ")
	for _, want := range []string{`item 1: invalid_input: "role" is not`, `item 2: invalid_input: "content" is not an array`, "duplicate id", "the active leaf is not a node"} {
		if !strings.Contains(all, want) {
			t.Errorf("the report does not say %q: %s", want, all)
		}
	}
	if tr.Len() != 2 {
		t.Errorf("%d nodes imported, want 2", tr.Len())
	}
	for _, bad := range []string{`[]`, `{"headId":null}`, `{"messages":{}}`} {
		if _, _, err := formats.Import(formats.AssistantUI, []byte(bad)); err == nil {
			t.Errorf("%s imported", bad)
		}
	}
}

func FuzzImportAssistantUI(f *testing.F) {
	f.Add([]byte(`{"headId":"b","messages":[{"message":{"id":"a","role":"user","content":[{"type":"text","text":"hi"}],"createdAt":"2026-01-01T00:00:00.000Z"},"parentId":null},{"message":{"id":"b","role":"assistant","content":[]},"parentId":"a"}]}`))
	fuzzImport(f, formats.AssistantUI, "assistant-ui/edits.json")
}

// An AI SDK UIMessage's sources and data parts are written as assistant-ui's
// source and data parts (a source only in an assistant's message, a data
// part in a user's too), as sessiontree/assistant-ui's toThreadMessage does.
func TestAssistantUIExportWritesAUIMessagesSourcesAndDataParts(t *testing.T) {
	n := 0
	tr := core.New(core.WithIDSource(func() string { n++; return "m" + strconv.Itoa(n) }))
	if _, err := tr.Append(core.Message(`{"role":"user","parts":[{"type":"text","text":"q"},{"type":"data-ctx","data":{"page":2}},{"type":"source-url","sourceId":"x","url":"https://e.org"}]}`), 0); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Append(core.Message(`{"role":"assistant","parts":[{"type":"source-url","sourceId":"s1","url":"https://e.org","title":"E"},{"type":"source-document","sourceId":"s2","mediaType":"application/pdf","title":"D","filename":"d.pdf"},{"type":"data-weather","id":"w","data":{"t":3}},{"type":"text","text":"see E"}]}`), 0); err != nil {
		t.Fatal(err)
	}
	out, err := formats.Export(tr, formats.AssistantUI)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"content":[{"type":"text","text":"q"},{"type":"data","name":"ctx","data":{"page":2}}]`,
		`"content":[{"type":"source","sourceType":"url","id":"s1","url":"https://e.org","title":"E"},{"type":"source","sourceType":"document","id":"s2","title":"D","mediaType":"application/pdf","filename":"d.pdf"},{"type":"data","name":"weather","data":{"t":3},"id":"w"},{"type":"text","text":"see E"}]`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the export has no %s:\n%s", want, out)
		}
	}
}
