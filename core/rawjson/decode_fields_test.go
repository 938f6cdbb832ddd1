package rawjson

import (
	"bytes"
	"testing"
)

// Fields and Get answer what Lookup answers, for every key of every object
// and for keys that are absent, on valid objects and broken ones.
func FuzzFieldsGetIsLookup(f *testing.F) {
	for _, s := range []string{
		`{"role":"user","content":"hi \"there\" \\ done","n":[1,{"a":"}"}],"role":"x"}`,
		`{ "a" : 1 , "b":{"c":[true,false,null]}, "\u0061":2}`,
		`{"k":"` + string(bytes.Repeat([]byte("abcdefgh"), 9)) + `\\"}`,
		`{"a":}`, `{"a" 1}`, `[1]`, `{}`, `{"a":1,`, `  {"a":"x\\\\"}`,
	} {
		f.Add([]byte(s), "a")
		f.Add([]byte(s), "role")
	}
	f.Fuzz(func(t *testing.T, obj []byte, key string) {
		fs := Fields(obj, nil)
		keys := []string{key, "a", "role", "content", "k", "b"}
		for _, fl := range fs {
			keys = append(keys, Unquote(fl.Key))
		}
		for _, k := range keys {
			want, wok := Lookup(obj, k)
			got, gok := Get(fs, k)
			if wok != gok || wok && !bytes.Equal(want, got) {
				t.Fatalf("%q in %q: Get %q %v, Lookup %q %v", k, obj, got, gok, want, wok)
			}
			LookupString(obj, k) // must not panic on what Lookup found
		}
	})
}

// The importers' format detection reads the first line of a file with
// LookupString, before anything validated it: a file cut off inside a
// string ({"type":") made Lookup return a lone quote, and Unquote panicked
// (FuzzImportAuto). Every prefix of these objects, and every value Lookup
// may return for them, is read without a panic.
func TestLookupStringOnEveryPrefixOfAnObject(t *testing.T) {
	for _, s := range []string{
		`{"id":"","timestamp":"","type":"message","t2":"a\"b\u00e9\ud83d\ude00","n":[1,{"a":"}"}]}`,
		`{ "type" : "x\\" , "record_type":"state"}`,
	} {
		for n := 0; n <= len(s); n++ {
			for _, k := range []string{"id", "timestamp", "type", "t2", "n", "record_type"} {
				LookupString([]byte(s[:n]), k)
			}
		}
		// The whole object still reads as it says.
		if v, ok := LookupString([]byte(s), "type"); !ok || (v != "message" && v != `x\`) {
			t.Fatalf("type in %s: %q %v", s, v, ok)
		}
	}
	for _, lit := range []string{``, `"`, `x`, `"\`, `"\u12`, `"\ud800\u`} {
		Unquote([]byte(lit))
	}
}

// skipByByte is skipValid as it was, a byte at a time: the reference for the
// eight-bytes-at-a-time string skip.
func skipByByte(data []byte, i int) int {
	depth := 0
	for i < len(data) {
		switch c := data[i]; c {
		case '"':
			i++
			for i < len(data) && data[i] != '"' {
				if data[i] == '\\' {
					i++
				}
				i++
			}
			if i >= len(data) {
				return len(data)
			}
			i++
		case '{', '[':
			depth++
			i++
		case '}', ']':
			depth--
			i++
		case ',', ':', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return i
			}
			i++
		default:
			i++
		}
		if depth <= 0 {
			if depth < 0 {
				return i - 1
			}
			if c := data[i-1]; c == '"' || c == '}' || c == ']' {
				return min(i, len(data))
			}
		}
	}
	return min(i, len(data))
}

// skipValid ends every value, valid or not, where the byte-at-a-time skip does.
func FuzzSkipValidIsByByte(f *testing.F) {
	for _, s := range []string{`"abcdefghijklmnop\"qrstuvwxyz0123456789"`, `{"a":"` + string(bytes.Repeat([]byte(`x\\`), 20)) + `"}`,
		`["é😀 long string over eight bytes", 1]`, `"unterminated string that is long enough`, `"ab\`, `"abcdefg\"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for i := range min(len(data), 16) {
			if got, want := skipValid(data, i), skipByByte(data, i); got != want {
				t.Fatalf("skipValid(%q, %d) = %d, byte by byte %d", data, i, got, want)
			}
		}
	})
}

// End takes spaces for the end, and nothing else: a NUL byte after a value
// is data (Peek answers 0 for it, as it does at the end, and End once took
// it for the end).
func TestEndRefusesANULByteAfterTheValue(t *testing.T) {
	for in, ok := range map[string]bool{`{} `: true, "[1]\n\t\r ": true, "{}\x00": false, "{} \x00 ": false, `{} x`: false} {
		d := NewDecoder([]byte(in))
		if err := d.Skip(); err != nil {
			t.Fatal(err)
		}
		if err := d.End(); (err == nil) != ok {
			t.Errorf("%q: End said %v", in, err)
		}
	}
}

// HasKey is Lookup's answer and LookupLast is Lookup of what JSON.parse
// reads (KeepLastKeys), for a valid object; neither panics on anything.
func FuzzHasKeyAndLookupLastAreLookup(f *testing.F) {
	for _, s := range []string{
		`{"title":"a","mapping":{"x":{}},"title":"b"}`, `{"t\u0069tle":1,"title":[2]}`,
		`{ "a" : 1 , "b":{"a":[true]}, "\u0061":2}`, `{"a":{"b":1,"b":2},"a":[{"d":1,"d":2}]}`, `{"a":}`, `{"a":1,`, `[1]`, `{}`,
	} {
		f.Add([]byte(s), "title")
		f.Add([]byte(s), "a")
	}
	f.Fuzz(func(t *testing.T, obj []byte, key string) {
		has := HasKey(obj, key)
		last, lok := LookupLast(obj, key)
		parsed, _, err := KeepLastKeys(obj) // a key named twice is valid here
		if err != nil {
			return
		}
		if _, ok := Lookup(obj, key); has != ok {
			t.Fatalf("HasKey(%q, %q) = %v, Lookup says %v", obj, key, has, ok)
		}
		want, wok := Lookup(parsed, key)
		if lok { // the keys named twice inside it are dropped from want
			last, _, _ = KeepLastKeys(last)
		}
		if lok != wok || !bytes.Equal(last, want) {
			t.Fatalf("LookupLast(%q, %q) = %q %v, Lookup of KeepLastKeys %q %v", obj, key, last, lok, want, wok)
		}
	})
}
