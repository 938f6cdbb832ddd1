package core

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Tests named after the behavioural sentences of the seed and of SPEC §3.

func TestNewIsEmptyWithOneLeaflessActiveMainBranch(t *testing.T) {
	tr := New()
	if tr.Root() != "" || tr.Len() != 0 {
		t.Fatalf("root %q, %d nodes", tr.Root(), tr.Len())
	}
	bs := tr.Branches()
	if len(bs) != 1 || bs[0].Name != MainBranch || bs[0].Leaf != "" || tr.ActiveBranch() != MainBranch {
		t.Fatalf("branches %+v active %q", bs, tr.ActiveBranch())
	}
	msgs, err := tr.LinearProjection()
	if err != nil || len(msgs) != 0 {
		t.Fatalf("projection of a new tree: %v %v", msgs, err)
	}
}

func TestFromLinearProjectsByteForByteTheMessages(t *testing.T) {
	in := []Message{
		Message(`{"role":"system","content":"be brief","x-unknown":[1.50,1e3,"é😀"]}`),
		Message(`{"role":"user","content":[{"type":"text","text":"hi"}],"name":"bob"}`),
		Message(`{"content":"yo","role":"assistant","tool_calls":[{"id":"c1","function":{"name":"f","arguments":"{}"}}]}`),
	}
	tr, err := FromLinear(in, 42)
	if err != nil {
		t.Fatal(err)
	}
	out, err := tr.LinearProjection()
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(in) {
		t.Fatalf("got %d messages", len(out))
	}
	for i := range in {
		if string(out[i]) != string(in[i]) {
			t.Errorf("message %d: got %s want %s", i, out[i], in[i])
		}
	}
	for _, id := range mustPath(t, tr, MainBranch) {
		if n, _ := tr.Node(id); n.CreatedAtMs != 42 {
			t.Errorf("node %s stamped %d, want 42", id, n.CreatedAtMs)
		}
	}
	if tr.HasBranches() {
		t.Error("a linear tree has no branches")
	}
}

func TestFromLinearOfZeroMessagesIsNew(t *testing.T) {
	tr, err := FromLinear(nil, 5)
	if err != nil || tr.Len() != 0 || len(tr.Branches()) != 1 {
		t.Fatalf("%v %d", err, tr.Len())
	}
}

func TestFromLinearRejectsAMessageWithoutRole(t *testing.T) {
	_, err := FromLinear([]Message{Message(`{"content":"x"}`)}, 1)
	wantCode(t, err, CodeInvalidInput)
}

func TestAppendChainsToTheActiveLeafAndSetsRootOnlyOnce(t *testing.T) {
	tr, ids := chain(t, "a", "b", "c")
	if tr.Root() != ids[0] {
		t.Fatalf("root %q want %q", tr.Root(), ids[0])
	}
	n, _ := tr.Node(ids[2])
	if n.Parent != ids[1] {
		t.Fatalf("parent %q want %q", n.Parent, ids[1])
	}
	b, _ := tr.LookupBranch(MainBranch)
	if b.Leaf != ids[2] {
		t.Fatalf("leaf %q", b.Leaf)
	}
}

func TestAppendRejectsAMessageThatIsNotAnObjectWithAStringRole(t *testing.T) {
	tr := New()
	for _, bad := range []string{`[]`, `"x"`, `{"role":1}`, `{"content":"x"}`, `{"role":"u"`, ``, `{"role":"\ud800"}`, "{\"role\":\"\xff\"}",
		// The role first, as JSON.stringify writes it: still every check.
		`{"role":"u","role":"v"}`, `{"role":"u","x":1,"x":2}`, `{"role":"u"}x`, `{"role":"u",}`, `{"role":"u\x"}`} {
		_, err := tr.Append(Message(bad), 1)
		wantCode(t, err, CodeInvalidInput)
	}
	if tr.Len() != 0 {
		t.Fatal("a rejected append added a node")
	}
}

