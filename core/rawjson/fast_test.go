package rawjson

import "testing"

// FuzzFastHelpers: what PlainString, PlainInt and CompactValue accept, the
// Decoder reads to the same value and end; they never accept what it refuses.
func FuzzFastHelpers(f *testing.F) {
	for _, s := range []string{`"abc"`, `""`, `"a\"b"`, `"é"`, "\"\x7f\"", `0`, `-0`, `01`, `-12,`, `1.5`, `1e3`,
		`123456789012345678`, `1234567890123456789`, `{"a":[1,true]}`, `{ "a":1}`, `[1,]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if s, end, ok := PlainString(data, 0); ok {
			d := NewDecoder(data)
			v, err := d.StringView()
			if err != nil || v != s || d.Pos() != end {
				t.Fatalf("PlainString %q, %d; StringView %q, %d, %v", s, end, v, d.Pos(), err)
			}
			for i := 0; i < len(s); i++ {
				if s[i] < 0x20 || s[i] >= 0x7f {
					t.Fatalf("PlainString accepted byte %#x", s[i])
				}
			}
		}
		if v, end, ok := PlainInt(data, 0); ok {
			d := NewDecoder(data)
			w, err := d.Int64()
			if err != nil || v != w || d.Pos() != end {
				t.Fatalf("PlainInt %d, %d; Int64 %d, %d, %v", v, end, w, d.Pos(), err)
			}
		}
		if end, ok := CompactValue(data, 0); ok {
			d := NewDecoder(data)
			raw, err := d.Raw()
			if err != nil || string(raw) != string(data[:end]) || d.Pos() != end {
				t.Fatalf("CompactValue %d; Raw %q, %v", end, raw, err)
			}
		}
	})
}
