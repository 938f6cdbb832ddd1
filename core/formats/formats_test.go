package formats_test

import (
	"embed"
	"encoding/json"
	"errors"
	"io/fs"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats"
)

// The project's own fixtures, one folder per format under testdata/, written
// for these tests in each tool's shape (no file of ../shared is copied here:
// those are read by the corpus tests, build tag corpus, make test-corpus).
// Embedded, so that the GOOS=js run (no file system) reads them too.
//
//go:embed testdata/chatgpt testdata/openwebui testdata/librechat testdata/claudecode testdata/pi testdata/codex testdata/openai testdata/claudeai testdata/sillytavern testdata/assistant-ui
var fixtures embed.FS

// fixture is the content of testdata/<name>, a fresh copy each call.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := fixtures.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// fixtureNames lists every fixture as "<format>/<file>".
func fixtureNames(t testing.TB) []string {
	t.Helper()
	var out []string
	err := fs.WalkDir(fixtures, "testdata", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, strings.TrimPrefix(p, "testdata/"))
		}
		return err
	})
	if err != nil || len(out) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	return out
}

func mustImport(t testing.TB, format string, data []byte) (*core.Tree, formats.Report) {
	t.Helper()
	tr, rep, err := formats.Import(format, data)
	if err != nil {
		t.Fatalf("Import(%s): %v", format, err)
	}
	if ps := tr.Validate(); len(ps) > 0 {
		t.Fatalf("imported tree has problems: %v", ps)
	}
	return tr, rep
}

func leaf(t testing.TB, tr *core.Tree, branch string) string {
	b, ok := tr.LookupBranch(branch)
	if !ok {
		t.Fatalf("no branch %q", branch)
	}
	return b.Leaf
}

func kids(t testing.TB, tr *core.Tree, id string) []string {
	t.Helper()
	c, err := tr.Children(id)
	if err != nil {
		t.Fatalf("Children(%s): %v", id, err)
	}
	return c
}

func roots(tr *core.Tree) []string {
	if tr.Root() == "" {
		return nil
	}
	r, _, _ := tr.Siblings(tr.Root())
	return r
}

func hasPrefixes(ids []string, prefixes ...string) bool {
	if len(ids) != len(prefixes) {
		return false
	}
	for i := range ids {
		if !strings.HasPrefix(ids[i], prefixes[i]) {
			return false
		}
	}
	return true
}

func allIDs(tr *core.Tree) []string {
	var out []string
	stack := roots(tr)
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		out = append(out, id)
		c, _ := tr.Children(id)
		stack = append(stack, c...)
	}
	return out
}

func findID(tr *core.Tree, prefix string) string {
	for _, id := range allIDs(tr) {
		if strings.HasPrefix(id, prefix) {
			return id
		}
	}
	return ""
}

// shape is what a fixture imports to today: the one place that states the
// counts, so a change of import behaviour changes one row. path is the active
// branch's node ids joined by "," (for formats whose ids are generated, the
// roles instead: roles); problems are the report's line numbers or ids.
type shape struct {
	file, format                    string
	nodes, records, roots, branches int
	path, roles                     string
	problems                        string
}

