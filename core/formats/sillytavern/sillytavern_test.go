package sillytavern_test

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/formats/sillytavern"
)

// foreign is a tree of other tools' messages deeper than a chat: a retried
// answer (two siblings), a reply below the answer that is not on the path,
// reasoning, a tool call and its result, a system message and a label.
func foreign(t *testing.T) *core.Tree {
	tr := core.New()
	add := func(id, parent, msg string, at int64) {
		if err := tr.InsertNode(id, parent, core.Message(msg), "", at); err != nil {
			t.Fatal(err)
		}
	}
	add("s", "", `{"role":"system","content":"Be brief."}`, 1000)
	add("u1", "s", `{"role":"user","content":"list the files\nplease"}`, 2000)
	add("a1", "u1", `{"role":"assistant","content":[{"type":"thinking","thinking":"use ls"},{"type":"text","text":"Listing."},{"type":"toolCall","id":"t1","name":"ls","arguments":{"path":"."}}]}`, 3000)
	add("r1", "a1", `{"role":"toolResult","toolCallId":"t1","toolName":"ls","content":[{"type":"text","text":"a.go b.go"}]}`, 4000)
	add("a2", "u1", `{"role":"assistant","content":"Try ls.","x":1.50}`, 5000)
	add("u2", "a2", `{"role":"user","content":"thanks"}`, 6000)
	_ = tr.Label("a2", "short one")
	_ = tr.SetBranch(core.MainBranch, "r1", 0)
	return tr
}

type line struct {
	UserName     *string         `json:"user_name"`
	ChatMetadata json.RawMessage `json:"chat_metadata"`
	Name         *string         `json:"name"`
	IsUser       *bool           `json:"is_user"`
	Mes          *string         `json:"mes"`
	SendDate     *string         `json:"send_date"`
	Swipes       []string        `json:"swipes"`
	SwipeID      *int            `json:"swipe_id"`
	SwipeInfo    []any           `json:"swipe_info"`
	Extra        map[string]any  `json:"extra"`
}

func lines(t *testing.T, out []byte) []line {
	t.Helper()
	var ls []line
	for i, raw := range bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n")) {
		var l line
		if err := json.Unmarshal(raw, &l); err != nil {
			t.Fatalf("line %d is no JSON object: %v", i+1, err)
		}
		ls = append(ls, l)
	}
	return ls
}

// SillyTavern's /api/chats/get (src/endpoints/chats.js at ba6f7b7) splits the
// file on "\n" and silently drops a line JSON.parse refuses; its /import
// takes a .jsonl only when the first line has user_name (or name); the
// client's getChat shifts that header off and reads chat_metadata from it.
// So every line is one JSON object, the header first.
func TestTheHeaderComesFirstAndEveryLineIsOneObject(t *testing.T) {
	out, err := sillytavern.Export(foreign(t))
	if err != nil {
		t.Fatal(err)
	}
	ls := lines(t, out)
	if len(ls) != 1+4 || ls[0].UserName == nil || ls[0].Mes != nil || !bytes.HasPrefix(ls[0].ChatMetadata, []byte("{")) {
		t.Fatalf("%d lines, header %+v", len(ls), ls[0])
	}
}

// The client's addOneMessage (public/script.js) renders mes (a string),
// dates send_date through parseTimestamp (public/scripts/utils.js: Unix ms,
// "2024-6-5 @14h 56m 50s 682ms", "2024-7-12@01h31m37s", "June 19, 2023
// 2:20pm") and shows swipes[swipe_id] (swipe_info one per swipe) as the
// message, so mes is the active swipe. A system message is SillyTavern's
// narrator (extra.type), the model's reasoning extra.reasoning.
func TestEveryMessageIsOneSillyTavernRenders(t *testing.T) {
	out, _ := sillytavern.Export(foreign(t))
	ls := lines(t, out)[1:]
	sys, u1, a1, r1 := ls[0], ls[1], ls[2], ls[3]
	if *sys.Mes != "Be brief." || *sys.IsUser || sys.Extra["type"] != "narrator" {
		t.Fatalf("system %+v", sys)
	}
	if *u1.Mes != "list the files\nplease" || !*u1.IsUser || *u1.SendDate != "1970-1-1 @00h 00m 02s 000ms" {
		t.Fatalf("user %+v", u1)
	}
	if *a1.SwipeID != 0 || len(a1.Swipes) != 2 || a1.Swipes[0] != *a1.Mes || a1.Swipes[1] != "Try ls." || len(a1.SwipeInfo) != 2 || a1.Extra["reasoning"] != "use ls" {
		t.Fatalf("the answer and its retry %+v", a1)
	}
	if !strings.Contains(*a1.Mes, "Listing.") || !strings.Contains(*r1.Mes, "a.go b.go") || !*r1.IsUser {
		t.Fatalf("call %q, result %q", *a1.Mes, *r1.Mes)
	}
}

