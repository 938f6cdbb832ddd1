package convert

import (
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
)

// A message elided against a record resolves to itself: strings the record
// holds as they are, and strings inside JSON text the record holds as a
// string (a tool call's arguments), are references; the rest stays.
func TestElidedMessagesResolveToThemselves(t *testing.T) {
	long := `a long \"quoted\" answer\nwith lines, é and \u00e9 kept as written`
	msg := []byte(`{"role":"assistant","content":[{"type":"text","text":"` + long + `"},{"type":"tool_use","input":{"path":"/some/rather/long/path/to/a/file.go"}}],"short":"x"}`)
	base := []byte(`{"content":"` + long + `","args":"{\"path\":\"/some/rather/long/path/to/a/file.go\"}"}`)
	el, ok := Elide(msg, base)
	if !ok || strings.Contains(string(el), "rather/long") || strings.Contains(string(el), "quoted") || len(el) >= len(msg) {
		t.Fatalf("elided %s", el)
	}
	back, ok := Resolve(el, base)
	if !ok || string(back) != string(msg) {
		t.Fatalf("resolved %s", back)
	}
	if _, ok := Resolve(el, base[:20]); ok {
		t.Fatal("a reference past the record resolved")
	}
	own := []byte(`{"role":"user","content":"{\"~\":[1,2]} is text here, long enough to elide"}`)
	if _, ok := Elide([]byte(`{"role":"user","x":{"~":[1,2]},"content":"long enough to be elided, surely"}`), own); ok {
		t.Fatal("a message holding the reference key was elided")
	}
}

// A kept message's role and content that the record gives back as they are
// are references to them; a record changed after the export (by another
// tool) shows its change, and one whose elided strings moved (its checksum
// differs) gives its own message rather than a misread one.
func TestAChangedRecordIsNotMisread(t *testing.T) {
	derive := func(rec []byte) (core.Message, string, int64, error) {
		ms, _ := Members(rec)
		msg := core.Message(`{"role":"user","content":` + string(mustGet(ms, "text")) + `}`)
		return WithNodeExt(ms, msg, 0)
	}
	n := core.Node{ID: "a", Message: core.Message(`{"role":"user","content":"a message long enough to be elided","k":1}`)}
	rec := Faithful([]byte(`{"text":"a message long enough to be elided"}`), n, derive)
	if !strings.Contains(string(rec), `"sessiontree":{"message":{"role":"user","content":{"~":0},"k":1},"same":true}`) {
		t.Fatalf("record %s", rec)
	}
	if m, _, _, _ := derive(rec); string(m) != string(n.Message) {
		t.Fatalf("derived %s", m)
	}
	edited := []byte(strings.Replace(string(rec), `"text":"a message`, `"text":"A message`, 1))
	if m, _, _, _ := derive(edited); string(m) != `{"role":"user","content":"A message long enough to be elided","k":1}` {
		t.Fatalf("edited record derived %s", m)
	}
	n = core.Node{ID: "b", Message: core.Message(`{"role":"user","content":"short","note":"a note long enough to be elided, surely"}`)}
	rec = Faithful([]byte(`{"text":"short","note":"a note long enough to be elided, surely"}`), n, derive)
	if !strings.Contains(string(rec), `"elided":`) {
		t.Fatalf("record %s", rec)
	}
	if m, _, _, _ := derive(rec); string(m) != string(n.Message) {
		t.Fatalf("derived %s", m)
	}
	moved := []byte(strings.Replace(string(rec), `"text":"short"`, `"text":"shorter"`, 1))
	if m, _, _, _ := derive(moved); string(m) != `{"role":"user","content":"shorter"}` {
		t.Fatalf("changed record derived %s", m)
	}
}
