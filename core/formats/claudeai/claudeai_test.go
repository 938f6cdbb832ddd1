package claudeai_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/claudeai"
)

type entry struct {
	UUID    *string           `json:"uuid"`
	Text    *string           `json:"text"`
	Sender  *string           `json:"sender"`
	Content []json.RawMessage `json:"content"`
	Parent  *string           `json:"parent_message_uuid"`
	Created *string           `json:"created_at"`
}

type conversation struct {
	UUID        *string          `json:"uuid"`
	Name        *string          `json:"name"`
	Created     *string          `json:"created_at"`
	Updated     *string          `json:"updated_at"`
	Messages    *[]entry         `json:"chat_messages"`
	Mapping     *json.RawMessage `json:"mapping"`
	CurrentLeaf *string          `json:"current_leaf_message_uuid"`
}

// foreign is a tree of other tools' messages: a pi tool call and result, a
// Claude Code thinking block, and a retry of the answer.
func foreign(t *testing.T) *core.Tree {
	tr := core.New()
	add := func(id, parent, msg string, at int64) {
		if err := tr.InsertNode(id, parent, core.Message(msg), "", at); err != nil {
			t.Fatal(err)
		}
	}
	add("u1", "", `{"role":"user","content":"list the files"}`, 1000)
	add("a1", "u1", `{"role":"assistant","content":[{"type":"thinking","thinking":"use ls"},{"type":"text","text":"Listing."},{"type":"toolCall","id":"t1","name":"ls","arguments":{"path":"."}}]}`, 2000)
	add("r1", "a1", `{"role":"toolResult","toolCallId":"t1","toolName":"ls","content":[{"type":"text","text":"a.go b.go"}]}`, 3000)
	add("a2", "u1", `{"role":"assistant","content":"Try ls."}`, 4000)
	_ = tr.SetBranch(core.MainBranch, "r1", 0)
	return tr
}

func export(t *testing.T, tr *core.Tree) []conversation {
	t.Helper()
	out, err := claudeai.Export(tr)
	if err != nil {
		t.Fatal(err)
	}
	var convs []conversation
	if err := json.Unmarshal(out, &convs); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return convs
}

// Cherry Studio's AnthropicImporter (src/renderer/src/services/import/
// importers/AnthropicImporter.ts at 06a9426) takes a file only when every
// conversation has uuid, a chat_messages array and created_at, and no
// mapping; it shows a message by the text of its text blocks, else its
// "text", and leaves out a message with neither.
func TestEveryConversationHasWhatAnthropicImporterValidates(t *testing.T) {
	convs := export(t, foreign(t))
	if len(convs) != 1 {
		t.Fatalf("%d conversations, want 1", len(convs))
	}
	c := convs[0]
	if c.UUID == nil || c.Created == nil || c.Messages == nil || c.Mapping != nil {
		t.Fatalf("conversation %+v", c)
	}
	for _, e := range *c.Messages {
		if *e.UUID == "a1" && *e.Text != "Listing." {
			t.Fatalf("a1's text %q: the text parts", *e.Text)
		}
	}
}

// Cherry Studio's ClaudeImporter (ClaudeImporter.ts at 117ddde) walks every
// message's content blocks (a message without a content array fails its
// whole conversation) and imports the path from current_leaf_message_uuid up
// the parent_message_uuid links; tool_use needs a name, thinking its
// "thinking".
func TestTheCurrentLeafAndParentsGiveClaudeImporterTheActivePath(t *testing.T) {
	tr := foreign(t)
	c := export(t, tr)[0]
	byID := map[string]entry{}
	for _, e := range *c.Messages {
		if e.Content == nil {
			t.Fatalf("%s has no content array", *e.UUID)
		}
		byID[*e.UUID] = e
	}
	var walked []string
	for id := *c.CurrentLeaf; id != ""; {
		e, ok := byID[id]
		if !ok {
			break
		}
		walked = append([]string{id}, walked...)
		id = *e.Parent
	}
	if want, _ := tr.ActivePath(); strings.Join(walked, ",") != strings.Join(want, ",") {
		t.Fatalf("walked %v, the active path is %v", walked, want)
	}
	if *byID["u1"].Parent != claudeai.RootParent {
		t.Fatalf("a root's parent is %q", *byID["u1"].Parent)
	}
	blocks := string(byID["a1"].Content[0]) + string(byID["a1"].Content[2])
	if !strings.Contains(blocks, `{"type":"thinking","thinking":"use ls"}`) || !strings.Contains(blocks, `"type":"tool_use","id":"t1","name":"ls","input":{"path":"."}`) {
		t.Fatalf("blocks %s", blocks)
	}
	if r := string(byID["r1"].Content[0]); *byID["r1"].Sender != "human" || !strings.Contains(r, `"type":"tool_result","tool_use_id":"t1"`) {
		t.Fatalf("the tool's result is the human's tool_result: %s", r)
	}
}

