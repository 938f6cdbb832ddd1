package librechat_test

import (
	"encoding/json"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/librechat"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

var clock = regexp.MustCompile(`,"used":\d+`)

func same(a, b *core.Tree) bool {
	return clock.ReplaceAllString(string(a.Marshal()), "") == clock.ReplaceAllString(string(b.Marshal()), "")
}

type file struct {
	ConversationID string           `json:"conversationId"`
	Endpoint       string           `json:"endpoint"`
	Recursive      bool             `json:"recursive"`
	Messages       []map[string]any `json:"messages"`
}

// LibreChat's importer (api/server/utils/import/importers.js at b6e4959)
// takes a JSON object for a LibreChat export only when it has a
// conversationId and messages, and reads its endpoint; fork.js
// (cloneMessagesWithTimestamps, 0b4ce67) maps each parentMessageId to a new id
// as it goes, so a parent must come before its children, and a root's
// parentMessageId is 00000000-0000-0000-0000-000000000000. Reasoning and tool
// calls are the content parts LibreChat's agents write (think, tool_call).
func TestAnExportIsALibreChatExportItsImporterReads(t *testing.T) {
	tr := core.New()
	add := func(id, parent, msg string, at int64) {
		if err := tr.InsertNode(id, parent, core.Message(msg), "", at); err != nil {
			t.Fatal(err)
		}
	}
	add("u1", "", `{"role":"user","content":"list the files"}`, 1000)
	add("a1", "u1", `{"role":"assistant","content":[{"type":"thinking","thinking":"use ls","signature":"s"},{"type":"tool_use","id":"t1","name":"ls","input":{"path":"."}}]}`, 2000)
	add("r1", "a1", `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.go b.go"}]}`, 3000)
	add("u2", "", `{"role":"user","content":"another root"}`, 4000)
	_ = tr.SetBranch(core.MainBranch, "r1", 0)
	_ = tr.SetBranch("other", "u2", 0)
	out, err := librechat.Export(tr)
	if err != nil {
		t.Fatal(err)
	}
	var f file
	if err := json.Unmarshal(out, &f); err != nil {
		t.Fatal(err)
	}
	if f.ConversationID == "" || f.Endpoint == "" || f.Recursive || len(f.Messages) != 4 {
		t.Fatalf("header: %s", out)
	}
	seen := map[string]bool{librechat.NoParent: true}
	for _, m := range f.Messages {
		if m["conversationId"] != f.ConversationID || !seen[m["parentMessageId"].(string)] {
			t.Fatalf("message %v: conversation or parent order", m)
		}
		seen[m["messageId"].(string)] = true
	}
	a1 := f.Messages[1]
	parts, _ := a1["content"].([]any)
	if len(parts) != 2 || parts[0].(map[string]any)["type"] != "think" || parts[1].(map[string]any)["type"] != "tool_call" {
		t.Fatalf("assistant message %v", a1)
	}
	if r1 := f.Messages[2]; r1["sender"] != "ls" || r1["text"] != "a.go b.go" || r1["isCreatedByUser"] != false {
		t.Fatalf("tool result %v", r1)
	}
	back, _, err := librechat.Import(out)
	if err != nil || !same(tr, back) {
		t.Fatalf("import(export(t)) != t: %v\n%s\n%s", err, tr.Marshal(), back.Marshal())
	}
}

// nestedChain is a nested ("recursive") export of n messages, each the only
// child of the one before.
func nestedChain(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"conversationId":"c","recursive":true,"messages":[`)
	for i := 0; i < n; i++ {
		parent := librechat.NoParent
		if i > 0 {
			parent = "m" + strconv.Itoa(i-1)
		}
		b.WriteString(`{"messageId":"m` + strconv.Itoa(i) + `","parentMessageId":"` + parent + `","isCreatedByUser":true,"text":"t","sender":"User","children":[`)
	}
	b.WriteString(strings.Repeat("]}", n) + "]}")
	return []byte(b.String())
}

// A nested export is read in one pass over its nesting. Each level used to
// read its children as a value and each child again, scanning every level
// below once per level above: 4,999 levels took 4 s and 208 MB of
// allocations for a 550 KB file. The deepest rawjson reads (two levels a
// message) is refused saying so, not as "expected one JSON object".
func TestADeeplyNestedExportIsReadInOnePass(t *testing.T) {
	data := nestedChain(rawjson.MaxDepth/2 - 1)
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	tr, rep, err := librechat.Import(data)
	runtime.ReadMemStats(&m1)
	if err != nil {
		t.Fatal(err)
	}
	path, _ := tr.ActivePath()
	if tr.Len() != rawjson.MaxDepth/2-1 || len(path) != tr.Len() || len(rep.Problems) > 0 {
		t.Fatalf("%d nodes, a path of %d, problems %v", tr.Len(), len(path), rep.Problems)
	}
	if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 64*uint64(len(data)) {
		t.Errorf("allocated %d bytes for a %d-byte file: more than 64 times its size", alloc, len(data))
	}

	_, _, err = librechat.Import(nestedChain(rawjson.MaxDepth / 2))
	if err == nil || !strings.Contains(err.Error(), "nested more than") {
		t.Errorf("one level deeper: %v, want an error saying it is nested too deeply", err)
	}
}