var shapes = []shape{
	{"chatgpt/forks.json", "chatgpt", 12, 13, 1, 3,
		"c0f0ee01-0000-4000-8000-000000000001,c0f0ee02-0000-4000-8000-000000000002,c0f0ee03-0000-4000-8000-000000000003,c0f0ee20-0000-4000-8000-000000000020,c0f0ee21-0000-4000-8000-000000000021,c0f0ee22-0000-4000-8000-000000000022,c0f0ee24-0000-4000-8000-000000000024",
		"system,user,assistant,user,assistant,user,assistant", ""},
	{"chatgpt/two-conversations.json", "chatgpt", 11, 13, 2, 2, "",
		"system,user,assistant,tool,tool,assistant,user,assistant", ""},
	{"chatgpt/fragment.json", "chatgpt", 2, 2, 1, 1, "f0f0ee01-0000-4000-8000-000000000001,f0f0ee02-0000-4000-8000-000000000002",
		"user,assistant", "f0f0ee01-0000-4000-8000-000000000001,f0f0ee04-0000-4000-8000-00000000dead"},
	{"openwebui/three-chats.json", "openwebui", 6, 6, 3, 3, "th1,th2", "user,assistant", ""},
	{"openwebui/regenerated.json", "openwebui", 3, 3, 1, 2, "hk1,hk3", "user,assistant", ""},
	{"librechat/nested-tree.json", "librechat", 9, 9, 1, 3,
		"1a000001-0000-4000-8000-000000000000,1a000002-0000-4000-8000-000000000000,1a000008-0000-4000-8000-000000000000,1a000009-0000-4000-8000-000000000000",
		"user,assistant,user,assistant", ""},
	{"librechat/flat-branches.json", "librechat", 5, 5, 2, 3,
		"2a000004-0000-4000-8000-000000000000,2a000005-0000-4000-8000-000000000000", "user,assistant", ""},
	{"librechat/linear.json", "librechat", 2, 2, 1, 1,
		"3a000001-0000-4000-8000-000000000000,3a000002-0000-4000-8000-000000000000", "user,assistant", ""},
	{"claudecode/compact-after-rewind.jsonl", "claudecode", 12, 12, 2, 3, "cb,cs,p1u,p1a", "system,user,user,assistant", ""},
	{"claudecode/compact-preserved.jsonl", "claudecode", 12, 12, 2, 3, "cb,cs,b2a2,p1u,p1a", "system,user,assistant,user,assistant", ""},
	{"claudecode/sidechain.jsonl", "claudecode", 6, 6, 3, 3, "m1,m2,m3", "assistant,user,assistant", "1,5"},
	{"claudecode/agent.jsonl", "claudecode", 4, 4, 1, 1, "ag-u1,ag-a1,ag-r1,ag-a2", "user,assistant,user,assistant", ""},
	{"claudecode/torn.jsonl", "claudecode", 3, 6, 2, 2, "u2", "user", "3,6,5"},
	{"pi/labels.jsonl", "pi", 5, 8, 1, 2, "e1,e3,e6,e7", "", ""},
	{"pi/tools-compaction.jsonl", "pi", 6, 8, 1, 1, "m1,m2,m3,m4,c1,m5", "", ""},
	{"codex/rollout.jsonl", "codex", 8, 14, 1, 1, "", "user,assistant,tool,assistant,tool,assistant,tool,assistant", ""},
	{"codex/subagent.jsonl", "codex", 4, 5, 1, 1, "", "user,assistant,user,assistant", ""},
	{"codex/malformed.jsonl", "codex", 1, 3, 1, 1, "", "user", "3"},
	{"codex/rollback.jsonl", "codex", 5, 7, 1, 2, "", "user,assistant,user", ""},
	{"openai/tool-calls.json", "openai", 5, 5, 1, 1, "", "system,user,assistant,tool,assistant", ""},
	{"openai/messages-object.json", "openai", 3, 3, 1, 1, "", "developer,user,assistant", ""},
	{"claudeai/retries.json", "claudeai", 7, 8, 3, 4,
		"c1a00001-0000-4000-8000-000000000001,c1a00002-0000-4000-8000-000000000002,c1a00004-0000-4000-8000-000000000004",
		"user,assistant,user", "c1b00003-0000-4000-8000-000000000003"},
	{"sillytavern/swipes.jsonl", "sillytavern", 7, 5, 2, 4, "m2.1,m3,m4.2,m5", "assistant,user,assistant,user", ""},
	{"assistant-ui/edits.json", "assistant-ui", 5, 5, 1, 2, "u1,a2,u2,a3", "user,assistant,user,assistant", ""},
}