func TestAppendTakesAStringRoleWhereverItIs(t *testing.T) {
	tr := New()
	for good, stored := range map[string]string{
		`{"role":"user","content":"x"}`:   `{"role":"user","content":"x"}`,
		`{"content":"x","role":"user"}`:   `{"content":"x","role":"user"}`,
		`{"r\u006fle":"user"}`:            `{"r\u006fle":"user"}`,
		` { "role" : "user" , "a" : 1 } `: `{"role":"user","a":1}`,
		`{"role":""}`:                     `{"role":""}`,
	} {
		id, err := tr.Append(Message(good), 1)
		if err != nil {
			t.Fatalf("Append(%s): %v", good, err)
		}
		if n, _ := tr.Node(id); string(n.Message) != stored {
			t.Errorf("Append(%s) stored %s, want %s", good, n.Message, stored)
		}
	}
}

func TestRewindIsLosslessTheOldLeafIsKeptUnderAFreshBranch(t *testing.T) {
	tr, ids := chain(t, "a", "b", "c")
	name, err := tr.Rewind(ids[0], 10)
	if err != nil || name != "branch-1" {
		t.Fatalf("Rewind: %q %v", name, err)
	}
	if got := mustPath(t, tr, "branch-1"); !slices.Equal(got, ids) {
		t.Fatalf("preserved path %v want %v", got, ids)
	}
	if got := mustPath(t, tr, MainBranch); !slices.Equal(got, ids[:1]) {
		t.Fatalf("main path %v", got)
	}
	if tr.Len() != 3 {
		t.Fatal("rewind deleted a node")
	}
}

func TestRewindThenAppendForksASiblingAtTheRewindPoint(t *testing.T) {
	tr, ids := chain(t, "a", "b")
	if _, err := tr.Rewind(ids[0], 3); err != nil {
		t.Fatal(err)
	}
	c := mustAppend(t, tr, msg("assistant", "b2"), 4)
	kids, _ := tr.Children(ids[0])
	if !slices.Equal(kids, []string{ids[1], c}) {
		t.Fatalf("children %v", kids)
	}
}

func TestRewindToTheCurrentLeafOrOnALeaflessBranchIsANoOp(t *testing.T) {
	tr, ids := chain(t, "a")
	if name, err := tr.Rewind(ids[0], 2); err != nil || name != "" {
		t.Fatalf("rewind to leaf: %q %v", name, err)
	}
	if err := tr.SetBranch("empty", "", 3); err != nil {
		t.Fatal(err)
	}
	tr.SwitchBranch("empty")
	if name, err := tr.Rewind(ids[0], 4); err != nil || name != "" {
		t.Fatalf("rewind on a leafless branch: %q %v", name, err)
	}
	if b, _ := tr.LookupBranch("empty"); b.Leaf != "" || len(tr.Branches()) != 2 {
		t.Fatalf("a no-op rewind changed branches: %+v", tr.Branches())
	}
}

func TestRewindToAnUnknownNodeIsAnErrorNotANoOp(t *testing.T) {
	tr, _ := chain(t, "a")
	_, err := tr.Rewind("nope", 1)
	wantCode(t, err, CodeNotFound)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("error should be ErrNotFound naming the id: %v", err)
	}
}

func TestFreshNamesAreTheSmallestFreeBranchN(t *testing.T) {
	tr, ids := chain(t, "a", "b", "c")
	n1, _ := tr.Rewind(ids[1], 1) // branch-1 keeps c
	n2, _ := tr.Rewind(ids[0], 2) // branch-2 keeps b
	if n1 != "branch-1" || n2 != "branch-2" {
		t.Fatalf("%s %s", n1, n2)
	}
	if err := tr.DeleteBranch("branch-1"); err != nil {
		t.Fatal(err)
	}
	// A deleted name stays taken (its tombstone): it never comes back by itself.
	if name, _ := tr.Branch(ids[2], "", 3); name != "branch-3" {
		t.Fatalf("fresh name after delete: %s", name)
	}
	if name, _ := tr.Branch(ids[2], "", 4); name != "branch-4" {
		t.Fatalf("next fresh name: %s", name)
	}
	// Names that merely look like fresh names do not confuse the allocator.
	for _, odd := range []string{"branch-04", "branch-", "branch-x", "branch-99999999999999999999999"} {
		if _, err := tr.Branch(ids[0], odd, 5); err != nil {
			t.Fatal(err)
		}
	}
	if name, _ := tr.Branch(ids[2], "", 6); name != "branch-5" {
		t.Fatalf("fresh name: %s", name)
	}
}

