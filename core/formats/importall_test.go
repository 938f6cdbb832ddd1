package formats_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats"
)

// A conversations.json of several conversations imports as one tree per
// conversation, each with its own title, active leaf and report.
func TestImportAllGivesEachConversationItsOwnTree(t *testing.T) {
	conv := func(id, title, text string) string {
		return `{"id":"` + id + `","title":"` + title + `","current_node":"` + id + `-a","mapping":{` +
			`"` + id + `-r":{"id":"` + id + `-r","message":null,"parent":null,"children":["` + id + `-u"]},` +
			`"` + id + `-u":{"id":"` + id + `-u","message":{"id":"` + id + `-u","author":{"role":"user"},"content":{"content_type":"text","parts":["` + text + `"]}},"parent":"` + id + `-r","children":["` + id + `-a"]},` +
			`"` + id + `-a":{"id":"` + id + `-a","message":{"id":"` + id + `-a","author":{"role":"assistant"},"content":{"content_type":"text","parts":["ok"]}},"parent":"` + id + `-u","children":[]}}}`
	}
	data := []byte("[" + conv("c1", "First", "one") + "," + conv("c2", "Second", "two") + "]")
	convs, err := formats.ImportAll(data, formats.Auto)
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 2 || convs[0].Title != "First" || convs[1].Title != "Second" {
		t.Fatalf("%d conversations: %+v", len(convs), convs)
	}
	for i, c := range convs {
		path, _ := c.Tree.ActivePath()
		want := []string{"c1-u", "c1-a"}
		if i == 1 {
			want = []string{"c2-u", "c2-a"}
		}
		if strings.Join(path, ",") != strings.Join(want, ",") || c.Report.Format != "chatgpt" || c.Tree.Len() != 2 {
			t.Fatalf("conversation %d: path %v, format %q, %d nodes", i, path, c.Report.Format, c.Tree.Len())
		}
	}
}

// A file of a one-conversation format is one conversation.
func TestImportAllOfALinearFormatIsOneConversation(t *testing.T) {
	convs, err := formats.ImportAll([]byte(`{"conversationId":"x","title":"T","messages":[{"messageId":"m1","parentMessageId":null,"isCreatedByUser":true,"text":"hi"}]}`), formats.LibreChat)
	if err != nil || len(convs) != 1 || convs[0].Title != "T" || convs[0].Tree.Len() != 1 {
		t.Fatalf("%v %+v", err, convs)
	}
}

// A Chatbot UI export (a "history" array, h20's chatbotui-export.json) is no
// Open WebUI chat: auto says it cannot tell the format and names those it
// reads, with code invalid_input, instead of an Open WebUI error.
func TestAutoRefusesAFileOfNoKnownFormatWithTheFormatsItReads(t *testing.T) {
	for _, in := range []string{
		`{"version":4,"history":[{"id":"1","name":"chat","messages":[{"role":"user","content":"hi"}]}],"folders":[],"prompts":[]}`,
		`{"conversations":[]}`,
	} {
		_, _, err := formats.Import(formats.Auto, []byte(in))
		var e *core.Error
		if !errors.As(err, &e) || e.Code != core.CodeInvalidInput || !strings.Contains(e.Message, "cannot tell the format") ||
			!strings.Contains(e.Message, "chatgpt, openwebui, librechat, claudecode, pi, codex, claudeai, sillytavern, openai") || strings.Contains(e.Message, "markdown") {
			t.Fatalf("%s: %v", in, err)
		}
		if _, err := formats.ImportAll([]byte(in), formats.Auto); !errors.As(err, &e) || e.Code != core.CodeInvalidInput {
			t.Fatalf("ImportAll %s: %v", in, err)
		}
	}
}