// Every fixture is detected as its format and imports to a valid tree of the
// shape above, with a problem for each record it could not read as written.
func TestEveryFixtureImportsToItsShape(t *testing.T) {
	known := map[string]bool{}
	for _, s := range shapes {
		known[s.file] = true
		t.Run(s.file, func(t *testing.T) {
			tr, rep := mustImport(t, "auto", fixture(t, s.file))
			if rep.Format != s.format || !strings.HasPrefix(s.file, s.format+"/") {
				t.Fatalf("detected as %q, want %q", rep.Format, s.format)
			}
			if tr.Len() != s.nodes || rep.Records != s.records || rep.Nodes != s.nodes || len(roots(tr)) != s.roots || len(tr.Branches()) != s.branches {
				t.Fatalf("%d nodes (report %d), %d records, %d roots, %d branches; want %d, %d, %d, %d",
					tr.Len(), rep.Nodes, rep.Records, len(roots(tr)), len(tr.Branches()), s.nodes, s.records, s.roots, s.branches)
			}
			p, err := tr.ActivePath()
			if err != nil || (s.path != "" && strings.Join(p, ",") != s.path) {
				t.Fatalf("active path %v (%v), want %s", p, err, s.path)
			}
			msgs, err := tr.LinearProjection()
			if err != nil || len(msgs) != len(p) {
				t.Fatalf("projection of %d messages for a path of %d: %v", len(msgs), len(p), err)
			}
			var roles []string
			for _, m := range msgs {
				if m.Role() == "" {
					t.Fatal("a projection holds only real messages")
				}
				roles = append(roles, m.Role())
			}
			if s.roles != "" && strings.Join(roles, ",") != s.roles {
				t.Fatalf("roles %v, want %s", roles, s.roles)
			}
			var ps []string
			for _, pr := range rep.Problems {
				if pr.Line > 0 {
					ps = append(ps, strconv.Itoa(pr.Line))
				} else {
					ps = append(ps, pr.ID)
				}
			}
			if strings.Join(ps, ",") != s.problems {
				t.Fatalf("problems %v, want at %s", rep.Problems, s.problems)
			}
		})
	}
	for _, f := range fixtureNames(t) {
		if !known[f] {
			t.Errorf("testdata/%s has no row in shapes", f)
		}
	}
}

func TestChatGPTForksKeepTheActiveLeafAndHideTheNullRoot(t *testing.T) {
	tr, _ := mustImport(t, "auto", fixture(t, "chatgpt/forks.json"))
	if tr.Root() != "c0f0ee01-0000-4000-8000-000000000001" {
		t.Fatalf("root %s: want the hidden system node under the null root", tr.Root())
	}
	if !hasPrefixes(kids(t, tr, "c0f0ee03-0000-4000-8000-000000000003"), "c0f0ee10", "c0f0ee20") {
		t.Fatal("the first answer forks into two user turns (an edit)")
	}
	if !hasPrefixes(kids(t, tr, "c0f0ee22-0000-4000-8000-000000000022"), "c0f0ee23", "c0f0ee24") {
		t.Fatal("the last question forks into two answers (a regeneration)")
	}
	if leaf(t, tr, "main") != "c0f0ee24-0000-4000-8000-000000000024" {
		t.Fatal("main ends at current_node")
	}
	n, _ := tr.Node("c0f0ee13-0000-4000-8000-000000000013")
	if !strings.Contains(string(n.Message), `"interrupted"`) {
		t.Fatal("the interrupted reply keeps its finish_details")
	}
}

func TestChatGPTTwoConversationsAreTwoRootsAndTheBrowsingTurnsTools(t *testing.T) {
	tr, _ := mustImport(t, "auto", fixture(t, "chatgpt/two-conversations.json"))
	if r := roots(tr); !hasPrefixes(r, "b0b0ee01", "b1b1ee01") {
		t.Fatalf("roots %v: the hidden system node of each conversation", r)
	}
	if leaf(t, tr, "b1b1ee99-0000-4000-8000-000000000099") != "b1b1ee03-0000-4000-8000-000000000003" {
		t.Fatal("the second conversation is a branch named after its id")
	}
	msgs, _ := tr.LinearProjection()
	if !strings.Contains(string(msgs[3]), `"tether_browsing_display"`) || !strings.Contains(string(msgs[5]), `"citations"`) {
		t.Fatal("the browsing result and the citations are kept in the messages")
	}
}

func TestChatGPTFragmentReportsTheMissingParentAndCurrentNode(t *testing.T) {
	_, rep := mustImport(t, "chatgpt", fixture(t, "chatgpt/fragment.json"))
	if !strings.Contains(rep.Problems[0].Message, "f0f0ee00-0000-4000-8000-00000000dead") || rep.Problems[1].ID != "f0f0ee04-0000-4000-8000-00000000dead" {
		t.Fatalf("problems should name the missing parent and the missing current_node: %v", rep.Problems)
	}
}