// What a chat cannot show (the reply below the retry, the label, the other
// format's fields) comes back from the "sessiontree" members.
func TestATreeDeeperThanAChatComesBack(t *testing.T) {
	tr := foreign(t)
	out, _ := sillytavern.Export(tr)
	back, rep, err := sillytavern.Import(out)
	if err != nil || string(back.Marshal()) != string(tr.Marshal()) {
		t.Fatalf("%v %v\n%s\n%s", err, rep.Problems, tr.Marshal(), back.Marshal())
	}
}

// Swipes and their dates, as SillyTavern wrote them in 2023 and writes them now.
func TestSwipesAreSiblingsWithTheirOwnDates(t *testing.T) {
	file := `{"user_name":"You","character_name":"C","create_date":1674559900991}` + "\n" +
		`{"name":"C","is_user":false,"send_date":1674563371558,"mes":"b","swipe_id":1,"swipes":["a","b"],"swipe_info":[{"send_date":"June 19, 2023 2:20pm"},{"send_date":"2024-7-12@01h31m37s"}]}`
	tr, _, err := sillytavern.Import([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := tr.Node("m2.0")
	b, _ := tr.Node("m2.1")
	if a.CreatedAtMs != 1687184400000 || b.CreatedAtMs != 1674563371558 || tr.Root() != "m2.0" {
		t.Fatalf("swipe a at %d, b at %d", a.CreatedAtMs, b.CreatedAtMs)
	}
	if br, _ := tr.LookupBranch(core.MainBranch); br.Leaf != "m2.1" {
		t.Fatalf("main at %s, want the swipe_id one", br.Leaf)
	}
}

// Bad input is an error with a code or a report, never a panic.
func TestInputThatIsNoChatIsRefusedOrReported(t *testing.T) {
	for _, in := range []string{``, "\n\n", `[1]`} {
		if _, _, err := sillytavern.Import([]byte(in)); err == nil {
			t.Errorf("%q: no error", in)
		} else if e, ok := err.(*core.Error); !ok || e.Code != core.CodeInvalidInput {
			t.Errorf("%q: %v", in, err)
		}
	}
	tr, rep, err := sillytavern.Import([]byte("{\"user_name\":\"u\"}\n{\"mes\":\"x\",\"swipes\":[\"x\"],\"swipe_id\":7}\nnot json\n"))
	if err != nil || tr.Len() != 1 || len(rep.Problems) != 2 {
		t.Fatalf("%v %d %v", err, tr.Len(), rep.Problems)
	}
}

// SillyTavern saves a chat while a swipe is being generated with swipe_id one
// past the swipes and mes the text so far; the line was dropped down to its
// first swipe's text before (mes, extra, gen_started, send_date lost).
func TestASwipeInProgressKeepsTheWholeLine(t *testing.T) {
	const head = `{"user_name":"Ana","character_name":"Quill","create_date":"2024-9-28@01h02m36s","chat_metadata":{}}
{"name":"Ana","is_user":true,"is_system":false,"send_date":"2024-9-28 @01h 03m 10s 250ms","mes":"Write me a haiku.","extra":{}}
`
	inProgress := `{"name":"Quill","is_user":false,"is_system":false,"send_date":"2024-9-28 @01h 03m 30s 000ms","mes":"Third try, being written","extra":{"api":"openai","reasoning":"think"},"gen_started":"2024-09-28T01:03:12.000Z","swipe_id":2,"swipes":["Autumn moon rises","Cold rain on the roof"],"swipe_info":[{"send_date":"2024-9-28 @01h 03m 20s 000ms","extra":{}},{"send_date":"2024-9-28 @01h 03m 25s 000ms","extra":{}}]}`
	for _, c := range []struct {
		name, line, text string
		swipes           int
	}{
		{"mes among no swipe: a swipe of its own", inProgress, "Third try, being written", 3},
		{"mes equal to a swipe: that swipe", strings.Replace(inProgress, "Third try, being written", "Cold rain on the roof", 1), "Cold rain on the roof", 2},
		{"a negative swipe_id", strings.Replace(inProgress, `"swipe_id":2`, `"swipe_id":-1`, 1), "Third try, being written", 3},
	} {
		tr, rep, err := sillytavern.Import([]byte(head + c.line + "\n"))
		if err != nil {
			t.Fatal(err)
		}
		msgs, _ := tr.LinearProjection()
		if len(msgs) != 2 || msgs[1].Text() != c.text {
			t.Errorf("%s: active path ends with %q, want %q", c.name, msgs[len(msgs)-1].Text(), c.text)
			continue
		}
		p, _ := tr.ActivePath()
		n, _ := tr.Node(p[1])
		for _, kept := range []string{`"gen_started"`, `"reasoning":"think"`, `"send_date":"2024-9-28 @01h 03m 30s 000ms"`, `"name":"Quill"`, `"swipe_info"`} {
			if !bytes.Contains(n.Message, []byte(kept)) {
				t.Errorf("%s: the active node lost %s: %s", c.name, kept, n.Message)
			}
		}
		if sibs, _, _ := tr.Siblings(p[1]); len(sibs) != c.swipes {
			t.Errorf("%s: %d alternatives, want %d", c.name, len(sibs), c.swipes)
		}
		if len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Message, "swipe_id") {
			t.Errorf("%s: want the substitution reported, got %v", c.name, rep.Problems)
		}
		// The export is a line SillyTavern reads: swipes[swipe_id] = mes.
		out, err := sillytavern.Export(tr)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		var last struct {
			Mes     string   `json:"mes"`
			SwipeID int      `json:"swipe_id"`
			Swipes  []string `json:"swipes"`
		}
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
			t.Fatal(err)
		}
		if last.SwipeID >= len(last.Swipes) || last.Swipes[last.SwipeID] != last.Mes || last.Mes != c.text {
			t.Errorf("%s: exported %+v", c.name, last)
		}
	}
}