func TestBranchForksAtANodeAndSwitchesToIt(t *testing.T) {
	tr, ids := chain(t, "a", "b")
	name, err := tr.Branch(ids[0], "idea", 3)
	if err != nil || name != "idea" || tr.ActiveBranch() != "idea" {
		t.Fatalf("%q %v active %q", name, err, tr.ActiveBranch())
	}
	id := mustAppend(t, tr, msg("assistant", "alt"), 4)
	if got := mustPath(t, tr, "idea"); !slices.Equal(got, []string{ids[0], id}) {
		t.Fatalf("idea path %v", got)
	}
	if got := mustPath(t, tr, MainBranch); !slices.Equal(got, ids) {
		t.Fatalf("main moved: %v", got)
	}
}

func TestBranchWithATakenExplicitNameFailsWithBranchExists(t *testing.T) {
	tr, ids := chain(t, "a")
	_, err := tr.Branch(ids[0], MainBranch, 1)
	wantCode(t, err, CodeBranchExists)
	_, err = tr.Branch("missing", "x", 1)
	wantCode(t, err, CodeNotFound)
	_, err = tr.Branch(ids[0], "bad\nname", 1)
	wantCode(t, err, CodeInvalidInput)
}

func TestAnyLegalStringIsABranchName(t *testing.T) {
	tr, ids := chain(t, "a")
	for _, name := range []string{"__proto__", "constructor", "toString", "🌳 ветка", "a/b", strings.Repeat("x", 256)} {
		if _, err := tr.Branch(ids[0], name, 1); err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		if err := tr.SwitchBranch(name); err != nil || tr.ActiveBranch() != name {
			t.Fatalf("switch %q: %v", name, err)
		}
	}
	_, err := tr.Branch(ids[0], strings.Repeat("x", 257), 1)
	wantCode(t, err, CodeInvalidInput)
	_, err = tr.Branch(ids[0], "\x00", 1)
	wantCode(t, err, CodeInvalidInput)
}

func TestSwitchBranchToAnUnknownNameFailsWithNoFallback(t *testing.T) {
	tr, _ := chain(t, "a")
	err := tr.SwitchBranch("nope")
	wantCode(t, err, CodeBranchNotFound)
	if tr.ActiveBranch() != MainBranch {
		t.Fatal("active branch changed")
	}
}

func TestLabelPersistsOnTheNodeAndClearLabelRemovesIt(t *testing.T) {
	tr, ids := chain(t, "a")
	if err := tr.Label(ids[0], "start"); err != nil {
		t.Fatal(err)
	}
	back, err := Unmarshal(tr.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := back.Node(ids[0]); n.Label != "start" {
		t.Fatalf("label after round trip %q", n.Label)
	}
	if err := tr.ClearLabel(ids[0]); err != nil {
		t.Fatal(err)
	}
	if n, _ := tr.Node(ids[0]); n.Label != "" {
		t.Fatal("label not cleared")
	}
	wantCode(t, tr.Label(ids[0], ""), CodeInvalidInput)
	wantCode(t, tr.Label("nope", "x"), CodeNotFound)
	wantCode(t, tr.ClearLabel("nope"), CodeNotFound)
}

func TestLinearProjectionOfAnyNamedBranch(t *testing.T) {
	tr, ids := chain(t, "a", "b")
	tr.Rewind(ids[0], 3)
	mustAppend(t, tr, msg("assistant", "b2"), 4)
	main, _ := tr.LinearProjectionOf(MainBranch)
	old, _ := tr.LinearProjectionOf("branch-1")
	if got := contents(t, main); !slices.Equal(got, []string{"a", "b2"}) {
		t.Fatalf("main %v", got)
	}
	if got := contents(t, old); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("branch-1 %v", got)
	}
	_, err := tr.LinearProjectionOf("nope")
	wantCode(t, err, CodeBranchNotFound)
}

