package formats_test

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats"
)

// randomTree grows a tree with the core's public operations: appends, rewinds,
// named branches, edits, labels and summaries.
func randomTree(seed uint64) *core.Tree {
	r := rand.New(rand.NewPCG(seed, 7))
	n := 0
	t := core.New(core.WithIDSource(func() string { n++; return "n" + strconv.Itoa(n) }))
	at := int64(1700000000000)
	var ids []string
	roles := []string{"user", "assistant", "system", "tool"}
	for i := 0; i < 5+r.IntN(40); i++ {
		at += int64(r.IntN(5000))
		msg := core.Message(`{"role":"` + roles[r.IntN(4)] + `","content":"m` + strconv.Itoa(i) + ` ünï \"q\"","x":[1.50,{"k":null}]}`)
		switch k := r.IntN(10); {
		case k < 5 || len(ids) == 0:
			id, _ := t.Append(msg, at)
			ids = append(ids, id)
		case k < 7:
			_, _ = t.Rewind(ids[r.IntN(len(ids))], at)
		case k < 8:
			id, _ := t.Edit(ids[r.IntN(len(ids))], msg, at)
			ids = append(ids, id)
		case k < 9:
			_ = t.Label(ids[r.IntN(len(ids))], "label "+strconv.Itoa(i))
		default:
			bs := t.Branches()
			b := bs[r.IntN(len(bs))]
			if b.Leaf != "" {
				_ = t.SummarizeBranch(b.Name, "summary "+strconv.Itoa(i), "model-x", at)
			}
		}
	}
	return t
}

var used = regexp.MustCompile(`,"used":\d+|,"moved_at_ms":\d+|"main":\{"name":"main",[^}]*?"created_at_ms":\d+`)

// same compares trees by their .tree.json, ignoring exactly three fields that
// no import can set: every branch's "used" (a logical clock the core advances
// on each switch; core has no setter, and no format carries it), "moved_at_ms"
// (when a branch was last moved, kept for merges; no format carries it) and main's
// "created_at_ms" (core.New creates main stamped by the tree's clock before
// any node exists, and SetBranch keeps an existing branch's stamp). Every
// other field — ids, messages, labels, times, parents, children order, every
// other branch with its leaf, stamp and summary, the active branch — must
// come back equal.
func same(a, b *core.Tree) bool {
	return used.ReplaceAllString(string(a.Marshal()), "") == used.ReplaceAllString(string(b.Marshal()), "")
}

func TestImportOfExportGivesTheTreeBack(t *testing.T) {
	for _, format := range []string{"chatgpt", "openwebui", "librechat", "claudecode", "pi", "claudeai", "sillytavern", "assistant-ui"} {
		for seed := uint64(1); seed <= 60; seed++ {
			tr := randomTree(seed)
			out, err := formats.Export(tr, format)
			if err != nil {
				t.Fatalf("%s seed %d: export: %v", format, seed, err)
			}
			back, rep, err := formats.Import(format, out)
			if err != nil {
				t.Fatalf("%s seed %d: import: %v", format, seed, err)
			}
			if !same(tr, back) {
				t.Fatalf("%s seed %d: import(export(t)) != t\n%s\n%s\nproblems %v", format, seed, tr.Marshal(), back.Marshal(), rep.Problems)
			}
			if d := formats.Detect(out); d != format {
				t.Fatalf("%s seed %d: export detected as %q", format, seed, d)
			}
		}
	}
}

// roundTrips lists the fixtures of the formats that carry a whole tree.
var roundTrips = []string{"chatgpt/forks.json", "chatgpt/two-conversations.json", "chatgpt/fragment.json",
	"librechat/nested-tree.json", "librechat/flat-branches.json", "librechat/linear.json",
	"openwebui/three-chats.json", "openwebui/regenerated.json",
	"claudecode/compact-after-rewind.jsonl", "claudecode/compact-preserved.jsonl", "claudecode/sidechain.jsonl",
	"claudecode/agent.jsonl", "claudecode/torn.jsonl", "pi/labels.jsonl", "pi/tools-compaction.jsonl",
	"claudeai/retries.json", "sillytavern/swipes.jsonl"}

func TestImportedFilesSurviveAnExportRoundTrip(t *testing.T) {
	for _, file := range roundTrips {
		checkRoundTrip(t, file, strings.Split(file, "/")[0], fixture(t, file))
	}
}

// checkRoundTrip: import(export(import(f))) == import(f), in format.
func checkRoundTrip(t *testing.T, file, format string, data []byte) {
	t.Helper()
	if diff := roundTripDiff(t, format, data); diff != "" {
		t.Fatalf("%s: import(export(import(f))) != import(f): %s", file, diff)
	}
}