func TestLibreChatNestedAndFlatKeepEveryRootAndFork(t *testing.T) {
	tr, _ := mustImport(t, "auto", fixture(t, "librechat/nested-tree.json"))
	for _, fork := range []string{"1a000002-0000-4000-8000-000000000000", "1a000003-0000-4000-8000-000000000000"} {
		if len(kids(t, tr, fork)) != 2 {
			t.Fatalf("%s should have 2 children", fork)
		}
	}
	if n, _ := tr.Node("1a000001-0000-4000-8000-000000000000"); n.Parent != "" {
		t.Fatal("the root's 00000000-… parent is no node")
	}
	flat, _ := mustImport(t, "auto", fixture(t, "librechat/flat-branches.json"))
	if !hasPrefixes(kids(t, flat, "2a000001-0000-4000-8000-000000000000"), "2a000002", "2a000003") {
		t.Fatal("2a000001 should have 2 children")
	}
	if r := roots(flat); !hasPrefixes(r, "2a000001", "2a000004") {
		t.Fatalf("roots %v: both messages under 00000000-…", r)
	}
	if n, _ := flat.Node("2a000003-0000-4000-8000-000000000000"); !strings.Contains(string(n.Message), `"unfinished":true`) {
		t.Fatal("the unfinished reply keeps its flag")
	}
}

func TestOpenWebUIChatsAreRootsAndARegeneratedReplyAFork(t *testing.T) {
	tr, _ := mustImport(t, "auto", fixture(t, "openwebui/three-chats.json"))
	if !hasPrefixes(roots(tr), "th1", "tc1", "pc1") || leaf(t, tr, "tool-chat") != "tc2" || leaf(t, tr, "plain-chat") != "pc2" {
		t.Fatalf("one root per chat, the others' currentId on branches named after their ids: %v", tr.Branches())
	}
	n, _ := tr.Node("tc2")
	if !strings.Contains(string(n.Message), `"function_call_output"`) {
		t.Fatal("the tool call's output[] items are kept")
	}
	re, _ := mustImport(t, "auto", fixture(t, "openwebui/regenerated.json"))
	if c := kids(t, re, "hk1"); len(c) != 2 || leaf(t, re, "main") != "hk3" {
		t.Fatalf("hk1 forks into two replies and main ends at currentId: %v", c)
	}
}

func TestClaudeCodeCompactionIsARootAndTheRewindAFork(t *testing.T) {
	tr, _ := mustImport(t, "auto", fixture(t, "claudecode/compact-after-rewind.jsonl"))
	if r := roots(tr); len(r) != 2 || r[0] != "u1" || r[1] != "cb" {
		t.Fatalf("roots %v, want u1 and the compact_boundary cb", r)
	}
	if c := kids(t, tr, "a1"); len(c) != 2 || c[0] != "b1u" || c[1] != "b2u" {
		t.Fatalf("a1 children %v", c)
	}
	found := false
	for _, b := range tr.Branches() {
		found = found || b.Leaf == "b2a2"
	}
	if !found {
		t.Fatal("the pre-compaction history ends on a branch of its own")
	}
	if n, _ := tr.Node("cb"); !strings.Contains(string(n.Message), `"logicalParentUuid":"b2a2"`) {
		t.Fatal("the boundary keeps its logicalParentUuid")
	}
	pre, _ := mustImport(t, "auto", fixture(t, "claudecode/compact-preserved.jsonl"))
	if n, _ := pre.Node("b2a2"); n.Parent != "cs" {
		t.Fatal("b2a2, written after its parent cs, hangs on cs")
	}
}

func TestClaudeCodeSidechainsAndMissingParentsAreReportedRoots(t *testing.T) {
	tr, _ := mustImport(t, "auto", fixture(t, "claudecode/sidechain.jsonl"))
	n, _ := tr.Node(leaf(t, tr, "main"))
	if strings.Contains(string(n.Message), `"isSidechain":true`) {
		t.Fatal("main ends at the last main-chain line")
	}
	if s, _ := tr.Node("s3"); !strings.Contains(string(s.Message), "â†’") {
		t.Fatal("the mojibake is kept as is")
	}
	if c := kids(t, tr, "s1"); len(c) != 1 || c[0] != "s2" {
		t.Fatal("the sidechain's lines hang together, apart from the main chain")
	}
}

