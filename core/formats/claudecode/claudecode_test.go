package claudecode_test

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/claudecode"
	"github.com/sessiontree/sessiontree/core/formats/internal/formattest"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

func line(typ, uuid, parent, extra string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	side := `,"isSidechain":false`
	if strings.Contains(extra, `"isSidechain"`) {
		side = ""
	}
	return `{"type":"` + typ + `","uuid":"` + uuid + `","parentUuid":` + p + side + `,"userType":"external","cwd":"/w","sessionId":"s","version":"2.1.0","timestamp":"2025-01-01T00:00:0` + uuid[len(uuid)-1:] + `.000Z"` + extra + "}\n"
}

var used = regexp.MustCompile(`,"used":\d+|,"moved_at_ms":\d+`)

// same compares trees by their .tree.json, without the branches' "used"
// clock, which no import sets.
func same(a, b *core.Tree) bool {
	return used.ReplaceAllString(string(a.Marshal()), "") == used.ReplaceAllString(string(b.Marshal()), "")
}

func user(uuid, parent, text string) string {
	return line("user", uuid, parent, `,"message":{"role":"user","content":"`+text+`"}`)
}

func assistant(uuid, parent, msgID, text string) string {
	return line("assistant", uuid, parent, `,"message":{"id":"`+msgID+`","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"`+text+`"}],"stop_reason":null,"stop_sequence":null}`)
}

func roots(t *core.Tree) []string {
	if t.Root() == "" {
		return nil
	}
	r, _, _ := t.Siblings(t.Root())
	return r
}

