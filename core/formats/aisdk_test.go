package formats_test

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats"
)

// randomChat is a useChat session as the tree holds it: UIMessages (without
// their ids) appended, regenerated and edited, so the active path is one of
// several branches.
func randomChat(seed uint64) *core.Tree {
	r := rand.New(rand.NewPCG(seed, 11))
	n := 0
	t := core.New(core.WithIDSource(func() string { n++; return "m" + strconv.Itoa(n) }))
	var ids []string
	for i := 0; i < 3+r.IntN(30); i++ {
		role := []string{"user", "assistant", "system"}[r.IntN(3)]
		parts := `[{"type":"text","text":"t` + strconv.Itoa(i) + ` ünï \"q\""}]`
		if role == "assistant" && r.IntN(2) == 0 {
			parts = `[{"type":"step-start"},{"type":"reasoning","text":"r","state":"done"},{"type":"tool-f","toolCallId":"c` + strconv.Itoa(i) + `","state":"output-available","input":{"a":1.50},"output":[1,{"k":null}]},{"type":"text","text":"x"}]`
		}
		msg := core.Message(`{"role":"` + role + `","parts":` + parts + `,"metadata":{"i":` + strconv.Itoa(i) + `}}`)
		if len(ids) == 0 || r.IntN(4) > 0 {
			id, _ := t.Append(msg, 0)
			ids = append(ids, id)
		} else {
			id, _ := t.Edit(ids[r.IntN(len(ids))], msg, 0)
			ids = append(ids, id)
		}
	}
	return t
}

// The ai-sdk format is linear: import(export(t)) is t's active path, every
// id and message as it was, and exporting that again gives the same bytes.
func TestAISDKImportOfExportIsTheActivePath(t *testing.T) {
	for seed := uint64(1); seed <= 60; seed++ {
		tr := randomChat(seed)
		out, err := formats.Export(tr, formats.AISDK)
		if err != nil {
			t.Fatalf("seed %d: export: %v", seed, err)
		}
		if d := formats.Detect(out); d != formats.AISDK {
			t.Fatalf("seed %d: detected as %q", seed, d)
		}
		back, rep, err := formats.Import(formats.AISDK, out)
		if err != nil || len(rep.Problems) > 0 {
			t.Fatalf("seed %d: import: %v %v", seed, err, rep.Problems)
		}
		want, _ := tr.ActivePath()
		got, _ := back.ActivePath()
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Fatalf("seed %d: path %v, want %v", seed, got, want)
		}
		for _, id := range want {
			a, _ := tr.Node(id)
			b, _ := back.Node(id)
			if !bytes.Equal(a.Message, b.Message) {
				t.Fatalf("seed %d: node %s is %s, want %s", seed, id, b.Message, a.Message)
			}
		}
		again, _ := formats.Export(back, formats.AISDK)
		if !bytes.Equal(again, out) {
			t.Fatalf("seed %d: export(import(export(t))) differs:\n%s\n%s", seed, again, out)
		}
	}
}