func TestTornAndMalformedLinesAreReportedAndTheRestKept(t *testing.T) {
	tr, rep := mustImport(t, "auto", fixture(t, "claudecode/torn.jsonl"))
	if !strings.Contains(rep.Problems[1].Message, "torn") {
		t.Fatal("the last line is reported as torn")
	}
	n, _ := tr.Node("u1")
	if !strings.Contains(string(n.Message), "file-history-snapshot") {
		t.Fatal("a line without uuid is kept with the node before it")
	}
}

func TestPiLabelsSummariesAndFoldedEntries(t *testing.T) {
	tr, _ := mustImport(t, "auto", fixture(t, "pi/labels.jsonl"))
	if n, _ := tr.Node("e1"); n.Label != "start" {
		t.Fatal("the label entry labels e1")
	}
	if n, _ := tr.Node("e6"); n.Parent != "e3" {
		t.Fatalf("e6 hangs on e3 through the folded model change and label: parent %q", n.Parent)
	}
	var sum string
	for _, b := range tr.Branches() {
		if b.Leaf == "e2" && b.Summary != nil {
			sum = b.Summary.Summary
		}
	}
	if sum != "tried the first answer" {
		t.Fatal("the branch_summary summarizes the branch ending at fromId")
	}
	if leaf(t, tr, "main") != "e7" {
		t.Fatal("main ends at the last entry")
	}
}

func TestPiToolCallsAndCompactionStayOnThePath(t *testing.T) {
	tr, _ := mustImport(t, "auto", fixture(t, "pi/tools-compaction.jsonl"))
	n, _ := tr.Node("m1")
	if n.Parent != "" || !strings.Contains(string(n.Message), `"model_change"`) {
		t.Fatal("the model change before the first message is kept, and m1 is the root")
	}
	if m, _ := tr.Node("m2"); !strings.Contains(string(m.Message), `"toolCall"`) {
		t.Fatal("the tool call is kept in the assistant message")
	}
	if c, _ := tr.Node("c1"); !strings.Contains(string(c.Message), "go.mod and main.go") {
		t.Fatal("the compaction's summary is a message on the path")
	}
}

func TestCodexRolloutToolCallsAndSubagentReplay(t *testing.T) {
	tr, _ := mustImport(t, "auto", fixture(t, "codex/rollout.jsonl"))
	if tr.HasBranches() {
		t.Fatal("a rollout is linear")
	}
	msgs, _ := tr.LinearProjection()
	if !strings.Contains(string(msgs[len(msgs)-1]), "some_future_record") {
		t.Fatal("the unknown record is kept with the node before it")
	}
	if !strings.Contains(string(msgs[0]), "encrypted_content") {
		t.Fatal("the reasoning is kept with the node before it")
	}
	if !strings.Contains(string(msgs[1]), `"call_grep"`) || !strings.Contains(string(msgs[2]), `"tool_call_id":"call_grep"`) {
		t.Fatal("the call and its output are a tool-call turn and a tool message")
	}
	sub, _ := mustImport(t, "auto", fixture(t, "codex/subagent.jsonl"))
	if m, _ := sub.LinearProjection(); !strings.Contains(string(m[0]), `"thread_spawn"`) {
		t.Fatal("the subagent's session_meta (its parent thread) is kept before its first node")
	}
}

func TestCodexRollbackForks(t *testing.T) {
	tr, _ := mustImport(t, "auto", fixture(t, "codex/rollback.jsonl"))
	msgs, _ := tr.LinearProjection()
	if len(msgs) != 3 || !strings.Contains(string(msgs[2]), "replacement") {
		t.Fatalf("after the rollback the replacement follows answer one: %d messages", len(msgs))
	}
	if !tr.HasBranches() {
		t.Fatal("the rolled-back turn stays on a branch")
	}
}

func TestOpenAIMessagesKeepTheirToolCalls(t *testing.T) {
	tr, _ := mustImport(t, "auto", fixture(t, "openai/tool-calls.json"))
	msgs, _ := tr.LinearProjection()
	if !strings.Contains(string(msgs[2]), `"tool_calls"`) || !strings.Contains(string(msgs[3]), `"tool_call_id":"call_w1"`) {
		t.Fatal("the call and its result are kept whole")
	}
	obj, _ := mustImport(t, "auto", fixture(t, "openai/messages-object.json"))
	if m, _ := obj.LinearProjection(); m[1].Text() != "Name a blue flower." {
		t.Fatalf("the content parts' text: %q", m[1].Text())
	}
}

