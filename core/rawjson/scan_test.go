package rawjson

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCompactKeepsStringsNumbersAndKeyOrder(t *testing.T) {
	in := " { \"b\" : [ 1.50 , -0 , 1e+3 ] ,\n\"a\" : \"x  y\\n\\u00e9\" , \"c\":{ } } "
	got, err := Compact(nil, []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"b":[1.50,-0,1e+3],"a":"x  y\n\u00e9","c":{}}`; string(got) != want {
		t.Fatalf("got %s want %s", got, want)
	}
}

func TestScannerAgreesWithEncodingJSONOnValidity(t *testing.T) {
	cases := []string{
		`{}`, `[]`, `""`, `0`, `-0.5e-7`, `true`, `null`, `{"a":[1,{"b":null}]}`,
		`01`, `1.`, `.5`, `+1`, `[1,]`, `{"a":1,}`, `{"a"}`, `{1:2}`, `"\x"`, "\"\x01\"", `[`, `{"a":1}}`,
		`nul`, `tru`, `"\u12"`, `[1 2]`, `{"a":1 "b":2}`, `"é"`, " [ ] ", `"\ud83d\ude00"`,
	}
	for _, c := range cases {
		want := json.Valid([]byte(c))
		if got := Valid([]byte(c)); got != want {
			t.Errorf("%q: Valid=%v, encoding/json says %v", c, got, want)
		}
	}
}

func TestInvalidUTF8IsRejectedWhereEncodingJSONWouldReplaceIt(t *testing.T) {
	if Valid([]byte("\"\xff\"")) {
		t.Fatal("accepted invalid UTF-8")
	}
}

func TestLoneSurrogateEscapesAreRejected(t *testing.T) {
	for _, c := range []string{`"\ud800"`, `"\udc00"`, `"\ud800x"`, `"\ud800\u0041"`} {
		if Valid([]byte(c)) {
			t.Errorf("%s accepted", c)
		}
	}
}

func TestDeepNestingIsAnErrorNotAStackOverflow(t *testing.T) {
	deep := strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1)
	if Valid([]byte(deep)) {
		t.Fatal("accepted nesting beyond MaxDepth")
	}
	ok := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if !Valid([]byte(ok)) {
		t.Fatal("rejected nesting at MaxDepth")
	}
}

func TestLookupFindsTopLevelMembersOnly(t *testing.T) {
	obj := []byte(`{"x":{"role":"nested"},"a\"b":1,"role":"user","content":[1,"]"]}`)
	if v, ok := LookupString(obj, "role"); !ok || v != "user" {
		t.Fatalf("%q %v", v, ok)
	}
	if v, ok := Lookup(obj, "content"); !ok || string(v) != `[1,"]"]` {
		t.Fatalf("%s", v)
	}
	if v, ok := Lookup(obj, `a"b`); !ok || string(v) != "1" {
		t.Fatalf("escaped key: %s", v)
	}
	if _, ok := Lookup(obj, "missing"); ok {
		t.Fatal("found a missing key")
	}
}

func TestAppendStringRoundTripsThroughEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "é😀", "\"\\/\b\f\n\r\t\x00\x1f", "\u2028", "bad \xff utf8"} {
		lit := AppendString(nil, s)
		var back string
		if err := json.Unmarshal(lit, &back); err != nil {
			t.Fatalf("%q → %s: %v", s, lit, err)
		}
		if want := strings.ToValidUTF8(s, "\uFFFD"); back != want {
			t.Fatalf("%q → %s → %q", s, lit, back)
		}
		if got := Unquote(lit); got != back {
			t.Fatalf("Unquote(%s) = %q, want %q", lit, got, back)
		}
	}
}

func FuzzCompact(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":"c"}]}`, ` [ "x" , 1.5e3 ] `, `"\ud83d\ude00"`, `{"a":"\u00e9"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Compact(nil, data)
		if (err == nil) != json.Valid(data) && utf8.Valid(data) && !strings.Contains(string(data), `\u`) {
			t.Fatalf("validity disagrees with encoding/json on %q: %v", data, err)
		}
		if err != nil {
			return
		}
		if !json.Valid(got) {
			t.Fatalf("compacted output invalid: %q", got)
		}
		var want bytes.Buffer
		if json.Compact(&want, data) == nil && want.String() != string(got) {
			t.Fatalf("Compact(%q) = %q, encoding/json's %q", data, got, want.String())
		}
		again, err := Compact(nil, got)
		if err != nil || string(again) != string(got) {
			t.Fatal("Compact is not idempotent")
		}
		if got[0] == '{' {
			NewDecoder(got).Object(func(k string) error { Lookup(got, k); return nil })
		}
	})
}

// plain8 never calls a word plain that holds a quote, a backslash, a control
// character or a byte ≥ 0x80, and calls every all-printable-ASCII word plain.
func TestPlain8SaysPlainExactlyForPlainWords(t *testing.T) {
	special := []byte{'"', '\\', 0, 0x1f, 0x80, 0xff, 0x7f, ' ', 'a', '!', '#', '[', ']'}
	r := uint64(88172645463325252)
	for round := 0; round < 200000; round++ {
		var w [8]byte
		for i := range w {
			r ^= r << 13
			r ^= r >> 7
			r ^= r << 17
			if r%3 == 0 {
				w[i] = special[r%uint64(len(special))]
			} else {
				w[i] = byte(r >> 8)
			}
		}
		plain := true
		for _, c := range w {
			if c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
				plain = false
			}
		}
		if got := plain8(load8(w[:], 0)); got != plain {
			t.Fatalf("plain8(%q) = %v, want %v", w, got, plain)
		}
	}
}

// Compacting a large spaced value allocates its copy once: appended to piece
// by piece it grew a quarter at a time, 5 times the value in all (a 47 MB
// spaced ChatGPT conversation: 477 MB allocated compacting it).
func TestCompactOfALargeSpacedValueAllocatesItsCopyOnce(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := 0; i < 100000; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`{"id": "m`)
		b.WriteString(strconv.Itoa(i))
		b.WriteString(`", "text": "a message of some words"}`)
	}
	b.WriteString("]")
	data := []byte(b.String())
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out, err := Compact(nil, data)
	runtime.ReadMemStats(&after)
	if err != nil || len(out) >= len(data) {
		t.Fatalf("%d bytes from %d: %v", len(out), len(data), err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > uint64(len(data))*3/2 {
		t.Fatalf("compacting %d bytes allocated %d (%.1f times)", len(data), got, float64(got)/float64(len(data)))
	}
}

// Valid only scans: it compacted the document to throw the copy away, and a
// 345 MB spaced export was copied twice (once by formats.Detect) before its
// first conversation was read.
func TestValidOfASpacedDocumentAllocatesNothing(t *testing.T) {
	doc := []byte("[\n" + strings.Repeat("  {\"a\": [1, 2, {\"b\": \"c d\"}]},\n", 2000) + "  null\n]\n")
	if !Valid(doc) || Valid(doc[:len(doc)-3]) || Valid(append([]byte("  1 "), '2')) || Valid([]byte("  ")) {
		t.Fatal("Valid changed its answers")
	}
	if n := testing.AllocsPerRun(10, func() { Valid(doc) }); n != 0 {
		t.Fatalf("Valid of a spaced %d KB document allocated %.0f times", len(doc)>>10, n)
	}
}