// SillyTavern's saveChat writes the header anew from user_name,
// character_name, create_date and chat_metadata (spread as it was). The
// export kept the nodes off the path and the branches in a member of the
// header's own, which the first save dropped.
func TestTheExtensionSurvivesSillyTavernSavingTheChat(t *testing.T) {
	tr := foreign(t)
	out, err := sillytavern.Export(tr)
	if err != nil {
		t.Fatal(err)
	}
	head, rest, _ := strings.Cut(string(out), "\n")
	var h map[string]json.RawMessage
	if err := json.Unmarshal([]byte(head), &h); err != nil {
		t.Fatal(err)
	}
	var md map[string]json.RawMessage
	if err := json.Unmarshal(h["chat_metadata"], &md); err != nil {
		t.Fatal(err)
	}
	md["tainted"] = json.RawMessage("true") // what SillyTavern may add
	mdb, _ := json.Marshal(md)
	saved, _ := json.Marshal(map[string]json.RawMessage{
		"user_name": h["user_name"], "character_name": h["character_name"], "create_date": h["create_date"], "chat_metadata": mdb,
	})
	back, rep, err := sillytavern.Import([]byte(string(saved) + "\n" + rest))
	if err != nil {
		t.Fatal(err)
	}
	if back.Len() != tr.Len() || len(back.Branches()) != len(tr.Branches()) || len(rep.Problems) > 0 {
		t.Errorf("after SillyTavern saved it: %d nodes, %d branches (want %d, %d), %v", back.Len(), len(back.Branches()), tr.Len(), len(tr.Branches()), rep.Problems)
	}

	// A file an older export wrote, with the extension in the header's own member.
	ext := md["sessiontree"]
	delete(md, "sessiontree")
	mdb, _ = json.Marshal(md)
	h["chat_metadata"], h["sessiontree"] = mdb, ext
	old, _ := json.Marshal(h)
	if back, _, err := sillytavern.Import([]byte(string(old) + "\n" + rest)); err != nil || back.Len() != tr.Len() {
		t.Errorf("the older place: %v, %d nodes", err, back.Len())
	}
}