func TestDetectTellsFormatsApartAndUnknownFails(t *testing.T) {
	if got := formats.Detect([]byte(`[{"role":"user","content":"hi"}]`)); got != "openai" {
		t.Fatalf("openai: %q", got)
	}
	_, _, err := formats.Import("auto", []byte(`{"nothing":1}`))
	var e *core.Error
	if !errors.As(err, &e) || e.Code != core.CodeInvalidInput {
		t.Fatalf("want invalid_input, got %v", err)
	}
	if _, _, err := formats.Import("markdown", []byte("# x")); err == nil {
		t.Fatal("markdown has no import")
	}
}

func TestMarkdownHasTheActiveBranchAndTheOtherSummaries(t *testing.T) {
	tr, _ := mustImport(t, "auto", fixture(t, "chatgpt/forks.json"))
	md, err := formats.Export(tr, "markdown")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "## Other branches") || !regexp.MustCompile(`branch-1\*\*: \[\d+ turns, unsummarized\]`).Match(md) {
		t.Fatalf("markdown:\n%s", md)
	}
}

// A claude.ai conversations.json is a tree per conversation: an edit of the
// first message is another root of the same conversation (both under the root
// parent), a retry a sibling, main ends at current_leaf_message_uuid (not the
// newest leaf), an older conversation without parent fields is a chain in
// file order, an attachment's extracted text reaches the model before the
// message's own blocks, and an entry that is no message is reported and
// written back on export.
func TestClaudeAIKeepsEditsRetriesTheCurrentLeafAndOldExports(t *testing.T) {
	tr, _ := mustImport(t, "auto", fixture(t, "claudeai/retries.json"))
	r := roots(tr)
	if !hasPrefixes(r, "c1a00001", "c1a00005", "c1b00001") && !hasPrefixes(r, "c1b00001", "c1a00001", "c1a00005") {
		t.Fatalf("roots %v: the first message, its edit, the old conversation's first", r)
	}
	if !hasPrefixes(kids(t, tr, "c1a00001-0000-4000-8000-000000000001"), "c1a00002", "c1a00003") {
		t.Fatal("the first question has the answer and its retry")
	}
	if n, _ := tr.Node("c1b00002-0000-4000-8000-000000000002"); n.Parent != "c1b00001-0000-4000-8000-000000000001" {
		t.Fatal("an old export's message follows the one before it")
	}
	msgs, _ := tr.LinearProjection()
	if !strings.Contains(string(msgs[0]), `"<attachment name=\"schedule.txt\">\nbake at 18:00, levain at 10:00\n</attachment>"},{"start_timestamp"`) {
		t.Fatalf("the attachment's text comes first: %s", msgs[0])
	}
	if !strings.Contains(string(msgs[1]), `{"type":"thinking","thinking":"Levain peaks`) {
		t.Fatalf("the content blocks are the message's: %s", msgs[1])
	}
	out, err := formats.Export(tr, formats.ClaudeAI)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `{"uuid":"c1b00003-0000-4000-8000-000000000003","text":"no sender"}`) ||
		!strings.Contains(string(out), `"current_leaf_message_uuid":"c1a00004-0000-4000-8000-000000000004"`) {
		t.Fatalf("export: %s", out)
	}
	convs, err := formats.ImportAll(fixture(t, "claudeai/retries.json"), formats.Auto)
	if err != nil || len(convs) != 2 || convs[0].Title != "Sourdough timing" || convs[1].Title != "Old export" || convs[0].Tree.Len() != 5 || convs[1].Tree.Len() != 2 {
		t.Fatalf("ImportAll: %v %+v", err, convs)
	}
}

