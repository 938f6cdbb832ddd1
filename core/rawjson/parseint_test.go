package rawjson

import (
	"strconv"
	"testing"
)

// ParseInt, ParseUint and Atoi answer as strconv's do, on edge cases and on
// whatever the fuzzer finds.
func TestParseIntAsStrconv(t *testing.T) {
	cases := []string{"", "0", "00", "7", "+7", "-7", "+", "-", "--1", "+-1", " 1", "1 ", "1_0", "0x10", "1e3", "12a",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
		"18446744073709551615", "18446744073709551616", "99999999999999999999", "4294967295", "4294967296", "٣"}
	for _, s := range cases {
		checkParse(t, s)
	}
}

func FuzzParseInt(f *testing.F) {
	for _, s := range []string{"0", "-12", "18446744073709551616", "+3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkParse(t, s) })
}

func checkParse(t *testing.T, s string) {
	t.Helper()
	wi, werr := strconv.ParseInt(s, 10, 64)
	if gi, ok := ParseInt(s); ok != (werr == nil) || (ok && gi != wi) {
		t.Errorf("ParseInt(%q) = %d, %v; strconv: %d, %v", s, gi, ok, wi, werr)
	}
	for _, bits := range []int{32, 64} {
		wu, werr := strconv.ParseUint(s, 10, bits)
		if gu, ok := ParseUint(s, bits); ok != (werr == nil) || (ok && gu != wu) {
			t.Errorf("ParseUint(%q, %d) = %d, %v; strconv: %d, %v", s, bits, gu, ok, wu, werr)
		}
	}
	wa, werr := strconv.Atoi(s)
	if ga, ok := Atoi(s); ok != (werr == nil) || (ok && ga != wa) {
		t.Errorf("Atoi(%q) = %d, %v; strconv: %d, %v", s, ga, ok, wa, werr)
	}
}
