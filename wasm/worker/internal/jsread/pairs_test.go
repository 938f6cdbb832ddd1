package jsread

import (
	"slices"
	"testing"
)

// Headers packed into one string come out as they went in, in order, empty
// values and all; a line break in a value becomes a space (a header cannot
// hold one); a name without its value is an error.
func TestHeadersPackedIntoOneStringUnpackAsTheyWere(t *testing.T) {
	in := [][2]string{{"Content-Type", "application/json"}, {"x-sessiontree-tenant", "alice"}, {"Empty", ""}, {"ETag", `"3-abc"`}, {"set-cookie", "a=1"}, {"set-cookie", "b=2"}}
	var b []byte
	for _, p := range in {
		b = Pack(b, p[0], p[1])
	}
	var out [][2]string
	if err := Unpack(string(b), func(k, v string) { out = append(out, [2]string{k, v}) }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(in, out) {
		t.Fatalf("unpacked %q, packed %q", out, in)
	}
	out = nil
	if err := Unpack("", func(k, v string) { out = append(out, [2]string{k, v}) }); err != nil || out != nil {
		t.Fatalf("no headers: %q %v", out, err)
	}
	out = nil
	if err := Unpack(string(Pack(nil, "A", "x\r\ny")), func(k, v string) { out = append(out, [2]string{k, v}) }); err != nil || len(out) != 1 || out[0] != [2]string{"A", "x  y"} {
		t.Fatalf("a line break in a value: %q %v", out, err)
	}
	if err := Unpack("A\n1\nB", func(string, string) {}); err == nil {
		t.Fatal("a name without a value was unpacked")
	}
}