// roundTripDiff is "" when import(export(import(data))) == import(data), else
// where they first differ.
func roundTripDiff(t *testing.T, format string, data []byte) string {
	t.Helper()
	tr, _ := mustImport(t, format, data)
	out, err := formats.Export(tr, format)
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	back, _ := mustImport(t, format, out)
	if same(tr, back) {
		return ""
	}
	return firstDiff(tr.Marshal(), back.Marshal())
}

// firstDiff shows where two .tree.json files first differ, 80 bytes either side.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-80)
	return "at byte " + strconv.Itoa(i) + ":\n  " + string(a[from:min(len(a), i+80)]) + "\n  " + string(b[from:min(len(b), i+80)])
}

func TestLinearExportsCarryTheActivePath(t *testing.T) {
	tr := randomTree(3)
	want, _ := tr.LinearProjection()
	for _, format := range []string{"openai", "codex"} {
		out, err := formats.Export(tr, format)
		if err != nil {
			t.Fatal(err)
		}
		back, _, err := formats.Import(format, out)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := back.LinearProjection()
		sp, _ := tr.SpliceForLinearExport()
		extra := 0
		if format == "codex" {
			extra = len(sp.Summaries)
		}
		if len(got) != len(want)+extra {
			t.Fatalf("%s: %d messages back, want %d + %d summaries", format, len(got), len(want), extra)
		}
		for i := range want {
			if got[i].Text() != want[i].Text() || got[i].Role() != want[i].Role() {
				t.Fatalf("%s: message %d is %s, want %s", format, i, got[i], want[i])
			}
		}
	}
}

// A file that starts with a UTF-8 byte order mark (a Windows editor saved it)
// reads as the file without it, in every format, by name, by "auto", whole and
// line by line, with a note saying so: until Dec 6, night, "auto" could not
// tell its format, the JSON formats refused it and the JSONL ones dropped its
// first line (an outside pass).
func TestAByteOrderMarkIsReadPast(t *testing.T) {
	tr := randomTree(3)
	for _, format := range []string{"chatgpt", "openwebui", "librechat", "claudecode", "pi", "claudeai", "sillytavern", "ai-sdk", "assistant-ui", "codex", "openai"} {
		out, err := formats.Export(tr, format)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		// Formats without ids (openai) take them from the tree's source: the
		// same one each time.
		ids := func() core.Option {
			n := 0
			return core.WithIDSource(func() string { n++; return "i" + strconv.Itoa(n) })
		}
		want, _, err := formats.Import(format, out, ids())
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		marked := append([]byte{0xEF, 0xBB, 0xBF}, out...)
		if got := formats.Detect(marked); got != format && formats.Detect(out) == format {
			t.Errorf("%s: Detect says %q with a byte order mark", format, got)
		}
		for _, how := range []string{format, "auto"} {
			if how == "auto" && formats.Detect(out) != format {
				continue
			}
			got, rep, err := formats.Import(how, marked, ids())
			if err != nil {
				t.Errorf("%s as %q with a byte order mark: %v", format, how, err)
				continue
			}
			if !same(got, want) {
				t.Errorf("%s as %q: the tree differs with a byte order mark", format, how)
			}
			if !strings.Contains(strings.Join(rep.NotCarried, "\n"), "byte order mark") {
				t.Errorf("%s as %q: the report does not say the mark was read past: %v", format, how, rep.NotCarried)
			}
		}
		if got, _, err := formats.ImportReader(format, strings.NewReader(string(marked)), ids()); err != nil || !same(got, want) {
			t.Errorf("%s line by line with a byte order mark: %v", format, err)
		}
	}
}

// A file of a JSON format that is not one JSON value is refused naming what
// is wrong and at which byte, in every format (until Dec 6, night, four said
// only "not valid JSON" and assistant-ui that it expected an object).
func TestAFileThatIsNotJSONIsRefusedNamingTheByte(t *testing.T) {
	tr := randomTree(5)
	for _, format := range []string{"chatgpt", "openwebui", "librechat", "claudeai", "ai-sdk", "assistant-ui", "openai"} {
		out, err := formats.Export(tr, format)
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		_, _, err = formats.Import(format, out[:len(out)/2])
		e, ok := err.(*core.Error)
		if !ok || e.Code != core.CodeInvalidInput || !strings.Contains(e.Message, "at byte ") {
			t.Errorf("%s, cut in half: %v", format, err)
		}
	}
}