// A file no format reads because it is not whole JSON (an export cut short)
// says so, with where it ends, instead of naming formats to pick from; so
// does a file of nothing but whitespace. JSON lines of no known tool, whose
// lines are whole, are still "cannot tell the format".
func TestAutoSaysAFileCutShortOrBlankIsNotJSONNotAnUnknownFormat(t *testing.T) {
	export := `[{"title":"a","mapping":{"1":{"id":"1","message":null,"parent":null,"children":[]}},"current_node":"1"}]`
	for _, c := range []struct{ in, want string }{
		{export[:len(export)-20], "the input is not valid JSON: expected a string key at byte 84 (it ends there: the file is cut short"},
		{export[:len(export)-30], "the file is cut short"},
		{`{"a":"b`, "the file is cut short"},
		{`{"a":1,}  `, "the input is not valid JSON: expected a string key at byte 7"},
		{`[1] [2]`, "the input is not valid JSON: more after the value"},
		{" \n\t \n", "the input is empty: it holds nothing but whitespace"},
		{"\ufeff  ", "the input is empty"},
		{"{\"x\":1}\n{\"y\":2}\n", "cannot tell the format"},
		{"hello", "cannot tell the format"},
	} {
		for name, read := range map[string]func() error{
			"Import": func() error { _, _, err := formats.Import(formats.Auto, []byte(c.in)); return err },
			"ImportEach": func() error {
				return formats.ImportEach([]byte(c.in), formats.Auto, func(formats.Conversation, int) {})
			},
		} {
			err := read()
			var e *core.Error
			if !errors.As(err, &e) || e.Code != core.CodeInvalidInput || !strings.Contains(e.Message, c.want) {
				t.Errorf("%s(%q): %v, want invalid_input saying %q", name, c.in, err, c.want)
			}
		}
	}
}

// An export whose list of conversations stops being JSON part-way (a
// download cut short) gives each whole conversation before the break, then
// fails saying where it stops and that the file is cut short; Detect tells
// its format by its first conversation. Cut anywhere in its third
// conversation, the first two come, whole and the same as from the whole file.
func TestImportEachOfAnExportCutShortGivesItsWholeConversationsFirst(t *testing.T) {
	conv := func(i int) string {
		n := strconv.Itoa(i)
		return `{"title":"Chat ` + n + `","mapping":{"a` + n + `":{"id":"a` + n + `","message":{"id":"a` + n + `","author":{"role":"user"},"content":{"content_type":"text","parts":["hi ` + n + `"]}},"parent":null,"children":[]}},"current_node":"a` + n + `"}`
	}
	whole := "[" + conv(0) + ", " + conv(1) + ",\n " + conv(2) + "]"
	third := strings.Index(whole, conv(2))
	var want []string
	if err := formats.ImportEach([]byte(whole), formats.Auto, func(c formats.Conversation, _ int) { want = append(want, c.Title+" "+string(c.Tree.Marshal())) }); err != nil || len(want) != 3 {
		t.Fatal(err, len(want))
	}
	for cut := third + 1; cut < len(whole)-1; cut++ {
		data := []byte(whole[:cut])
		if f := formats.Detect(data); f != formats.ChatGPT {
			t.Fatalf("cut at %d: detected %q", cut, f)
		}
		var got []string
		err := formats.ImportEach(data, formats.Auto, func(c formats.Conversation, _ int) { got = append(got, c.Title+" "+string(c.Tree.Marshal())) })
		var e *core.Error
		if !errors.As(err, &e) || e.Code != core.CodeInvalidInput || !strings.Contains(e.Message, "stops being valid JSON after its 2 whole conversations") || !strings.Contains(e.Message, "the file is cut short") {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("cut at %d: got %d conversations, want the first 2 whole", cut, len(got))
		}
	}
	// Broken, not cut: the same conversations, and where it breaks, not "cut short".
	broken := whole[:third] + "}" + whole[third:]
	n := 0
	err := formats.ImportEach([]byte(broken), formats.ChatGPT, func(formats.Conversation, int) { n++ })
	if err == nil || n != 2 || !strings.Contains(err.Error(), "after its 2 whole conversations") || strings.Contains(err.Error(), "cut short") {
		t.Fatalf("broken: %d, %v", n, err)
	}
	// More after the list's end.
	n = 0
	if err := formats.ImportEach([]byte(whole+` {"x":1}`), formats.ChatGPT, func(formats.Conversation, int) { n++ }); err == nil || n != 3 {
		t.Fatalf("after the list: %d, %v", n, err)
	}
	// The first one cut: nothing comes, "not valid JSON", as before.
	n = 0
	if err := formats.ImportEach([]byte(whole[:40]), formats.ChatGPT, func(formats.Conversation, int) { n++ }); err == nil || n != 0 || !strings.Contains(err.Error(), "not valid JSON") {
		t.Fatalf("first cut: %d, %v", n, err)
	}
	// ImportAll fails as a whole.
	if _, err := formats.ImportAll([]byte(whole[:len(whole)-5]), formats.Auto); err == nil {
		t.Fatal("ImportAll of a cut export: no error")
	}
}