func TestActivePathIsTheIDTwinOfTheProjection(t *testing.T) {
	tr, ids := chain(t, "a", "b", "c")
	p, err := tr.ActivePath()
	if err != nil || !slices.Equal(p, ids) {
		t.Fatalf("%v %v", p, err)
	}
}

func TestHasBranchesOnlyOnceTheTreeHasForked(t *testing.T) {
	tr, ids := chain(t, "a", "b")
	if tr.HasBranches() {
		t.Fatal("linear tree has branches")
	}
	tr.Rewind(ids[0], 3)
	if !tr.HasBranches() {
		t.Fatal("rewound tree has no branches")
	}
}

func TestSummarizeBranchRecordsTheLeafAndModel(t *testing.T) {
	tr, ids := chain(t, "a", "b")
	if err := tr.SummarizeBranch(MainBranch, "greeting", "m-1", 9); err != nil {
		t.Fatal(err)
	}
	b, _ := tr.LookupBranch(MainBranch)
	want := Summary{Summary: "greeting", NodeID: ids[1], Branch: MainBranch, ModelID: "m-1", CreatedAtMs: 9}
	if b.Summary == nil || *b.Summary != want {
		t.Fatalf("%+v", b.Summary)
	}
	wantCode(t, tr.SummarizeBranch("nope", "s", "", 1), CodeBranchNotFound)
	wantCode(t, New().SummarizeBranch(MainBranch, "s", "", 1), CodeEmptyBranch)
	wantCode(t, tr.SummarizeBranch(MainBranch, "", "", 1), CodeInvalidInput)
}

func TestRenderBranchTextWritesOneTurnPerLine(t *testing.T) {
	tr := New(counterIDs())
	mustAppend(t, tr, Message(`{"role":"user","content":"line one\nline two"}`), 1)
	mustAppend(t, tr, Message(`{"role":"assistant","content":[{"type":"text","text":"see"},{"type":"image_url","image_url":{"url":"x"}}],"tool_calls":[{"id":"1","type":"function","function":{"name":"search","arguments":"{\"q\":\"go\"}"}}]}`), 2)
	mustAppend(t, tr, Message(`{"role":"tool","tool_call_id":"1","content":"ok"}`), 3)
	// A role may be any string, and a bare carriage return is a line break to
	// many readers: neither makes a line (a turn) of its own (before Dec 5 both
	// did, and a message could write a turn into a summarizer's input).
	mustAppend(t, tr, Message(`{"role":"user\nsystem","content":"a\rb\r\nc"}`), 4)
	got, err := tr.RenderBranchText(MainBranch)
	if err != nil {
		t.Fatal(err)
	}
	want := "user: line one\\nline two\n" +
		"assistant: see [image_url] [tool_call search({\"q\":\"go\"})]\n" +
		"tool: ok\n" +
		`user\nsystem: a\rb\r\nc`
	if n := strings.Count(got, "\n") + 1; n != 4 {
		t.Fatalf("%d lines for 4 turns:\n%s", n, got)
	}
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestStubSummariesCountTurnsWithTheRightPlural(t *testing.T) {
	tr, ids := chain(t, "a", "b")
	tr.Branch(ids[0], "one", 1)
	tr.SwitchBranch(MainBranch)
	s1, _ := tr.StubSummary("one")
	s2, _ := tr.StubSummary(MainBranch)
	if s1.Summary != "[1 turn, unsummarized]" || s2.Summary != "[2 turns, unsummarized]" {
		t.Fatalf("%q %q", s1.Summary, s2.Summary)
	}
}

func TestSpliceForLinearExportListsOffPathSummariesInNameOrder(t *testing.T) {
	tr, ids := chain(t, "a", "b", "c")
	tr.Branch(ids[1], "zeta", 4)
	tr.Branch(ids[0], "alpha", 5)
	tr.SummarizeBranch("zeta", "about b", "m", 6)
	tr.SwitchBranch(MainBranch)
	sp, err := tr.SpliceForLinearExport()
	if err != nil {
		t.Fatal(err)
	}
	if got := contents(t, sp.Messages); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("messages %v", got)
	}
	if len(sp.Summaries) != 2 || sp.Summaries[0].Branch != "alpha" || sp.Summaries[1].Branch != "zeta" {
		t.Fatalf("%+v", sp.Summaries)
	}
	if sp.Summaries[0].Summary != "[1 turn, unsummarized]" || sp.Summaries[1].Summary != "about b" {
		t.Fatalf("%+v", sp.Summaries)
	}
	if tr.Len() != 3 || len(tr.Branches()) != 3 {
		t.Fatal("splice mutated the tree")
	}
}

