package codex_test

import (
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/codex"
	"github.com/sessiontree/sessiontree/core/formats/internal/formattest"
)

func item(ts, role, text string) string {
	part := "input_text"
	if role == "assistant" {
		part = "output_text"
	}
	return `{"timestamp":"2026-01-01T00:00:0` + ts + `.000Z","type":"response_item","payload":{"type":"message","role":"` + role + `","content":[{"type":"` + part + `","text":"` + text + `"}]}}` + "\n"
}

const meta = `{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"t1"}}` + "\n"

const rollback = `{"timestamp":"2026-01-01T00:00:05.000Z","type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":1}}` + "\n"

func TestImport(t *testing.T) {
	cases := []formattest.Case{
		{"thread_rolled_back forks the next message from before the undone turn and keeps it on a branch",
			meta + item("1", "user", "one") + item("2", "assistant", "answer one") + item("3", "user", "undo me") + item("4", "assistant", "undone") + rollback + item("6", "user", "instead"),
			func(t *testing.T, tr *core.Tree, _, notes string) {
				path, _ := tr.ActivePath()
				if strings.Join(path, ",") != "line-2,line-3,line-7" || len(tr.Branches()) != 2 || !strings.Contains(notes, "thread_rolled_back") {
					t.Fatalf("path %v, branches %v, notes %s", path, tr.Branches(), notes)
				}
			}},
		{"a torn last line is reported and the rest kept",
			meta + item("1", "user", "one") + `{"timestamp":"2026-01-01T00:00:02.000Z","type":"resp`,
			func(t *testing.T, tr *core.Tree, problems, _ string) {
				if tr.Len() != 1 || !strings.Contains(problems, "line 3: torn last line") {
					t.Fatalf("%d nodes, problems %s", tr.Len(), problems)
				}
			}},
		{"a user_message event repeated by a response_item is one node",
			meta + `{"timestamp":"2026-01-01T00:00:01.000Z","type":"event_msg","payload":{"type":"user_message","message":"one"}}` + "\n" + item("1", "user", "one"),
			func(t *testing.T, tr *core.Tree, _, notes string) {
				if tr.Len() != 1 || !strings.Contains(notes, "repeated by a response_item") {
					t.Fatalf("%d nodes, notes %s", tr.Len(), notes)
				}
			}},
		{"function calls and their outputs become assistant tool calls and tool messages",
			meta + item("1", "user", "ls") + `{"timestamp":"2026-01-01T00:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"cmd\":\"ls\"}","call_id":"c1"}}` + "\n" +
				`{"timestamp":"2026-01-01T00:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"a.txt"}}` + "\n",
			func(t *testing.T, tr *core.Tree, _, _ string) {
				call, _ := tr.Node("line-3")
				out, _ := tr.Node("line-4")
				if call.Message.Role() != "assistant" || out.Message.Role() != "tool" || !strings.Contains(out.Message.Text(), "a.txt") {
					t.Fatalf("call %s, output %s", call.Message, out.Message)
				}
			}},
	}
	formattest.RunImports(t, codex.Import, cases)
}

