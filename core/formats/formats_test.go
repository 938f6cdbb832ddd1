package formats_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats"
)

// shared is ../shared/testdata beside the repository.
func shared(t testing.TB, rel string) []byte {
	t.Helper()
	if runtime.GOOS == "js" {
		t.Skip("no file system under GOOS=js (wasmbrowsertest)")
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	data, err := os.ReadFile(filepath.Join(root, "..", "shared", "testdata", rel))
	if err != nil {
		t.Fatalf("read %s: %v", rel, err)
	}
	return data
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

func TestChatGPTTreeKeepsForksActiveLeafAndHidesTheNullRoot(t *testing.T) {
	tr, rep := mustImport(t, "auto", shared(t, "chatgpt/chatgpt-tree.json"))
	if rep.Format != "chatgpt" || tr.Len() != 12 || rep.Records != 13 {
		t.Fatalf("format %s, %d nodes, %d records; want chatgpt, 12 (13 minus the null root), 13", rep.Format, tr.Len(), rep.Records)
	}
	if !strings.HasPrefix(tr.Root(), "d38605d2") || len(roots(tr)) != 1 {
		t.Fatalf("root %s (of %d): want the hidden system node d38605d2 under the null root", tr.Root(), len(roots(tr)))
	}
	if !hasPrefixes(kids(t, tr, "bda8a275-886d-4f59-b38c-d7037144f0d5"), "aaa24023", "aaa236a3") {
		t.Fatal("bda8a275 should fork into aaa24023 and aaa236a3")
	}
	if !hasPrefixes(kids(t, tr, "aaa20127-b9e3-44f6-afbe-a2475838625a"), "d0d2a7df", "f63b8e17") {
		t.Fatal("aaa20127 should fork into d0d2a7df and f63b8e17")
	}
	if !strings.HasPrefix(leaf(t, tr, "main"), "f63b8e17") || len(tr.Branches()) != 3 {
		t.Fatalf("main should end at current_node f63b8e17, with 2 more branches for the other leaves: %v", tr.Branches())
	}
	msgs, _ := tr.LinearProjection()
	for _, m := range msgs {
		if m.Role() == "" {
			t.Fatal("a projection holds only real messages")
		}
	}
	n, _ := tr.Node("ada93f81-f59e-4b31-933d-1357efd68bfc")
	if !strings.Contains(string(n.Message), `"interrupted"`) {
		t.Fatal("the interrupted reply keeps its finish_details")
	}
}

func TestChatGPTExportOfTwoConversationsGivesTwoRoots(t *testing.T) {
	tr, _ := mustImport(t, "auto", shared(t, "chatgpt/chatgpt-export.json"))
	if len(roots(tr)) != 2 || tr.Len() != 21 || len(tr.Branches()) != 2 {
		t.Fatalf("%d roots, %d nodes, %d branches; want 2, 21 (17+6 minus 2 null roots), 2", len(roots(tr)), tr.Len(), len(tr.Branches()))
	}
	p, _ := tr.ActivePath()
	if len(p) != 16 {
		t.Fatalf("main path has %d nodes, want 16", len(p))
	}
}

func TestChatGPTFragmentReportsTheMissingParentAndCurrentNode(t *testing.T) {
	tr, rep := mustImport(t, "chatgpt", shared(t, "chatgpt/chatgpt-citations.json"))
	if tr.Len() != 2 || len(rep.Problems) != 2 {
		t.Fatalf("%d nodes, problems %v; want 2 nodes and 2 problems", tr.Len(), rep.Problems)
	}
	if !strings.Contains(rep.Problems[0].Message, "5cc5e87b") || rep.Problems[1].ID != "88a0cf9f-e860-4b34-8e7e-65f8346f4862" {
		t.Fatalf("problems should name the missing parent and the missing current_node: %v", rep.Problems)
	}
}

func TestLibreChatNestedAndFlatKeepEveryRootAndFork(t *testing.T) {
	tr, rep := mustImport(t, "auto", shared(t, "librechat/librechat-tree.json"))
	if rep.Format != "librechat" || tr.Len() != 9 || len(roots(tr)) != 1 {
		t.Fatalf("%s: %d nodes, %d roots; want librechat, 9, 1", rep.Format, tr.Len(), len(roots(tr)))
	}
	forks := 0
	for _, b := range tr.Branches() {
		_ = b
	}
	for _, id := range []string{"4c395510", "6e4c95ca"} {
		for _, r := range allIDs(tr) {
			if strings.HasPrefix(r, id) && len(kids(t, tr, r)) == 2 {
				forks++
			}
		}
	}
	if forks != 2 || len(tr.Branches()) != 3 {
		t.Fatalf("forks %d, branches %d; want 2 and 3", forks, len(tr.Branches()))
	}
	flat, _ := mustImport(t, "auto", shared(t, "librechat/librechat-opts-nonr-branches.json"))
	if flat.Len() != 5 || len(roots(flat)) != 2 || len(flat.Branches()) != 3 {
		t.Fatalf("flat: %d nodes, %d roots, %d branches; want 5, 2, 3", flat.Len(), len(roots(flat)), len(flat.Branches()))
	}
	if !hasPrefixes(kids(t, flat, findID(flat, "115a6247")), "069b9c22", "303e4c2c") && !hasPrefixes(kids(t, flat, findID(flat, "115a6247")), "303e4c2c", "069b9c22") {
		t.Fatal("115a6247 should have 2 children")
	}
	lin, _ := mustImport(t, "auto", shared(t, "librechat/librechat-linear.json"))
	if lin.Len() != 2 || len(roots(lin)) != 1 {
		t.Fatal("linear: 2 nodes, 1 root (parentMessageId null)")
	}
	ex, _ := mustImport(t, "auto", shared(t, "librechat/librechat-export.json"))
	if p, _ := ex.ActivePath(); len(p) != 6 || ex.HasBranches() {
		t.Fatal("export: a linear chain of 6")
	}
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

func TestOpenWebUIThreeChatsAreThreeRoots(t *testing.T) {
	tr, rep := mustImport(t, "auto", shared(t, "openwebui/openwebui-export.json"))
	if rep.Format != "openwebui" || tr.Len() != 6 || len(roots(tr)) != 3 || len(tr.Branches()) != 3 {
		t.Fatalf("%s: %d nodes, %d roots, %d branches; want openwebui, 6, 3, 3", rep.Format, tr.Len(), len(roots(tr)), len(tr.Branches()))
	}
	msgs, _ := tr.LinearProjection()
	if len(msgs) != 2 || msgs[0].Role() != "user" || msgs[1].Role() != "assistant" {
		t.Fatalf("main projects the first chat: %v", msgs)
	}
}

func TestClaudeCodeCompactionIsARootAndTheRewindAFork(t *testing.T) {
	tr, rep := mustImport(t, "auto", shared(t, "claudecode/dag_compact_after_rewind.jsonl"))
	if rep.Format != "claudecode" || tr.Len() != 12 {
		t.Fatalf("%s %d", rep.Format, tr.Len())
	}
	if r := roots(tr); len(r) != 2 || r[0] != "u1" || r[1] != "cb" {
		t.Fatalf("roots %v, want u1 and the compact_boundary cb", r)
	}
	if c := kids(t, tr, "a1"); len(c) != 2 || c[0] != "b1u" || c[1] != "b2u" {
		t.Fatalf("a1 children %v", c)
	}
	p, _ := tr.ActivePath()
	if strings.Join(p, ",") != "cb,cs,p1u,p1a" {
		t.Fatalf("active path %v: what the model saw after compaction", p)
	}
	found := false
	for _, b := range tr.Branches() {
		if b.Leaf == "b2a2" {
			found = true
		}
	}
	if !found {
		t.Fatal("the pre-compaction history ends on a branch of its own")
	}
	pre, _ := mustImport(t, "auto", shared(t, "claudecode/dag_compact_after_rewind_preserved.jsonl"))
	if n, _ := pre.Node("b2a2"); n.Parent != "cs" {
		t.Fatal("b2a2, written after its parent cs, hangs on cs")
	}
}

func TestClaudeCodeSidechainsAndMissingParentsAreReportedRoots(t *testing.T) {
	tr, rep := mustImport(t, "auto", shared(t, "claudecode/sidechain_integrated.jsonl"))
	if tr.Len() != 6 || len(roots(tr)) != 3 || len(rep.Problems) != 2 {
		t.Fatalf("%d nodes, %d roots, problems %v", tr.Len(), len(roots(tr)), rep.Problems)
	}
	if rep.Problems[0].Line != 1 || rep.Problems[1].Line != 5 {
		t.Fatalf("problems on lines 1 and 5: %v", rep.Problems)
	}
	n, _ := tr.Node(leaf(t, tr, "main"))
	if strings.Contains(string(n.Message), `"isSidechain":true`) {
		t.Fatal("main ends at the last main-chain line")
	}
	if !strings.Contains(string(mustNodeJSON(tr)), "â†’") {
		t.Fatal("the mojibake is kept as is")
	}
	ag, _ := mustImport(t, "auto", shared(t, "claudecode/agent-showcol2.jsonl"))
	if p, _ := ag.ActivePath(); len(p) != 4 {
		t.Fatal("the subagent transcript is a linear chain of 4")
	}
}

func mustNodeJSON(tr *core.Tree) []byte { return tr.Marshal() }

func TestCodexRolloutsAreLinearAndTheMalformedLineIsReported(t *testing.T) {
	tr, rep := mustImport(t, "auto", shared(t, "codex/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl"))
	msgs, _ := tr.LinearProjection()
	roles := []string{}
	for _, m := range msgs {
		roles = append(roles, m.Role())
	}
	if rep.Format != "codex" || strings.Join(roles, ",") != "user,assistant,tool,assistant,tool,assistant,tool,assistant" || tr.HasBranches() {
		t.Fatalf("%s roles %v", rep.Format, roles)
	}
	sub, _ := mustImport(t, "auto", shared(t, "codex/rollout-2026-01-03T04-05-10-33333333-3333-4333-8333-333333333333.jsonl"))
	if sub.Len() != 4 {
		t.Fatalf("subagent: %d nodes, want 4 (2 replayed events, the call, 2 events)", sub.Len())
	}
	bad, brep := mustImport(t, "codex", shared(t, "codex/rollout-66666666-6666-4666-8666-666666666666.jsonl"))
	if bad.Len() != 1 || len(brep.Problems) != 1 || brep.Problems[0].Line != 3 {
		t.Fatalf("malformed: %d nodes, problems %v", bad.Len(), brep.Problems)
	}
}

func fixture(t testing.TB, name string) []byte {
	if runtime.GOOS == "js" {
		t.Skip("no file system under GOOS=js (wasmbrowsertest)")
	}
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestTornAndMalformedLinesAreReportedAndTheRestKept(t *testing.T) {
	tr, rep := mustImport(t, "auto", fixture(t, "torn.claudecode.jsonl"))
	var lines []int
	for _, p := range rep.Problems {
		lines = append(lines, p.Line)
	}
	if tr.Len() != 3 || len(lines) != 3 || lines[0] != 3 || lines[1] != 6 || lines[2] != 5 {
		t.Fatalf("%d nodes, problem lines %v; want 3 nodes, problems on 3 (malformed), 6 (torn), 5 (dangling)", tr.Len(), lines)
	}
	if !strings.Contains(rep.Problems[1].Message, "torn") {
		t.Fatal("the last line is reported as torn")
	}
	n, _ := tr.Node("u1")
	if !strings.Contains(string(n.Message), "file-history-snapshot") {
		t.Fatal("a line without uuid is kept with the node before it")
	}
}

func TestPiLabelsSummariesAndFoldedEntries(t *testing.T) {
	tr, _ := mustImport(t, "auto", fixture(t, "labels.pi.jsonl"))
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

func TestCodexRollbackForks(t *testing.T) {
	tr, _ := mustImport(t, "auto", fixture(t, "rollback.codex.jsonl"))
	msgs, _ := tr.LinearProjection()
	if len(msgs) != 3 || !strings.Contains(string(msgs[2]), "replacement") {
		t.Fatalf("after the rollback the replacement follows answer one: %d messages", len(msgs))
	}
	if !tr.HasBranches() {
		t.Fatal("the rolled-back turn stays on a branch")
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
	tr, _ := mustImport(t, "auto", shared(t, "chatgpt/chatgpt-tree.json"))
	md, err := formats.Export(tr, "markdown")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "## Other branches") || !regexp.MustCompile(`branch-1\*\*: \[\d+ turns, unsummarized\]`).Match(md) {
		t.Fatalf("markdown:\n%s", md)
	}
}