// Without current_leaf_message_uuid main ends at the newest leaf, as
// claude.ai shows the last reply; a current leaf that names no message is
// reported and the newest leaf taken.
func TestClaudeAIMainIsTheNewestLeafWhenNoneIsNamed(t *testing.T) {
	for _, cur := range []string{``, `,"current_leaf_message_uuid":"gone"`} {
		file := `[{"uuid":"c","name":"n","created_at":"2025-01-01T00:00:00Z","chat_messages":[` +
			`{"uuid":"q","sender":"human","text":"hi","created_at":"2025-01-01T00:00:00Z","parent_message_uuid":"00000000-0000-4000-8000-000000000000"},` +
			`{"uuid":"late","sender":"assistant","text":"b","created_at":"2025-01-01T00:00:09Z","parent_message_uuid":"q"},` +
			`{"uuid":"early","sender":"assistant","text":"a","created_at":"2025-01-01T00:00:05Z","parent_message_uuid":"q"}]` + cur + `}]`
		tr, rep := mustImport(t, "auto", []byte(file))
		if leaf(t, tr, "main") != "late" || (cur != "" && (len(rep.Problems) != 1 || rep.Problems[0].ID != "gone")) {
			t.Fatalf("%s: main at %s, problems %v", cur, leaf(t, tr, "main"), rep.Problems)
		}
	}
}

// A SillyTavern chat's swipes are siblings: swipe_id is the active one, whose
// reply the chat goes on from, and every other swipe is a branch of its own;
// each keeps its own text and time (its swipe_info's send_date), the active
// one its whole line; an export writes the same lines back.
func TestSillyTavernSwipesAreSiblingBranches(t *testing.T) {
	file := fixture(t, "sillytavern/swipes.jsonl")
	tr, _ := mustImport(t, "auto", file)
	if r := roots(tr); len(r) != 2 || !hasPrefixes(kids(t, tr, "m3"), "m4.0", "m4.1", "m4.2") {
		t.Fatalf("roots %v, m3's children %v", r, kids(t, tr, "m3"))
	}
	cold, _ := tr.Node("m4.1")
	if !strings.Contains(string(cold.Message), `"content":"Cold rain on the roof"`) || cold.CreatedAtMs != 1727485400000 {
		t.Fatalf("the second swipe: %s at %d", cold.Message, cold.CreatedAtMs)
	}
	leaves := map[string]bool{}
	for _, b := range tr.Branches() {
		leaves[b.Leaf] = true
	}
	if !leaves["m2.0"] || !leaves["m4.0"] || !leaves["m4.1"] || leaf(t, tr, "main") != "m5" {
		t.Fatalf("branches %v", tr.Branches())
	}
	out, err := formats.Export(tr, formats.SillyTavern)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSpace(string(file)), "\n")
	got := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(got) != len(want) || !strings.HasPrefix(got[0], `{"user_name":"Ana","character_name":"Quill","create_date":"2024-9-28@01h02m36s","chat_metadata":{`) {
		t.Fatalf("export:\n%s", out)
	}
	for i := 1; i < len(want); i++ {
		var a, b any
		_ = json.Unmarshal([]byte(want[i]), &a)
		_ = json.Unmarshal([]byte(got[i]), &b)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("line %d:\n%s\n%s", i+1, want[i], got[i])
		}
	}
}

// A .tree.json whose top-level keys were reordered (jq -S sorts them, and so
// does encoding/json for a map) is told by its "format", not only by the
// prefix sessiontree writes: it was "cannot tell the format of the input".
func TestDetectTellsATreeFileWhoseKeysWereSorted(t *testing.T) {
	tr := core.New()
	if _, err := tr.Append(core.Message(`{"role":"user","content":"hi"}`), 1); err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(tr.Marshal(), &top); err != nil {
		t.Fatal(err)
	}
	sorted, _ := json.Marshal(top)
	if strings.HasPrefix(string(sorted), `{"format"`) {
		t.Fatalf("not reordered: %s", sorted)
	}
	if f := formats.Detect(sorted); f != formats.SessionTree {
		t.Fatalf("detected %q", f)
	}
	got, _, err := formats.Import(formats.Auto, sorted)
	if err != nil || string(got.Marshal()) != string(tr.Marshal()) {
		t.Fatalf("%v: %s", err, got.Marshal())
	}
	// Another format's object with a "format" of its own is not taken for one.
	if f := formats.Detect([]byte(`{"format":"other","messages":[{"role":"user","content":"hi"}]}`)); f == formats.SessionTree {
		t.Fatal("a format of another name detected as sessiontree")
	}
}