// The export of a rolled-back rollout is its active path then the other
// branch as a developer message (testdata/rollback.golden.jsonl, read by eye).
func TestExportGolden(t *testing.T) {
	tr, _, err := codex.Import([]byte(meta + item("1", "user", "one") + item("2", "assistant", "answer one") + item("3", "user", "undo me") + item("4", "assistant", "undone") + rollback + item("6", "user", "instead")))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range tr.Branches() {
		if b.Name != core.MainBranch {
			if err := tr.SummarizeBranch(b.Name, "asked to undo, then undone", "", 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	out, err := codex.Export(tr)
	if err != nil {
		t.Fatal(err)
	}
	formattest.Golden(t, "testdata/rollback.golden.jsonl", out)
}

// A message of another tool's own role (pi's bashExecution: a command the
// user ran) is exported in a role Codex knows, as who speaks it (issue 23 §2).
func TestExportWritesOnlyCodexRoles(t *testing.T) {
	tr, err := core.FromLinear([]core.Message{
		core.Message(`{"role":"user","content":"hi"}`),
		core.Message(`{"role":"bashExecution","command":"ls","output":"a.go","exitCode":0,"cancelled":false,"truncated":false}`),
		core.Message(`{"role":"assistant","content":"done"}`),
	}, 1)
	if err != nil {
		t.Fatal(err)
	}
	out, err := codex.Export(tr)
	if err != nil {
		t.Fatal(err)
	}
	sawBash := false
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if ok, why := codex.Accepted([]byte(l)); !ok {
			t.Errorf("line not accepted (%s): %s", why, l)
		}
		if strings.Contains(l, "bashExecution") && strings.Contains(l, `"role":"bashExecution"`) {
			t.Errorf("a role Codex does not know: %s", l)
		}
		if strings.Contains(l, "Ran `ls`") {
			sawBash = strings.Contains(l, `"role":"user"`)
		}
	}
	if !sawBash {
		t.Fatalf("the command is not a user message:\n%s", out)
	}
	if ok, _ := codex.Accepted([]byte(`{"timestamp":"2026-01-01T00:00:00.000Z","type":"response_item","payload":{"type":"message","role":"bashExecution","content":[]}}`)); ok {
		t.Fatal("the acceptance check takes a role Codex does not write")
	}
}

// Codex counts the turns a thread_rolled_back undoes over the user messages
// that are not context it injected itself (codex-rs is_user_turn_boundary);
// the import counted every user message, so after an aborted turn (Codex adds
// a <turn_aborted> user message) the undone turn stayed on the active path.
func TestARollbackCountsOnlyTheUsersOwnTurns(t *testing.T) {
	rollbackOf := func(n string) string {
		return `{"timestamp":"2026-01-01T00:00:05.000Z","type":"event_msg","payload":{"type":"thread_rolled_back","num_turns":` + n + `}}` + "\n"
	}
	for _, c := range []struct {
		name, file, want string
	}{
		{"an aborted turn's notice",
			meta + item("0", "user", `<environment_context>\n  <cwd>/tmp</cwd>\n</environment_context>`) + item("1", "user", "one") + item("2", "assistant", "answer one") +
				item("3", "user", "do the wrong thing") + item("4", "assistant", "starting") + item("4", "user", `<turn_aborted>\nThe user interrupted the previous turn.\n</turn_aborted>`) +
				rollback + item("6", "user", "instead"),
			"line-2,line-3,line-4,line-9"},
		{"a shell command, AGENTS.md and a subagent's notification, in any case and padded",
			meta + item("1", "user", "one") + item("2", "assistant", "answer one") + item("3", "user", "undo me") +
				item("4", "user", `  <USER_SHELL_COMMAND>ls</user_shell_command>\n`) + item("4", "user", `# AGENTS.md instructions for /tmp\n\n<INSTRUCTIONS>\nbe brief\n</INSTRUCTIONS>`) +
				item("4", "user", `<subagent_notification>{}</subagent_notification>`) + rollback + item("6", "user", "instead"),
			"line-2,line-3,line-9"},
		{"a message that only mentions a tag is a turn",
			meta + item("1", "user", "one") + item("2", "assistant", "answer one") + item("3", "user", "what does <turn_aborted> mean?") + rollback + item("6", "user", "instead"),
			"line-2,line-3,line-6"},
		{"more turns than there are keep the context before the first",
			meta + item("0", "user", `<environment_context>x</environment_context>`) + item("1", "user", "one") + item("2", "assistant", "answer one") + rollbackOf("5") + item("6", "user", "instead"),
			"line-2,line-6"},
		{"no turn at all undoes nothing",
			meta + item("0", "user", `<environment_context>x</environment_context>`) + rollbackOf("1") + item("6", "user", "instead"),
			"line-2,line-4"},
	} {
		tr, _, err := codex.Import([]byte(c.file))
		if err != nil {
			t.Fatal(err)
		}
		path, _ := tr.ActivePath()
		if got := strings.Join(path, ","); got != c.want {
			t.Errorf("%s: active path %s, want %s", c.name, got, c.want)
		}
	}
}
