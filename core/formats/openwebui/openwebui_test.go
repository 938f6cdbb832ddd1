package openwebui_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/internal/formattest"
	"github.com/sessiontree/sessiontree/core/formats/openwebui"
)

var clock = regexp.MustCompile(`,"used":\d+`)

func same(a, b *core.Tree) bool {
	return clock.ReplaceAllString(string(a.Marshal()), "") == clock.ReplaceAllString(string(b.Marshal()), "")
}

func TestImport(t *testing.T) {
	// Modelled on fractuscontext/openwebui-chat-repair tests/bad-test-1.json
	// (e108ed5): currentId names a deleted message, a childrenIds entry names
	// no message, and an orphan's parent is missing.
	damaged := `[{"id":"c","chat":{"title":"t","history":{"currentId":"deleted","messages":{` +
		`"m1":{"id":"m1","parentId":null,"childrenIds":["m2","missing"],"role":"user","content":"hi","timestamp":100},` +
		`"m2":{"id":"m2","parentId":"m1","childrenIds":["m3"],"role":"assistant","content":"yo","timestamp":101},` +
		`"m3":{"id":"m3","parentId":"m2","childrenIds":[],"role":"user","content":"more","timestamp":102},` +
		`"orphan":{"id":"orphan","parentId":"ghost","childrenIds":[],"role":"user","content":"lost","timestamp":200}}}}}]`
	formattest.RunImports(t, openwebui.Import, []formattest.Case{
		{"a currentId that names no message gives the latest leaf under a real root, not an orphan", damaged,
			func(t *testing.T, tr *core.Tree, problems, _ string) {
				path, _ := tr.ActivePath()
				if strings.Join(path, ",") != "m1,m2,m3" || !strings.Contains(problems, `id "deleted": currentId is not a message of the chat`) {
					t.Fatalf("path %v, problems %s", path, problems)
				}
				if !strings.Contains(problems, `childrenIds names "missing", which is not a message of the chat`) ||
					!strings.Contains(problems, `parent "ghost" is not in the file`) {
					t.Fatalf("problems %s", problems)
				}
			}},
	})
}

type chat struct {
	Chat struct {
		History struct {
			CurrentID string                    `json:"currentId"`
			Messages  map[string]map[string]any `json:"messages"`
		} `json:"history"`
		Messages []any `json:"messages"`
	} `json:"chat"`
}

// Open WebUI's chat import (src/lib/components/chat/Settings/DataControls.svelte
// at 9e3d540) iterates an array and imports each element's chat; its display
// walks history.messages from currentId up the parentIds (createMessagesList)
// and renders user and assistant messages whose content is a markdown string.
// So a message of another shape is written with a role Open WebUI shows and
// its parts in one string: reasoning and tool calls as the <details> blocks
// Open WebUI itself writes, a tool's result in a code block.
func TestAForeignMessageIsWrittenAsAnOpenWebUIMessage(t *testing.T) {
	tr := core.New()
	add := func(id, parent, msg string, at int64) {
		if err := tr.InsertNode(id, parent, core.Message(msg), "", at); err != nil {
			t.Fatal(err)
		}
	}
	add("u1", "", `{"role":"user","content":[{"type":"text","text":"list the files"}]}`, 1000)
	add("a1", "u1", `{"role":"assistant","content":[{"type":"thinking","thinking":"use ls"},{"type":"text","text":"Listing."},{"type":"tool_use","id":"t1","name":"ls","input":{"path":"."}}]}`, 2000)
	add("r1", "a1", `{"role":"toolResult","toolCallId":"t1","toolName":"ls","content":[{"type":"text","text":"a.go b.go"}]}`, 3000)
	_ = tr.SetBranch(core.MainBranch, "r1", 0)
	out, err := openwebui.Export(tr)
	if err != nil {
		t.Fatal(err)
	}
	var chats []chat
	if err := json.Unmarshal(out, &chats); err != nil || len(chats) != 1 {
		t.Fatalf("%v: %s", err, out)
	}
	h := chats[0].Chat.History
	a1, r1 := h.Messages["a1"], h.Messages["r1"]
	want := "<details type=\"reasoning\" done=\"true\">\n<summary>Thought</summary>\nuse ls\n</details>\n\nListing.\n\n" +
		"<details type=\"tool_calls\" done=\"true\" id=\"t1\" name=\"ls\" arguments=\"{&quot;path&quot;:&quot;.&quot;}\">\n<summary>Tool Executed</summary>\n</details>"
	if h.CurrentID != "r1" || a1["role"] != "assistant" || a1["content"] != want || a1["done"] != true {
		t.Fatalf("assistant %q", a1["content"])
	}
	if r1["role"] != "user" || r1["content"] != "```\na.go b.go\n```" || chats[0].Chat.Messages != nil {
		t.Fatalf("tool result %v, linear copy %v", r1, chats[0].Chat.Messages)
	}
	back, _, err := openwebui.Import(out)
	if err != nil || !same(tr, back) {
		t.Fatalf("import(export(t)) != t: %v\n%s\n%s", err, tr.Marshal(), back.Marshal())
	}
}