func TestImport(t *testing.T) {
	cases := []formattest.Case{
		{"a torn last line is reported with its number and the rest kept",
			user("u1", "", "hi") + assistant("a2", "u1", "m1", "yo") + `{"type":"user","uuid":"u3","parentUuid":"a2","mess`,
			func(t *testing.T, tr *core.Tree, rep, _ string) {
				if tr.Len() != 2 || !strings.Contains(rep, "line 3: torn last line") {
					t.Fatalf("%d nodes, problems %s", tr.Len(), rep)
				}
			}},
		{"a malformed line in the middle is reported and the lines after it kept",
			user("u1", "", "hi") + "not json\n" + assistant("a2", "u1", "m1", "yo"),
			func(t *testing.T, tr *core.Tree, rep, _ string) {
				if tr.Len() != 2 || !strings.Contains(rep, "line 2: malformed line") {
					t.Fatalf("%d nodes, problems %s", tr.Len(), rep)
				}
			}},
		{"a dangling parent is reported with line and id and the node kept as a root",
			user("u1", "", "hi") + user("u2", "gone", "orphan"),
			func(t *testing.T, tr *core.Tree, rep, _ string) {
				if tr.Len() != 2 || len(roots(tr)) != 2 || !strings.Contains(rep, `line 2 (u2): parent "gone" is not in the file`) {
					t.Fatalf("%d nodes, roots %v, problems %s", tr.Len(), roots(tr), rep)
				}
			}},
		{"several roots stay several roots",
			user("u1", "", "one") + user("u2", "", "two"),
			func(t *testing.T, tr *core.Tree, rep, _ string) {
				if len(roots(tr)) != 2 || rep != "" {
					t.Fatalf("roots %v, problems %s", roots(tr), rep)
				}
			}},
		{"a compact_boundary is a root and main continues after it",
			user("u1", "", "old") + assistant("a2", "u1", "m1", "old answer") +
				line("system", "c3", "", `,"subtype":"compact_boundary","content":"Conversation compacted","logicalParentUuid":"a2"`) +
				user("s4", "c3", "summary of before") + user("u5", "s4", "new"),
			func(t *testing.T, tr *core.Tree, _ string, notes string) {
				path, _ := tr.ActivePath()
				if len(roots(tr)) != 2 || strings.Join(path, ",") != "c3,s4,u5" || !strings.Contains(notes, "compact_boundary") {
					t.Fatalf("roots %v, active path %v, notes %s", roots(tr), path, notes)
				}
				n, _ := tr.Node("c3")
				if n.Message.Role() != "system" || !bytes.Contains(n.Message, []byte(`"logicalParentUuid":"a2"`)) {
					t.Fatalf("boundary message %s", n.Message)
				}
				if len(tr.Branches()) != 2 {
					t.Fatalf("the pre-compaction history has no branch: %v", tr.Branches())
				}
			}},
		{"sidechain lines are nodes and main ends at the last non-sidechain line",
			user("u1", "", "task") + line("user", "s2", "", `,"isSidechain":true,"message":{"role":"user","content":"sub"}`) +
				line("assistant", "s3", "s2", `,"isSidechain":true,"message":{"role":"assistant","content":"sub done"}`) + assistant("a4", "u1", "m1", "done") +
				line("assistant", "s5", "s3", `,"isSidechain":true,"message":{"role":"assistant","content":"late"}`),
			func(t *testing.T, tr *core.Tree, _ string, _ string) {
				b, _ := tr.LookupBranch(core.MainBranch)
				if tr.Len() != 5 || len(roots(tr)) != 2 || b.Leaf != "a4" {
					t.Fatalf("%d nodes, roots %v, main at %s", tr.Len(), roots(tr), b.Leaf)
				}
			}},
		{"assistant lines sharing message.id stay one node each, in their chain",
			user("u1", "", "q") + assistant("a2", "u1", "m1", "part one") + assistant("a3", "a2", "m1", "part two"),
			func(t *testing.T, tr *core.Tree, _ string, notes string) {
				path, _ := tr.ActivePath()
				if strings.Join(path, ",") != "u1,a2,a3" {
					t.Fatalf("path %v, notes %s", path, notes)
				}
			}},
		{"lines without uuid are kept with the node before them",
			user("u1", "", "q") + `{"type":"file-history-snapshot","messageId":"x","snapshot":{}}` + "\n",
			func(t *testing.T, tr *core.Tree, _ string, notes string) {
				n, _ := tr.Node("u1")
				if tr.Len() != 1 || !bytes.Contains(n.Message, []byte(`"claudecode_after":[{"type":"file-history-snapshot"`)) {
					t.Fatalf("%d nodes, message %s", tr.Len(), n.Message)
				}
			}},
		{"a message without a string role is reported and kept with the node before it",
			user("u1", "", "q") + line("user", "u2", "u1", `,"message":{"content":"no role"}`),
			func(t *testing.T, tr *core.Tree, rep string, _ string) {
				n, _ := tr.Node("u1")
				if tr.Len() != 1 || !strings.Contains(rep, "line 2 (u2)") || !bytes.Contains(n.Message, []byte(`no role`)) {
					t.Fatalf("%d nodes, problems %s, message %s", tr.Len(), rep, n.Message)
				}
			}},
		{"spaced JSON lines read like compact ones",
			`{"type": "user", "uuid": "u1", "parentUuid": null, "message": {"role": "user", "content": "hi"}}` + "\n",
			func(t *testing.T, tr *core.Tree, _ string, _ string) {
				n, _ := tr.Node("u1")
				if string(n.Message) != `{"role":"user","content":"hi","claudecode":{"type":"user","uuid":"u1","parentUuid":null,"message":0}}` {
					t.Fatalf("message %s", n.Message)
				}
			}},
	}
	formattest.RunImports(t, claudecode.Import, cases)
}

func progress(uuid, parent string) string {
	return line("progress", uuid, parent, `,"data":{"type":"hook_progress"},"toolUseID":"x"`)
}

func toolUse(uuid, parent, msgID, callID string) string {
	return line("assistant", uuid, parent, `,"message":{"id":"`+msgID+`","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"`+callID+`","name":"Read","input":{}}],"stop_reason":null,"stop_sequence":null}`)
}

func toolResult(uuid, parent, callID string) string {
	return line("user", uuid, parent, `,"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"`+callID+`","content":"ok"}]}`)
}

