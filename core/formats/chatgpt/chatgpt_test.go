package chatgpt_test

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/chatgpt"
)

var clock = regexp.MustCompile(`,"used":\d+`)

func same(a, b *core.Tree) bool {
	return clock.ReplaceAllString(string(a.Marshal()), "") == clock.ReplaceAllString(string(b.Marshal()), "")
}

type entry struct {
	ID      string          `json:"id"`
	Parent  *string         `json:"parent"`
	Message *map[string]any `json:"message"`
}

type conversation struct {
	ID             string           `json:"id"`
	ConversationID string           `json:"conversation_id"`
	Title          string           `json:"title"`
	CurrentNode    string           `json:"current_node"`
	Mapping        map[string]entry `json:"mapping"`
}

// forest is a tree of two roots, as a Claude Code compaction or two pasted
// conversations make, of messages of other shapes: an Anthropic tool call and
// its result.
func forest(t *testing.T) *core.Tree {
	t.Helper()
	tr := core.New()
	add := func(id, parent, msg string, at int64) {
		if err := tr.InsertNode(id, parent, core.Message(msg), "", at); err != nil {
			t.Fatal(err)
		}
	}
	add("u1", "", `{"role":"user","content":"list the files"}`, 1000)
	add("a1", "u1", `{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"ls","input":{"path":"."}}],"model":"claude-x"}`, 2000)
	add("r1", "a1", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.go b.go"}]}`, 3000)
	add("u2", "", `{"role":"user","content":"a second conversation"}`, 4000)
	_ = tr.SetBranch(core.MainBranch, "r1", 0)
	_ = tr.SetBranch("other", "u2", 0)
	return tr
}

// LibreChat's importer (api/server/utils/import/importers.js at b6e4959)
// reads a ChatGPT file as one conversation per element, each one tree, and
// reads message.content.content_type and message.metadata.model_slug of every
// entry (a TypeError otherwise, and nothing is imported). A conversations.json
// message has author, create_time, content, status, end_turn, weight,
// metadata, recipient and channel; a conversation its id and conversation_id
// and a null-message root. So each foreign root is a conversation of its own,
// written with every one of those fields.
func TestAForestIsWrittenAsConversationsChatGPTReaders(t *testing.T) {
	tr := forest(t)
	out, err := chatgpt.Export(tr)
	if err != nil {
		t.Fatal(err)
	}
	var convs []conversation
	if err := json.Unmarshal(out, &convs); err != nil {
		t.Fatal(err)
	}
	if len(convs) != 2 || convs[0].CurrentNode != "r1" || convs[1].CurrentNode != "u2" {
		t.Fatalf("%d conversations: %s", len(convs), out)
	}
	for _, c := range convs {
		if c.ID == "" || c.ConversationID == "" || c.Title == "" {
			t.Fatalf("conversation without id or title: %+v", c)
		}
		root, ok := c.Mapping["client-created-root"]
		if !ok || root.Message != nil || root.Parent != nil {
			t.Fatalf("no null-message root: %s", out)
		}
		for id, e := range c.Mapping {
			if e.Message == nil {
				continue
			}
			m := *e.Message
			for _, k := range []string{"id", "author", "create_time", "content", "status", "end_turn", "weight", "metadata", "recipient", "channel"} {
				if _, ok := m[k]; !ok {
					t.Fatalf("entry %s lacks %s: %v", id, k, m)
				}
			}
			if _, ok := m["content"].(map[string]any)["content_type"]; !ok {
				t.Fatalf("entry %s has no content_type", id)
			}
		}
	}
	a1 := *convs[0].Mapping["a1"].Message
	r1 := *convs[0].Mapping["r1"].Message
	if a1["recipient"] != "ls" || a1["content"].(map[string]any)["content_type"] != "code" || a1["metadata"].(map[string]any)["model_slug"] != "claude-x" {
		t.Fatalf("a tool call is not addressed to its tool: %v", a1)
	}
	if r1["author"].(map[string]any)["role"] != "tool" || r1["author"].(map[string]any)["name"] != "ls" {
		t.Fatalf("a tool's result does not come from the tool: %v", r1)
	}
	back, _, err := chatgpt.Import(out)
	if err != nil || !same(tr, back) {
		t.Fatalf("import(export(t)) != t: %v\n%s\n%s", err, tr.Marshal(), back.Marshal())
	}
}