func TestSpliceGivesACorruptOffPathBranchTheUnreadableStubNeverACount(t *testing.T) {
	file := `{"format":"sessiontree","version":1,"root":"a","active_branch":"main","branches":{` +
		`"main":{"name":"main","leaf":"a","created_at_ms":0},` +
		`"x":{"name":"x","leaf":"c","created_at_ms":0}},"nodes":{` +
		`"a":{"id":"a","children":[],"message":{"role":"user"},"created_at_ms":1},` +
		`"c":{"id":"c","parent":"gone","children":[],"message":{"role":"user"},"created_at_ms":1}}}`
	tr, err := Unmarshal([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	sp, err := tr.SpliceForLinearExport()
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.Summaries) != 1 || sp.Summaries[0].Summary != "[unsummarized: unreadable branch]" {
		t.Fatalf("%+v", sp.Summaries)
	}
	// The active branch, in contrast, fails closed.
	tr.SwitchBranch("x")
	_, err = tr.SpliceForLinearExport()
	wantCode(t, err, CodeCorrupt)
}

// A model's reasoning is not what it said: an AI SDK (or assistant-ui)
// reasoning part renders as its type, as an Anthropic thinking block does,
// in a summarizer's input and in what Search finds. Before Dec 5 its "text"
// was read as the reply's, so a summary retold the model's private reasoning
// as the conversation, and a search found words the chat never showed.
func TestRenderBranchTextLeavesReasoningOut(t *testing.T) {
	tr := New(counterIDs())
	mustAppend(t, tr, Message(`{"role":"user","parts":[{"type":"text","text":"hi"}]}`), 1)
	mustAppend(t, tr, Message(`{"role":"assistant","parts":[{"type":"step-start"},{"type":"reasoning","text":"secret plan"},{"type":"text","text":"hello"}]}`), 2)
	mustAppend(t, tr, Message(`{"role":"assistant","content":[{"type":"reasoning","text":"more secrets"},{"type":"thinking","thinking":"and more"},{"type":"text","text":"bye"}]}`), 3)
	got, err := tr.RenderBranchText(MainBranch)
	if err != nil {
		t.Fatal(err)
	}
	want := "user: hi\nassistant: [step-start] [reasoning] hello\nassistant: [reasoning] [thinking] bye"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if hits := tr.Search("secret", 0); len(hits) > 0 {
		t.Fatalf("search found reasoning: %+v", hits)
	}
}

// Open WebUI writes an assistant's reasoning and tool calls into its content
// string, as <details type="reasoning"> and <details type="tool_calls">
// blocks (core/chat reads them as parts): a summarizer's input, a search and
// a tree view's preview show them as "[reasoning]" and "[tool_calls]", not
// the thinking as the reply's words. A user's text, a block of another type and one not closed
// yet stay as they are.
func TestRenderBranchTextLeavesOpenWebUIsReasoningOut(t *testing.T) {
	tr := New(counterIDs())
	user := `<details type="reasoning">mine</details> as I typed it`
	mustAppend(t, tr, Message(`{"role":"user","content":`+strconv.Quote(user)+`}`), 1)
	reply := "<details type=\"reasoning\" done=\"true\" duration=\"3\">\n<summary>Thought for 3 seconds</summary>\n&gt; a secret plan\n</details>\n" +
		"Let me look.\n<details type=\"tool_calls\" done=\"true\" id=\"c1\" name=\"get_weather\" arguments=\"&quot;{}&quot;\" result=\"&quot;sunny&quot;\">\n<summary>Tool Executed</summary>\n</details>\nIt is sunny."
	mustAppend(t, tr, Message(`{"role":"assistant","content":`+strconv.Quote(reply)+`}`), 2)
	mustAppend(t, tr, Message(`{"role":"assistant","content":"<details type=\"code_interpreter\">x</details> then <details type=\"reasoning\">y</details>"}`), 3)
	mustAppend(t, tr, Message(`{"role":"assistant","content":"ok <details type=\"reasoning\">still thinking"}`), 4)
	got, err := tr.RenderBranchText(MainBranch)
	if err != nil {
		t.Fatal(err)
	}
	want := "user: " + user + "\n" +
		"assistant: [reasoning] Let me look. [tool_calls] It is sunny.\n" +
		`assistant: <details type="code_interpreter">x</details> then <details type="reasoning">y</details>` + "\n" +
		`assistant: ok <details type="reasoning">still thinking`
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if hits := tr.Search("secret", 0); len(hits) > 0 {
		t.Fatalf("search found reasoning: %+v", hits)
	}
	if hits := tr.Search("sunny", 0); len(hits) != 1 {
		t.Fatalf("search for the reply's words: %+v", hits)
	}
}

// SPEC §3: fresh names are "branch-N" with the smallest N ≥ 1 not taken. A
// branch the user named "branch-01" or "branch-1x" takes no number: the
// next fresh name is still "branch-1".
func TestFreshNamesAreTheSmallestBranchNNotTakenByThatExactName(t *testing.T) {
	tr, ids := chain(t, "q", "a")
	for _, name := range []string{"branch-01", "branch-1x", "branch-", "branch--1"} {
		if _, err := tr.Branch(ids[1], name, 5); err != nil {
			t.Fatal(err)
		}
	}
	tr.SwitchBranch(MainBranch)
	if kept, err := tr.Rewind(ids[0], 6); err != nil || kept != "branch-1" {
		t.Fatalf("rewind kept the old leaf as %q (%v), want branch-1", kept, err)
	}
}

// SPEC §2: a branch name has no control characters, DEL (U+007F) and the C1
// controls included.
func TestABranchNameWithAControlCharacterIsInvalidInput(t *testing.T) {
	tr, ids := chain(t, "q")
	for _, name := range []string{"a\x7fb", "a\u0085b", "a\tb", "\x00"} {
		_, err := tr.Branch(ids[0], name, 2)
		wantCode(t, err, CodeInvalidInput)
	}
	if len(tr.Branches()) != 1 {
		t.Fatalf("branches %+v", tr.Branches())
	}
}

// SPEC §3: a stub never makes up a count. An off-path branch with no
// messages (a loaded file may hold one) is "[0 turns, unsummarized]",
// not one turn.
func TestSpliceGivesALeaflessOffPathBranchZeroTurns(t *testing.T) {
	file := `{"format":"sessiontree","version":1,"root":"a","active_branch":"main","branches":{` +
		`"empty":{"name":"empty","created_at_ms":0},` +
		`"main":{"name":"main","leaf":"a","created_at_ms":0}},"nodes":{` +
		`"a":{"id":"a","children":[],"message":{"role":"user"},"created_at_ms":1}}}`
	tr, err := Unmarshal([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	sp, err := tr.SpliceForLinearExport()
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.Summaries) != 1 || sp.Summaries[0].Summary != "[0 turns, unsummarized]" || sp.Summaries[0].NodeID != "" {
		t.Fatalf("%+v", sp.Summaries)
	}
}

// SPEC §3 (no corrupt tree is made worse): an append to a branch whose leaf
// is not a node fails closed and adds nothing, rather than a node whose
// parent dangles.
func TestAppendToABranchWhoseLeafIsNotANodeFailsClosed(t *testing.T) {
	file := `{"format":"sessiontree","version":1,"root":"a","active_branch":"main","branches":{` +
		`"main":{"name":"main","leaf":"gone","created_at_ms":0}},"nodes":{` +
		`"a":{"id":"a","children":[],"message":{"role":"user"},"created_at_ms":1}}}`
	tr, err := Unmarshal([]byte(file), counterIDs())
	if err != nil {
		t.Fatal(err)
	}
	_, err = tr.Append(msg("user", "more"), 2)
	wantCode(t, err, CodeCorrupt)
	if !strings.Contains(err.Error(), `"gone"`) || tr.Len() != 1 {
		t.Fatalf("%v; %d nodes", err, tr.Len())
	}
}

// A label may be 4096 bytes long, not one more (CodeTooLarge, as its
// message says).
func TestALabelOfTheLimitIsKeptAndOneByteMoreIsTooLarge(t *testing.T) {
	tr, ids := chain(t, "q")
	if err := tr.Label(ids[0], strings.Repeat("x", 4096)); err != nil {
		t.Fatal(err)
	}
	wantCode(t, tr.Label(ids[0], strings.Repeat("x", 4097)), CodeTooLarge)
	if n, _ := tr.Node(ids[0]); len(n.Label) != 4096 {
		t.Fatalf("label of %d bytes", len(n.Label))
	}
}

// SPEC §3 (summaries never point at a node that does not exist): summarizing
// a branch whose leaf is not a node fails closed and records nothing.
func TestSummarizeABranchWhoseLeafIsNotANodeFailsClosed(t *testing.T) {
	file := `{"format":"sessiontree","version":1,"root":"a","active_branch":"main","branches":{` +
		`"main":{"name":"main","leaf":"a","created_at_ms":0},` +
		`"x":{"name":"x","leaf":"gone","created_at_ms":0}},"nodes":{` +
		`"a":{"id":"a","children":[],"message":{"role":"user"},"created_at_ms":1}}}`
	tr, err := Unmarshal([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, tr.SummarizeBranch("x", "s", "", 2), CodeCorrupt)
	if b, _ := tr.LookupBranch("x"); b.Summary != nil {
		t.Fatalf("recorded %+v", b.Summary)
	}
}

// Node returns a read-only view: changing the children it returns changes
// nothing in the tree.
func TestNodeReturnsACopyOfTheChildren(t *testing.T) {
	tr, ids := chain(t, "q", "a")
	n, _ := tr.Node(ids[0])
	n.Children[0] = "changed"
	if again, _ := tr.Node(ids[0]); again.Children[0] != ids[1] {
		t.Fatalf("children %v", again.Children)
	}
}

// SPEC §3: FromLinear stamps the tree with atMs and no other time: main's
// move is atMs too, so the file records no move of its own.
func TestFromLinearRecordsNoTimeButItsOwn(t *testing.T) {
	tr, err := FromLinear([]Message{msg("user", "a"), msg("assistant", "b"), msg("user", "c")}, 1000, counterIDs())
	if err != nil {
		t.Fatal(err)
	}
	if s := string(tr.Marshal()); strings.Contains(s, "moved_at_ms") || strings.Contains(s, "1001") || strings.Contains(s, "1002") {
		t.Fatalf("a time other than 1000: %s", s)
	}
}

// Edit (and Regenerate) of a node whose parent is not a node fails closed and
// adds nothing: its sibling would have a dangling parent too.
func TestEditOfANodeWhoseParentIsNotANodeFailsClosed(t *testing.T) {
	file := `{"format":"sessiontree","version":1,"root":"a","active_branch":"main","branches":{` +
		`"main":{"name":"main","leaf":"a","created_at_ms":0},` +
		`"x":{"name":"x","leaf":"c","created_at_ms":0}},"nodes":{` +
		`"a":{"id":"a","children":[],"message":{"role":"user"},"created_at_ms":1},` +
		`"c":{"id":"c","parent":"gone","children":[],"message":{"role":"user"},"created_at_ms":1}}}`
	tr, err := Unmarshal([]byte(file), counterIDs())
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []func(string, Message, int64) (string, error){tr.Edit, tr.Regenerate} {
		_, err := op("c", msg("user", "again"), 2)
		wantCode(t, err, CodeCorrupt)
	}
	if tr.Len() != 2 || len(tr.Branches()) != 2 || tr.ActiveBranch() != MainBranch {
		t.Fatalf("%d nodes, branches %+v, active %q", tr.Len(), tr.Branches(), tr.ActiveBranch())
	}
}