// The structure the import gives: progress and other non-turn lines off the
// path, parallel tool calls as one sequence.
func TestLinking(t *testing.T) {
	cases := []formattest.Case{
		{"a turn whose parent is a progress line hangs on the progress line's nearest turn",
			user("u1", "", "q") + progress("p2", "u1") + progress("p3", "p2") + assistant("a4", "p3", "m1", "yo"),
			func(t *testing.T, tr *core.Tree, _, notes string) {
				path, _ := tr.ActivePath()
				n, _ := tr.Node("u1")
				if strings.Join(path, ",") != "u1,a4" || tr.Len() != 2 || !bytes.Contains(n.Message, []byte(`"claudecode_after":[{"type":"progress"`)) || !strings.Contains(notes, "2 lines with a uuid that are not turns") {
					t.Fatalf("path %v, %d nodes, notes %s, message %s", path, tr.Len(), notes, n.Message)
				}
			}},
		{"a progress chain that starts the file leaves its first turn a root",
			progress("p1", "") + progress("p2", "p1") + user("u3", "p2", "q"),
			func(t *testing.T, tr *core.Tree, problems, _ string) {
				if tr.Root() != "u3" || problems != "" {
					t.Fatalf("root %s, problems %s", tr.Root(), problems)
				}
			}},
		{"a turn whose parent is in a cycle of progress lines is a root",
			progress("p1", "p2") + progress("p2", "p1") + user("u3", "p1", "q"),
			func(t *testing.T, tr *core.Tree, _, _ string) {
				if tr.Root() != "u3" || tr.Len() != 1 {
					t.Fatalf("root %s, %d nodes", tr.Root(), tr.Len())
				}
			}},
		{"system lines without text (hook summaries, turn durations) are not turns",
			user("u1", "", "q") + line("system", "s2", "u1", `,"subtype":"turn_duration","durationMs":5`) + assistant("a3", "s2", "m1", "yo"),
			func(t *testing.T, tr *core.Tree, _, _ string) {
				path, _ := tr.ActivePath()
				if strings.Join(path, ",") != "u1,a3" {
					t.Fatalf("path %v", path)
				}
			}},
		{"parallel tool calls become the message's lines, then each result, then what follows",
			user("u1", "", "q") + toolUse("a2", "u1", "m1", "c1") + progress("p3", "a2") + toolUse("a4", "p3", "m1", "c2") +
				toolResult("r5", "a2", "c1") + toolResult("r6", "a4", "c2") + assistant("a7", "r6", "m2", "done"),
			func(t *testing.T, tr *core.Tree, _, notes string) {
				path, _ := tr.ActivePath()
				if strings.Join(path, ",") != "u1,a2,a4,r5,r6,a7" || len(tr.Branches()) != 1 || !strings.Contains(notes, "2 lines placed in their assistant message's one sequence") {
					t.Fatalf("path %v, branches %v, notes %s", path, tr.Branches(), notes)
				}
			}},
		{"a line hanging off any line of the sequence continues after its last",
			user("u1", "", "q") + toolUse("a2", "u1", "m1", "c1") + toolUse("a3", "a2", "m1", "c2") +
				toolResult("r4", "a3", "c2") + toolResult("r5", "a2", "c1") + user("u6", "r4", "next"),
			func(t *testing.T, tr *core.Tree, _, _ string) {
				path, _ := tr.ActivePath()
				if strings.Join(path, ",") != "u1,a2,a3,r4,r5,u6" {
					t.Fatalf("path %v", path)
				}
			}},
		{"a tool result the file makes a root follows its tool use",
			user("u1", "", "q") + toolUse("a2", "", "m1", "c1") + toolResult("r3", "", "c1"),
			func(t *testing.T, tr *core.Tree, _, _ string) {
				n, _ := tr.Node("r3")
				if n.Parent != "a2" || len(roots(tr)) != 2 {
					t.Fatalf("r3 under %q, roots %v", n.Parent, roots(tr))
				}
			}},
		{"a transcript with no parentUuid at all is read in file order",
			`{"type":"user","uuid":"u1","message":{"role":"user","content":"q"}}` + "\n" + `{"type":"assistant","uuid":"a2","message":{"role":"assistant","content":"yo"}}` + "\n",
			func(t *testing.T, tr *core.Tree, _, _ string) {
				path, _ := tr.ActivePath()
				if strings.Join(path, ",") != "u1,a2" {
					t.Fatalf("path %v", path)
				}
			}},
	}
	formattest.RunImports(t, claudecode.Import, cases)
}