func TestAISDKImportReportsWhatItCannotRead(t *testing.T) {
	file := `[{"id":"a","role":"user","parts":[{"type":"text","text":"hi"}],"parts":[{"type":"text","text":"kept"}]},` +
		`{"id":"b","role":"tool","parts":[]},{"id":"a","role":"assistant","parts":[]}]`
	tr, rep, err := formats.Import(formats.AISDK, []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	msgs, _ := tr.LinearProjection()
	if len(msgs) != 2 || msgs[0].Text() != "kept" {
		t.Fatalf("imported %v", msgs)
	}
	var said []string
	for _, p := range rep.Problems {
		said = append(said, p.Message)
	}
	all := strings.Join(said, "; ")
	for _, want := range []string{"named twice", `message 1: invalid_input: "role" is not`, "duplicate id"} {
		if !strings.Contains(all, want) {
			t.Errorf("the report does not say %q: %s", want, all)
		}
	}
	if _, _, err := formats.Import(formats.AISDK, []byte(`{"x":1}`)); err == nil {
		t.Error("an object without messages imported")
	}
}

func FuzzImportAISDK(f *testing.F) {
	f.Add([]byte(`[{"id":"a","role":"user","parts":[{"type":"text","text":"hi"}]},{"id":"b","role":"assistant","parts":[{"type":"tool-f","toolCallId":"c","state":"output-available","input":{},"output":1}]}]`))
	f.Add([]byte(`{"messages":[{"id":"a","role":"system","parts":[]}]}`))
	fuzzImport(f, formats.AISDK)
}

// A file part of another shape (assistant-ui's, Chat Completions', the
// Responses API's, an Anthropic document) is exported as a file, in the
// ai-sdk export a UIMessage file part and in the assistant-ui export
// assistant-ui's (its own as it is); a file named by a provider's id alone
// has no URL and is left out.
func TestFilePartsOfEveryShapeAreExportedAsFiles(t *testing.T) {
	pdf := "data:application/pdf;base64,JVBERi0="
	for _, c := range []struct{ name, part, ui, aui string }{
		{"assistant-ui, base64", `{"type":"file","data":"JVBERi0=","mimeType":"application/pdf","filename":"a.pdf"}`,
			`{"type":"file","mediaType":"application/pdf","url":"` + pdf + `","filename":"a.pdf"}`,
			`{"type":"file","data":"JVBERi0=","mimeType":"application/pdf","filename":"a.pdf"}`},
		{"assistant-ui, a URL", `{"type":"file","data":"https://x/a.pdf","mimeType":"application/pdf"}`,
			`{"type":"file","mediaType":"application/pdf","url":"https://x/a.pdf"}`,
			`{"type":"file","data":"https://x/a.pdf","mimeType":"application/pdf"}`},
		{"assistant-ui, an id", `{"type":"file","data":"file-1","mimeType":"application/pdf","sourceType":"id"}`, ``,
			`{"type":"file","data":"file-1","mimeType":"application/pdf","sourceType":"id"}`},
		{"Chat Completions", `{"type":"file","file":{"file_data":"` + pdf + `","filename":"b.pdf"}}`,
			`{"type":"file","mediaType":"application/pdf","url":"` + pdf + `","filename":"b.pdf"}`,
			`{"type":"file","data":"` + pdf + `","mimeType":"application/pdf","filename":"b.pdf"}`},
		{"Chat Completions, an id", `{"type":"file","file":{"file_id":"file-1"}}`, ``, ``},
		{"Responses", `{"type":"input_file","file_url":"https://x/c.pdf","filename":"c.pdf"}`,
			`{"type":"file","mediaType":"application/octet-stream","url":"https://x/c.pdf","filename":"c.pdf"}`,
			`{"type":"file","data":"https://x/c.pdf","mimeType":"application/octet-stream","filename":"c.pdf"}`},
		{"Anthropic document", `{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}}`,
			`{"type":"file","mediaType":"application/pdf","url":"` + pdf + `"}`,
			`{"type":"file","data":"` + pdf + `","mimeType":"application/pdf"}`},
		{"Anthropic text document", `{"type":"document","source":{"type":"text","media_type":"text/plain","data":"hi"}}`,
			`{"type":"file","mediaType":"text/plain","url":"data:text/plain;base64,aGk="}`,
			`{"type":"file","data":"data:text/plain;base64,aGk=","mimeType":"text/plain"}`},
		{"a UIMessage's PDF", ``, ``,
			`{"type":"file","data":"` + pdf + `","mimeType":"application/pdf","filename":"d.pdf"}`},
	} {
		tr := core.New(core.WithIDSource(func() string { return "m1" }))
		msg := `{"role":"user","content":[{"type":"text","text":"read"},` + c.part + `]}`
		if c.part == "" {
			msg = `{"role":"user","parts":[{"type":"text","text":"read"},{"type":"file","mediaType":"application/pdf","filename":"d.pdf","url":"` + pdf + `"}]}`
		}
		if _, err := tr.Append(core.Message(msg), 0); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		text := `{"type":"text","text":"read"}`
		if c.part != "" {
			out, err := formats.Export(tr, formats.AISDK)
			want := `[{"id":"m1","role":"user","parts":[` + text + `]}]`
			if c.ui != "" {
				want = `[{"id":"m1","role":"user","parts":[` + text + `,` + c.ui + `]}]`
			}
			if err != nil || string(out) != want {
				t.Errorf("%s: ai-sdk export\n got %s %v\nwant %s", c.name, out, err, want)
			}
		}
		out, err := formats.Export(tr, formats.AssistantUI)
		want := `"content":[` + text + `]`
		if c.aui != "" {
			want = `"content":[` + text + `,` + c.aui + `]`
		}
		if err != nil || !bytes.Contains(out, []byte(want)) {
			t.Errorf("%s: assistant-ui export\n got %s %v\nwant %s", c.name, out, err, want)
		}
	}
}
