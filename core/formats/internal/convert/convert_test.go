package convert

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sessiontree/sessiontree/core/rawjson"
)

// ParseISO's fast path gives what time.Parse gives, and refuses what it refuses.
func TestParseISOAgreesWithTimeParse(t *testing.T) {
	for _, s := range []string{
		"2025-07-01T10:00:00.000Z", "2025-07-01T10:00:00Z", "2024-02-29T23:59:59.999999999Z", "1969-12-31T23:59:59.5Z",
		"0001-01-01T00:00:00Z", "2023-02-29T00:00:00Z", "2025-13-01T00:00:00Z", "2025-07-01T24:00:00Z", "2025-07-01T10:00:60Z",
		"2025-07-01T10:00:00.Z", "2025-07-01T10:00:00.1234567890Z", "2025-07-01T10:00:00+02:00", "2025-07-01 10:00:00Z", "garbage",
	} {
		want, werr := time.Parse(time.RFC3339Nano, s)
		got, ok := ParseISO(s)
		if ok != (werr == nil) || (ok && got != want.UnixMilli()) {
			t.Errorf("%s: got %d %v, time.Parse %d %v", s, got, ok, want.UnixMilli(), werr)
		}
	}
}

// EachMember hands out every member's key and raw value, strings with escaped
// quotes and nested containers included.
func TestEachMemberWalksEveryMember(t *testing.T) {
	obj := []byte(`{"a":"x\"}","b\\":[1,{"c":"]"}],"d":-1.5e3,"e":null,"f":{}}`)
	var got []string
	if !EachMember(obj, func(k, v []byte) bool { got = append(got, string(k)+"="+string(v)); return true }) {
		t.Fatal("walk failed")
	}
	want := `a="x\"}"|b\\=[1,{"c":"]"}]|d=-1.5e3|e=null|f={}`
	if strings.Join(got, "|") != want {
		t.Fatalf("got %s", strings.Join(got, "|"))
	}
	if EachMember([]byte(`{"a":"unterminated`), func(k, v []byte) bool { return true }) {
		t.Fatal("an unterminated string walked")
	}
}

// Folded builds what splitting the record into members and joining them
// builds, and FoldedAt finds a record's values inside it.
func TestFoldedMatchesTheGeneralBuild(t *testing.T) {
	for _, line := range []string{
		`{"uuid":"u1","message":{"role":"user","content":"hi"},"after":"z"}`,
		`{"message":{"role":"user"},"uuid":"u1"}`,
		`{"uuid":"u1","message":{}}`,
	} {
		obj := []byte(line)
		ms, err := Members(obj)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := Get(ms, "message")
		want := AppendMember(m, "k", NewObject(nil).Members(Set(ms, "message", Placeholder)).Bytes())
		start := strings.Index(line, `"message":`) + len(`"message":`)
		member := obj[start : start+len(m)]
		got := Folded(nil, obj, member, "k")
		if string(got) != string(want) {
			t.Fatalf("Folded %s, want %s", got, want)
		}
		u := strings.Index(line, `"u1"`)
		if v := FoldedAt(got, obj, member, "k", obj[u:u+4]); string(v) != `"u1"` {
			t.Fatalf("FoldedAt found %s in %s", v, got)
		}
	}
}

// The arena never hands out overlapping slices, and a slice's capacity ends
// where it does.
func TestArenaSlicesDoNotOverlap(t *testing.T) {
	var a Arena
	x := a.Copy([]byte("abc"))
	y := a.Copy([]byte("def"))
	x = append(x, 'Z')
	if string(y) != "def" || string(x) != "abcZ" {
		t.Fatalf("x %s y %s", x, y)
	}
	big := a.Make(arenaChunk)
	if cap(big) != arenaChunk {
		t.Fatalf("cap %d", cap(big))
	}
}

