package treecalls

import (
	"slices"
	"strings"
	"testing"
)

// lines splits a line list as strings.Split does (which the lean module no
// longer links), and its strings do not share the input buffer's bytes.
func FuzzLinesSplitsAsStringsSplit(f *testing.F) {
	for _, s := range []string{"", "\n", "a", "a\nb", "a\n", "\na", "a\n\nb\n", "é\n漢字"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got := lines(b)
		if want := strings.Split(string(b), "\n"); !slices.Equal(got, want) {
			t.Fatalf("lines(%q) = %q, want %q", b, got, want)
		}
		before := slices.Clone(got)
		clear(b) // the input buffer reused by the next call
		if !slices.Equal(got, before) {
			t.Fatalf("lines(%q) shares the input's bytes", before)
		}
	})
}
