package formats_test

import (
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats"
)

// chain is the path of a tree from leaf up, as "id<-parent<-…" with each
// node's text, so a test reads which message a copy's node hangs on.
func chain(tr *core.Tree, leaf string) string {
	var out []string
	for id := leaf; id != ""; {
		n, ok := tr.Node(id)
		if !ok {
			break
		}
		out = append(out, n.Message.Text())
		id = n.Parent
	}
	return strings.Join(out, "<-")
}

// A file of several conversations may hold copies that share their message
// ids: Open WebUI's "Clone", a ChatGPT conversation branched into a new one,
// a claude.ai conversation exported twice. Each copy's parent ids name its
// own messages; they named the first conversation's, so the copy was grafted
// onto the original and its own first messages were left childless.
func TestCopiedConversationsKeepTheirOwnParents(t *testing.T) {
	// The copy lists a child before its parent, as a mapping may.
	owi := func(id, cur string, extra string) string {
		return `{"id":"` + id + `","title":"Maths","chat":{"title":"Maths","history":{"currentId":"` + cur + `","messages":{` + extra +
			`"u1":{"id":"u1","parentId":null,"childrenIds":["a1"],"role":"user","content":"What is 2+2?","timestamp":1700000000},` +
			`"a1":{"id":"a1","parentId":"u1","childrenIds":[],"role":"assistant","content":"4","timestamp":1700000001}}}}}`
	}
	gpt := func(id, cur, extra string) string {
		m := func(id, parent, role, text string, at string) string {
			return `"` + id + `":{"id":"` + id + `","parent":"` + parent + `","children":[],"message":{"id":"` + id + `","author":{"role":"` + role + `"},"create_time":` + at + `,"content":{"content_type":"text","parts":["` + text + `"]}}}`
		}
		more := ""
		if extra != "" {
			more = m("a2", "u2", "assistant", "6", "1700000051") + "," + m("u2", "a1", "user", "And 3+3?", "1700000050") + ","
		}
		return `{"id":"` + id + `","title":"Maths","current_node":"` + cur + `","mapping":{` + more +
			`"root":{"id":"root","message":null,"parent":null,"children":["u1"]},` +
			m("u1", "root", "user", "What is 2+2?", "1700000000") + "," + m("a1", "u1", "assistant", "4", "1700000001") + `}}`
	}
	claude := func(id, cur string, extra bool) string {
		m := func(id, parent, sender, text, at string) string {
			return `{"uuid":"` + id + `","text":"` + text + `","content":[{"type":"text","text":"` + text + `"}],"sender":"` + sender + `","created_at":"2025-03-01T08:00:0` + at + `.000000Z","parent_message_uuid":"` + parent + `"}`
		}
		msgs := m("u1", "00000000-0000-4000-8000-000000000000", "human", "What is 2+2?", "0") + "," + m("a1", "u1", "assistant", "4", "1")
		if extra {
			msgs += "," + m("u2", "a1", "human", "And 3+3?", "2") + "," + m("a2", "u2", "assistant", "6", "3")
		}
		return `{"uuid":"` + id + `","name":"Maths","chat_messages":[` + msgs + `],"current_leaf_message_uuid":"` + cur + `"}`
	}
	owiMore := `"a2":{"id":"a2","parentId":"u2","childrenIds":[],"role":"assistant","content":"6","timestamp":1700000051},` +
		`"u2":{"id":"u2","parentId":"a1","childrenIds":["a2"],"role":"user","content":"And 3+3?","timestamp":1700000050},`
	for _, c := range []struct {
		format, file, copyName string
	}{
		{"openwebui", "[" + owi("chat-A", "a1", "") + "," + owi("chat-B", "a2", owiMore) + "]", "chat-B"},
		{"chatgpt", "[" + gpt("c-A", "a1", "") + "," + gpt("c-B", "a2", "more") + "]", "c-B"},
		{"claudeai", "[" + claude("k-A", "a1", false) + "," + claude("k-B", "a2", true) + "]", "k-B"},
	} {
		tr, rep, err := formats.Import(c.format, []byte(c.file))
		if err != nil {
			t.Fatal(c.format, err)
		}
		main, _ := tr.LookupBranch(core.MainBranch)
		cp, ok := tr.LookupBranch(c.copyName)
		if !ok {
			t.Errorf("%s: no branch %q: %v", c.format, c.copyName, tr.Branches())
			continue
		}
		if got := chain(tr, main.Leaf); got != "4<-What is 2+2?" {
			t.Errorf("%s: main is %s", c.format, got)
		}
		if got := chain(tr, cp.Leaf); got != "6<-And 3+3?<-4<-What is 2+2?" {
			t.Errorf("%s: the copy is %s", c.format, got)
		}
		a1, _ := tr.Node(main.Leaf)
		if len(a1.Children) != 0 {
			t.Errorf("%s: the copy's messages hang on the original's: %v", c.format, a1.Children)
		}
		if roots, _, _ := tr.Siblings(tr.Root()); len(roots) != 2 {
			t.Errorf("%s: %d roots, want 2", c.format, len(roots))
		}
		if len(tr.Branches()) != 2 {
			t.Errorf("%s: branches %v, want main and the copy's", c.format, tr.Branches())
		}
		if len(rep.Problems) != 2 { // the two renamed ids
			t.Errorf("%s: problems %v", c.format, rep.Problems)
		}
	}
}

// Detect reads a list's first element, not every one: it copied each element
// of a spaced conversations.json without its spaces (and validated by a
// compacted copy), twice the file allocated before a conversation was read.
func TestDetectOfASpacedListCopiesAtMostItsFirstElement(t *testing.T) {
	conv := `{"id": "c", "title": "T", "mapping": {"m": {"id": "m", "message": null, "parent": null, "children": []}}}`
	doc := []byte("[\n  " + strings.Repeat(conv+",\n  ", 3000) + conv + "\n]")
	var got string
	if n := testing.AllocsPerRun(5, func() { got = formats.Detect(doc) }); n > 3 || got != formats.ChatGPT {
		t.Fatalf("Detect of a %d KB spaced list: %q, %.0f allocations (a copy of its first element at most)", len(doc)>>10, got, n)
	}
}
