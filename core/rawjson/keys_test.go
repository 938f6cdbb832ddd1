package rawjson

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestCompactUniqueRefusesAKeyNamedTwiceAtAnyDepth(t *testing.T) {
	for _, c := range []struct{ in, key, where string }{
		{`{"role":"user","role":"assistant"}`, "role", "$.role"},
		{`{"role":"user","r\u006fle":"assistant"}`, "role", "$.role"},
		{`{"role":"user","content":[{"type":"text","text":"a","text":"b"}]}`, "text", "$.content[0].text"},
		{`{"a":[1,{"b":{"c":1,"c":2}}]}`, "c", "$.a[1].b.c"},
		{`{"x y":{"k":1,"k":2}}`, "k", `$["x y"].k`},
		{`[{"a":1},{"a":1,"a":1}]`, "a", "$[1].a"},
	} {
		_, err := CompactUnique(nil, []byte(c.in))
		var de *DuplicateKeyError
		if !errors.As(err, &de) {
			t.Fatalf("%s: got %v, want a DuplicateKeyError", c.in, err)
		}
		if de.Key != c.key || de.Where() != c.where {
			t.Errorf("%s: key %q at %s, want %q at %s", c.in, de.Key, de.Where(), c.key, c.where)
		}
		if !strings.Contains(err.Error(), c.where) {
			t.Errorf("%s: %q does not name the path", c.in, err)
		}
	}
}

func TestCompactUniqueAcceptsTheSameKeyInDifferentObjects(t *testing.T) {
	for _, in := range []string{
		`{"a":{"a":1},"b":{"a":2}}`, `[{"a":1},{"a":2}]`, `{}`, `{"a":{}, "b":[]}`,
		`{"role":"user","Role":"x","rôle":"y"}`,
	} {
		if _, err := CompactUnique(nil, []byte(in)); err != nil {
			t.Errorf("%s: %v", in, err)
		}
	}
}

func TestManyKeysAreCheckedInLinearTime(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < 200000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + itoa(i) + `":1`)
	}
	b.WriteString(`,"k7":2}`)
	_, err := CompactUnique(nil, []byte(b.String()))
	var de *DuplicateKeyError
	if !errors.As(err, &de) || de.Key != "k7" {
		t.Fatalf("got %v", err)
	}
}

func itoa(i int) string { return string(AppendInt(nil, int64(i))) }

// KeepLastKeys gives the object JSON.parse makes: encoding/json decoding into
// maps keeps the last of a repeated key too, so the two must decode equal.
func TestKeepLastKeysMeansWhatJSONParseReads(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"role":"user","role":"assistant"}`, `{"role":"assistant"}`},
		{`{"a":1,"b":2,"a":3}`, `{"b":2,"a":3}`},
		{`{"a":1,"a":2,"a":3}`, `{"a":3}`},
		{`{"a":{"x":1,"x":2},"a":3}`, `{"a":3}`},
		{`{"a":3,"a":{"x":1,"x":2}}`, `{"a":{"x":2}}`},
		{`[{"t":"a","t":"b"},{"u":1}]`, `[{"t":"b"},{"u":1}]`},
		{`{"r\u006fle":"user","role":"tool"}`, `{"role":"tool"}`},
		{`{"ok":true}`, `{"ok":true}`},
	} {
		out, dropped, err := KeepLastKeys([]byte(c.in))
		if err != nil || string(out) != c.want {
			t.Errorf("%s: got %s (%v), want %s", c.in, out, err, c.want)
		}
		if (len(dropped) == 0) != (c.in == c.want) {
			t.Errorf("%s: dropped %v", c.in, dropped)
		}
		var a, b any
		if json.Unmarshal([]byte(c.in), &a) != nil || json.Unmarshal(out, &b) != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("%s: %s decodes to %v, the input to %v", c.in, out, b, a)
		}
		if _, err := CompactUnique(nil, out); err != nil {
			t.Errorf("%s: the result %s still names a key twice: %v", c.in, out, err)
		}
	}
}

func FuzzKeepLastKeys(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":{"b":1,"b":2},"a":[{"c":1,"c":1}]}`, `[1,{"x":1}]`, `{"\u0061":1,"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, _, err := KeepLastKeys(in)
		_, uerr := CompactUnique(nil, in)
		if err != nil {
			if !Valid(in) == (err == nil) {
				t.Fatalf("KeepLastKeys error %v on valid input", err)
			}
			return
		}
		if _, err := CompactUnique(nil, out); err != nil {
			t.Fatalf("%s -> %s still has %v", in, out, err)
		}
		if (uerr == nil) != (string(out) == string(in)) {
			t.Fatalf("%s: CompactUnique says %v but KeepLastKeys gave %s", in, uerr, out)
		}
		var a, b any
		if json.Unmarshal(in, &a) == nil && (json.Unmarshal(out, &b) != nil || !reflect.DeepEqual(a, b)) {
			t.Fatalf("%s -> %s decodes differently", in, out)
		}
	})
}

func TestSortRangesSortsByStart(t *testing.T) {
	for n := 0; n < 40; n++ {
		r := make([]byteRange, n)
		for i := range r {
			r[i] = byteRange{start: (i * 7919) % (n + 3), end: i}
		}
		sortRanges(r)
		for i := 1; i < n; i++ {
			if r[i-1].start > r[i].start {
				t.Fatalf("n=%d: not sorted: %v", n, r)
			}
		}
	}
}