// Renaming duplicate ids and naming unnamed leaves costs the same for the
// thousandth as for the first: the names handed out are the first free ones,
// as before, but unused and freshName go on from where they stopped. They
// counted from "id~2" and "branch-1" again each time: a SillyTavern file of
// 50 messages × 250 swipes (65 KB) took 145 s in the worker, 9.9 s natively,
// and 20,000 ChatGPT conversations with one node id 620 s (issue 25's hostile
// pass). Counted in names looked at, not in time.
func TestDuplicateIDsAndUnnamedLeavesAreNamedInLinearWork(t *testing.T) {
	const n = 3000
	b := NewBuilder("test", nil)
	msg := []byte(`{"role":"user"}`)
	b.Add(1, "root", "", msg, "", 0)
	for i := range n {
		b.Add(2+i, "dup", "root", msg, "", int64(i)) // n leaves under root, n-1 renamed
	}
	tr, _ := b.Finish("", nil, nil)
	if tr.Len() != n+1 {
		t.Fatalf("%d nodes, want %d", tr.Len(), n+1)
	}
	for _, id := range []string{"dup", "dup~2", "dup~3", "dup~" + strconv.Itoa(n)} {
		if _, ok := tr.Node(id); !ok {
			t.Fatalf("no node %q", id)
		}
	}
	if got := len(tr.Branches()); got != n {
		t.Fatalf("%d branches, want one a leaf (%d)", got, n)
	}
	for _, name := range []string{"branch-1", "branch-" + strconv.Itoa(n-1)} {
		if _, ok := tr.LookupBranch(name); !ok {
			t.Fatalf("no branch %q", name)
		}
	}
	if b.probes > 4*n {
		t.Fatalf("%d names looked at for %d duplicates and %d leaves, want at most %d", b.probes, n-1, n, 4*n)
	}
}

// A record whose parent comes later waits for it; one whose parent never
// comes, or that is its own parent, or reuses an id, is reported and kept.
func TestBuilderKeepsEveryRecord(t *testing.T) {
	b := NewBuilder("test", nil)
	msg := []byte(`{"role":"user"}`)
	b.Add(1, "child", "parent", msg, "", 0)
	b.Add(2, "parent", "", msg, "", 0)
	b.Add(3, "lost", "nowhere", msg, "", 0)
	b.Add(4, "self", "self", msg, "", 0)
	b.Add(5, "parent", "", msg, "", 0)
	tr, rep := b.Finish("", nil, nil)
	var ps []string
	for _, p := range rep.Problems {
		ps = append(ps, p.String())
	}
	got := strings.Join(ps, "; ")
	n, _ := tr.Node("child")
	if tr.Len() != 5 || n.Parent != "parent" || !strings.Contains(got, `line 3 (lost): parent "nowhere" is not in the file`) ||
		!strings.Contains(got, "line 4 (self): record is its own parent") || !strings.Contains(got, `line 5 (parent): duplicate id`) {
		t.Fatalf("%d nodes, child under %q, problems %s", tr.Len(), n.Parent, got)
	}
	if rep.Nodes != 5 || rep.Roots != 4 || rep.Branches != 4 {
		t.Fatalf("counts %+v", rep)
	}
}

// EachLine lends compact objects with their numbers and reports the rest.
func TestEachLineReportsTornAndMalformedLines(t *testing.T) {
	var rep Report
	var got []string
	err := EachLine(strings.NewReader("{\"a\": 1}\n\n[1]\nnope\n{\"b\":2}\n{\"c\""), &rep, func(n int, obj []byte) {
		got = append(got, string(rawjson.AppendInt(nil, int64(n)))+":"+string(obj))
	})
	if err != nil {
		t.Fatal(err)
	}
	var ps []string
	for _, p := range rep.Problems {
		ps = append(ps, p.String())
	}
	if strings.Join(got, " ") != `1:{"a":1} 5:{"b":2}` || len(ps) != 3 || !strings.HasPrefix(ps[2], "line 6: torn last line") || rep.Records != 5 {
		t.Fatalf("lines %v, problems %v, records %d", got, ps, rep.Records)
	}
}

// A count of one is said in the singular ("1 entries of other types" read as
// a slip in the demo's toast), more in the plural, each once, in the order
// first met.
func TestCountedSaysOneInTheSingular(t *testing.T) {
	var c Counted
	c.Add("entry of another type", "entries of other types")
	c.Add("label entry", "label entries")
	c.Add("label entry", "label entries")
	var r Report
	c.Flush(&r)
	want := []string{"1 entry of another type", "2 label entries"}
	if len(r.NotCarried) != 2 || r.NotCarried[0] != want[0] || r.NotCarried[1] != want[1] {
		t.Fatalf("notes %q, want %q", r.NotCarried, want)
	}
	c.Add("label entry", "label entries") // counts start again after a flush
	var again Report
	c.Flush(&again)
	if len(again.NotCarried) != 1 || again.NotCarried[0] != "1 label entry" {
		t.Fatalf("after a flush: %q", again.NotCarried)
	}
}