// A chat whose header has no chat_metadata gets one to hold the extension,
// and loses it again on import, so the header comes back as it was.
func TestAHeaderWithoutChatMetadataComesBackWithout(t *testing.T) {
	file := `{"user_name":"Ana","character_name":"Quill","create_date":"2024-9-28@01h02m36s"}
{"name":"Ana","is_user":true,"is_system":false,"send_date":"2024-9-28 @01h 03m 10s 250ms","mes":"Hi.","extra":{}}
{"name":"Quill","is_user":false,"is_system":false,"send_date":"2024-9-28 @01h 03m 20s 000ms","mes":"Hello.","extra":{}}
`
	tr, _, err := sillytavern.Import([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := sillytavern.Export(tr)
	if head, _, _ := strings.Cut(string(out), "\n"); !strings.Contains(head, `"chat_metadata":{"sessiontree":`) {
		t.Errorf("the extension is not in chat_metadata: %s", head)
	}
	back, _, _ := sillytavern.Import(out)
	if !bytes.Equal(back.Marshal(), tr.Marshal()) {
		t.Errorf("the tree changed:\n%s\n%s", tr.Marshal(), back.Marshal())
	}
}

// A message regenerated N times is one line of N swipes, and each swipe's
// "sessiontree" entry refers to that line: the export and the import work
// out the line's bytes, checksum and strings once, not once a swipe (an
// outside pass, Dec 6: the export was O(N²), 22 s at 10,000 replies). Counted
// as the bytes allocated: four times the swipes may cost at most about four
// times as much, where the quadratic work cost sixteen.
func TestAMessageOfManySwipesExportsAndImportsInLinearWork(t *testing.T) {
	star := func(n int) *core.Tree {
		tr := core.New()
		tr.Append(core.Message(`{"role":"user","content":"tell me a joke about a long afternoon"}`), 1700000000000)
		// Content as parts: the line's swipes hold their texts, so each
		// swipe's entry refers to the line for them (elided).
		reply := func(i int) core.Message {
			return core.Message(`{"role":"assistant","content":[{"type":"text","text":"joke number ` + strconv.Itoa(i) + `, which runs long enough to be elided"}]}`)
		}
		r, _ := tr.Append(reply(0), 1700000000001)
		for i := 1; i < n; i++ {
			r, _ = tr.Regenerate(r, reply(i), 1700000000001+int64(i))
		}
		return tr
	}
	allocated := func(f func()) uint64 {
		var a, b runtime.MemStats
		runtime.ReadMemStats(&a)
		f()
		runtime.ReadMemStats(&b)
		return b.TotalAlloc - a.TotalAlloc
	}
	var out [2][]byte
	var cost [2][2]uint64
	for k, n := range []int{500, 2000} {
		tr := star(n)
		cost[k][0] = allocated(func() { out[k], _ = sillytavern.Export(tr) })
		var back *core.Tree
		cost[k][1] = allocated(func() { back, _, _ = sillytavern.Import(out[k]) })
		if back == nil || back.Len() != tr.Len() {
			t.Fatalf("%d swipes: the import gave %v back", n, back)
		}
		q, _ := tr.Node(tr.Root())
		for _, id := range append([]string{q.ID}, q.Children...) {
			a, _ := tr.Node(id)
			b, ok := back.Node(id)
			if !ok || !bytes.Equal(a.Message, b.Message) || a.CreatedAtMs != b.CreatedAtMs {
				t.Fatalf("%d swipes: node %s came back as %+v, want %+v", n, id, b, a)
			}
		}
	}
	for i, what := range []string{"export", "import"} {
		if r := float64(cost[1][i]) / float64(cost[0][i]); r > 6 {
			t.Errorf("the %s of 2,000 swipes allocated %.1f× what 500 did (%d and %d bytes): more than linear", what, r, cost[1][i], cost[0][i])
		}
	}
}