// polylogue's ClaudeAISession (polylogue/sources/providers/claude_ai.py at
// d250e57) requires uuid, name, created_at and updated_at strings on a
// conversation and uuid, text and sender strings on every message.
func TestEveryFieldPolylogueRequiresIsAString(t *testing.T) {
	c := export(t, foreign(t))[0]
	if c.Name == nil || c.Updated == nil || *c.Name != "list the files" {
		t.Fatalf("conversation %+v", c)
	}
	for _, e := range *c.Messages {
		if e.UUID == nil || e.Text == nil || e.Sender == nil || e.Created == nil {
			t.Fatalf("message %+v", e)
		}
	}
}

// An import of an export gives back the tree, retries and foreign messages
// included.
func TestAForeignTreeComesBack(t *testing.T) {
	tr := foreign(t)
	out, _ := claudeai.Export(tr)
	back, rep, err := claudeai.Import(out)
	if err != nil || string(back.Marshal()) != string(tr.Marshal()) {
		t.Fatalf("%v %v\n%s\n%s", err, rep.Problems, tr.Marshal(), back.Marshal())
	}
}

// Bad input is an invalid_input error naming the format, never a panic.
func TestInputThatIsNoExportIsRefused(t *testing.T) {
	for _, in := range []string{``, `{`, `42`, `[]`, `[{"uuid":"c"}]`, `[{"chat_messages":[]}]`, `[{"chat_messages":[{"text":"no sender"}]}]`} {
		_, _, err := claudeai.Import([]byte(in))
		if e, ok := err.(*core.Error); !ok || e.Code != core.CodeInvalidInput || !strings.HasPrefix(e.Message, "claudeai: ") {
			t.Errorf("%q: %v", in, err)
		}
	}
}

// A conversation whose messages all wait for a parent (the first one's parent
// is not in the file, or they form a loop) is kept, each such message a root,
// and reported, alone in its file as beside others: until Dec 6 (night) a
// lone one was refused ("no conversation … holding a message") and
// formats.ImportAll handed it back empty (an outside pass).
func TestAConversationOfMessagesAwaitingAParentIsKept(t *testing.T) {
	msg := func(id, parent, text string) string {
		return `{"uuid":"` + id + `","sender":"human","text":"` + text + `","content":[{"type":"text","text":"` + text + `"}],"created_at":"2024-01-01T00:00:00Z","parent_message_uuid":"` + parent + `"}`
	}
	for name, msgs := range map[string]string{
		"a missing parent": msg("a", "missing-parent", "first") + `,` + msg("b", "a", "second"),
		"a loop":           msg("a", "b", "first") + `,` + msg("b", "a", "second"),
	} {
		file := `[{"uuid":"c1","name":"n","created_at":"2024-01-01T00:00:00Z","updated_at":"2024-01-01T00:00:00Z","chat_messages":[` + msgs + `]}]`
		tr, rep, err := claudeai.Import([]byte(file))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if tr.Len() != 2 || len(rep.Problems) == 0 {
			t.Errorf("%s: %d nodes, problems %v; want both messages kept and the parent reported", name, tr.Len(), rep.Problems)
		}
		for _, id := range []string{"a", "b"} {
			if _, ok := tr.Node(id); !ok {
				t.Errorf("%s: message %s was not kept", name, id)
			}
		}
	}
}