// Export writes every line back as it was (uuid and parentUuid included), so
// a re-import rebuilds the same sequence; a line placed elsewhere than the
// link phase would place it carries its parent.
func TestExportKeepsEveryLineAndTheSequence(t *testing.T) {
	in := user("u1", "", "q") + toolUse("a2", "u1", "m1", "c1") + progress("p3", "a2") + toolUse("a4", "p3", "m1", "c2") +
		toolResult("r5", "a2", "c1") + toolResult("r6", "a4", "c2") + assistant("a7", "r6", "m2", "done")
	tr, _, err := claudecode.Import([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := claudecode.Export(tr)
	if err != nil {
		t.Fatal(err)
	}
	// The branches ride in the first line's "sessiontree" (no line of a type
	// Claude Code's readers do not know): without it, the lines are the file's.
	if strings.Contains(string(out), `{"type":"sessiontree"`) {
		t.Fatalf("the branches are on a line of their own: %s", out)
	}
	first, rest, _ := strings.Cut(string(out), "\n")
	cut, tree, ok := strings.Cut(first, `,"sessiontree":{"tree":`)
	if !ok || !strings.Contains(tree, `"active_branch":"main"`) {
		t.Fatalf("the first line does not carry the branches: %s", first)
	}
	if got := cut + "}\n" + rest; got != in {
		t.Fatalf("export differs from the file:\n%s\nwant\n%s", got, in)
	}
	// A node added under a line inside the sequence is kept where it is.
	if _, err := tr.Rewind("a2", 0); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Append(core.Message(`{"role":"user","content":"instead"}`), 1); err != nil {
		t.Fatal(err)
	}
	out, err = claudecode.Export(tr)
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := claudecode.Import(out)
	if err != nil {
		t.Fatal(err)
	}
	if !same(tr, back) || !bytes.Contains(out, []byte(`"sessiontree":{"parent":"a2",`)) {
		t.Fatalf("round trip differs:\n%s\n%s\n%s", out, tr.Marshal(), back.Marshal())
	}
}

// A message of another shape is written in Claude Code's form, tool calls as
// tool_use and tool_result blocks, and the readers accept the line.
func TestForeignMessagesAreWrittenInClaudeCodesForm(t *testing.T) {
	tr := core.New(core.WithIDSource(func() string { return "x" }))
	u, _ := tr.Append(core.Message(`{"role":"user","content":"hi","x":1}`), 1000)
	_ = u
	out, err := claudecode.Export(tr)
	if err != nil {
		t.Fatal(err)
	}
	first := bytes.SplitN(out, []byte("\n"), 2)[0]
	if ok, why := claudecode.Accepted(first); !ok {
		t.Fatalf("%s: %s", first, why)
	}
	back, _, err := claudecode.Import(out)
	if err != nil {
		t.Fatal(err)
	}
	if !same(tr, back) {
		t.Fatalf("round trip differs:\n%s\n%s", tr.Marshal(), back.Marshal())
	}
}

// The fast path (message built straight from the line) and the general one
// (members split and joined) give the same message, so export's check that a
// record gives its node back holds for both.
func TestFastAndGeneralPathsAgree(t *testing.T) {
	in := user("u1", "", "hi") + assistant("a2", "u1", "m1", `say \"hi\" \u00e9`)
	fast, _, err := claudecode.Import([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	// An escaped key sends a line down the general path.
	slow, _, err := claudecode.Import([]byte(strings.ReplaceAll(in, `"timestamp"`, `"\u0074imestamp"`)))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"u1", "a2"} {
		f, _ := fast.Node(id)
		s, _ := slow.Node(id)
		want := strings.ReplaceAll(string(f.Message), `"timestamp"`, `"timestamp"`)
		if string(s.Message) != want || f.CreatedAtMs != s.CreatedAtMs {
			t.Fatalf("%s: fast %s (%d) general %s (%d)", id, f.Message, f.CreatedAtMs, s.Message, s.CreatedAtMs)
		}
	}
}

// Export then import gives the tree back, node for node.
func TestExportImportGivesTheTreeBack(t *testing.T) {
	in := user("u1", "", "q") + assistant("a2", "u1", "m1", "one") + assistant("a3", "u1", "m2", "two") +
		`{"type":"summary","summary":"s","leafUuid":"a3"}` + "\n"
	tr, _, err := claudecode.Import([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	out, err := claudecode.Export(tr)
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := claudecode.Import(out)
	if err != nil {
		t.Fatal(err)
	}
	a := tr.Marshal()
	b := back.Marshal()
	if !bytes.Equal(a, b) {
		t.Fatalf("round trip differs:\n%s\n%s", a, b)
	}
}

// The input is not kept: changing it after the import changes nothing.
func TestImportDoesNotAliasItsInput(t *testing.T) {
	in := []byte(user("u1", "", "hi") + assistant("a2", "u1", "m1", "yo"))
	tr, _, err := claudecode.Import(in)
	if err != nil {
		t.Fatal(err)
	}
	before := tr.Marshal()
	for i := range in {
		in[i] = 'x'
	}
	after := tr.Marshal()
	if !bytes.Equal(before, after) {
		t.Fatal("the tree changed with its input")
	}
}

// An assistant's content given as a string (Open WebUI's replies, Chat
// Completions) is written as Claude Code writes text, a list of blocks, and
// read back as the string it was (issue 23 §2).
func TestExportWritesAnAssistantsTextAsBlocks(t *testing.T) {
	msgs := []core.Message{
		core.Message(`{"role":"user","content":"hi"}`),
		core.Message(`{"role":"assistant","content":"hello \u2019**there**"}`),
		core.Message(`{"role":"user","content":"and?"}`),
		core.Message(`{"role":"assistant","content":""}`),
	}
	tr, err := core.FromLinear(msgs, 1)
	if err != nil {
		t.Fatal(err)
	}
	out, err := claudecode.Export(tr)
	if err != nil {
		t.Fatal(err)
	}
	var contents []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if typ, _ := rawjson.LookupString([]byte(l), "type"); typ != "assistant" {
			continue
		}
		m, _ := rawjson.Lookup([]byte(l), "message")
		c, _ := rawjson.Lookup(m, "content")
		contents = append(contents, string(c))
	}
	want := []string{`[{"type":"text","text":"hello \u2019**there**"}]`, `[]`}
	if strings.Join(contents, "|") != strings.Join(want, "|") {
		t.Fatalf("assistant contents %q, want %q", contents, want)
	}
	back, _, err := claudecode.Import(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := back.LinearProjection()
	if err != nil {
		t.Fatal(err)
	}
	for i := range msgs {
		if c, _ := rawjson.Lookup(got[i], "content"); string(c) != string(must(rawjson.Lookup(msgs[i], "content"))) {
			t.Errorf("message %d came back with content %s", i, c)
		}
	}
}

func must(v []byte, _ bool) []byte { return v }

// claude-code-log's release of June 2025 (daaain/claude-code-log a641071,
// claude_code_log/models.py, AssistantMessage and UsageInfo) refuses an
// assistant line whose message lacks stop_reason or stop_sequence (each may
// be null) or has a usage without whole numbers input_tokens and
// output_tokens. Claude Code writes both stops on every assistant message;
// another tool's reply gets them, and its usage (Open WebUI's and OpenAI's
// prompt_tokens, completion_tokens) in Claude's words, the original kept for
// the way back (a tool call comes back in Claude Code's form, as before).
func TestAssistantLinesHaveTheStopsAndUsageClaudeCodeLogRequires(t *testing.T) {
	msgs := []core.Message{
		core.Message(`{"role":"user","content":"hi"}`),
		core.Message(`{"role":"assistant","content":"hello","usage":{"prompt_tokens":26,"completion_tokens":310,"total_tokens":336}}`),
		core.Message(`{"role":"user","content":"tools?"}`),
		core.Message(`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{}"}}]}`),
	}
	tr, err := core.FromLinear(msgs, 1)
	if err != nil {
		t.Fatal(err)
	}
	out, err := claudecode.Export(tr)
	if err != nil {
		t.Fatal(err)
	}
	assistants := 0
	for _, l := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		if ok, why := claudecode.Accepted(l); !ok {
			t.Fatalf("%s: %s", l, why)
		}
		if typ, _ := rawjson.LookupString(l, "type"); typ != "assistant" {
			continue
		}
		assistants++
		m, _ := rawjson.Lookup(l, "message")
		for _, k := range []string{"stop_reason", "stop_sequence"} {
			if v, ok := rawjson.Lookup(m, k); !ok || string(v) != "null" {
				t.Fatalf("message.%s is %q: %s", k, v, m)
			}
		}
		if u, ok := rawjson.Lookup(m, "usage"); ok && string(u) != `{"input_tokens":26,"output_tokens":310}` {
			t.Fatalf("usage %s", u)
		}
	}
	if assistants != 2 {
		t.Fatalf("%d assistant lines, want 2", assistants)
	}
	back, _, err := claudecode.Import(out)
	if err != nil {
		t.Fatal(err)
	}
	path, _ := tr.ActivePath()
	was, _ := tr.Node(path[1])
	now, _ := back.Node(path[1])
	if string(now.Message) != string(was.Message) {
		t.Fatalf("the reply with its usage comes back as %s", now.Message)
	}
	bad := `{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"","sessionId":"s","version":"","type":"assistant","uuid":"a","timestamp":"t","message":{"id":"a","type":"message","role":"assistant","model":"","content":[]}}`
	if ok, _ := claudecode.Accepted([]byte(bad)); ok {
		t.Fatal("a message without stop_reason and stop_sequence is accepted")
	}
}

// A message of another format's shape (OpenAI tool calls and their result,
// with fields of their own) is written in Claude Code's form and comes back
// as it was: its original rides in the line's "sessiontree" member, without
// a second copy of the strings the line holds (until Dec 6, night, it came
// back in Claude Code's form, its other fields lost). A label on an imported
// line adds the label alone, not its message again, and a second export is
// the first.
func TestAnotherFormatsMessageComesBackAsItWasAndALabelAddsOnlyItself(t *testing.T) {
	long := strings.Repeat("the weather in Oslo is mild today, ", 4)
	k := 0
	tr := core.New(core.WithIDSource(func() string { k++; return "n" + strconv.Itoa(k) }))
	u, _ := tr.Append(core.Message(`{"role":"user","content":"weather in Oslo?"}`), 1000)
	a, _ := tr.Append(core.Message(`{"role":"assistant","content":"let me check","tool_calls":[{"id":"c1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Oslo\"}"}}],"x_private_note":"keep me","refusal":null}`), 2000)
	r, _ := tr.Append(core.Message(`{"role":"tool","tool_call_id":"c1","name":"weather","content":"`+long+`","x_meta":{"ms":12}}`), 3000)
	_, _ = u, a
	out, err := claudecode.Export(tr)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(out, []byte(long)); n != 1 {
		t.Errorf("the tool result's text is written %d times, want once (the kept original refers to the line's)", n)
	}
	back, _, err := claudecode.Import(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{u, a, r} {
		x, _ := tr.Node(id)
		y, ok := back.Node(id)
		if !ok || !bytes.Equal(x.Message, y.Message) {
			t.Errorf("%s came back as %s, want %s", id, y.Message, x.Message)
		}
	}
	if again, _ := claudecode.Export(back); used.ReplaceAllString(string(again), "") != used.ReplaceAllString(string(out), "") {
		t.Errorf("a second export differs from the first:\n%s\n%s", out, again)
	}
	// An imported session: a label adds itself, and a time, no more.
	sess := user("u1", "", "q") + assistant("a2", "u1", "m1", long)
	imp, _, err := claudecode.Import([]byte(sess))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := claudecode.Export(imp)
	imp.Label("a2", "L")
	labelled, _ := claudecode.Export(imp)
	if grew := len(labelled) - len(plain); grew > 80 {
		t.Errorf("a label made the export %d bytes longer: it carries more than the label and a time:\n%s", grew, labelled)
	}
	back, _, _ = claudecode.Import(labelled)
	if n, _ := back.Node("a2"); n.Label != "L" {
		t.Errorf("the label came back as %q", n.Label)
	}
	if again, _ := claudecode.Export(back); used.ReplaceAllString(string(again), "") != used.ReplaceAllString(string(labelled), "") {
		t.Errorf("a second export of the labelled session differs from the first")
	}
}
