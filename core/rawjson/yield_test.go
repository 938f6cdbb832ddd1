package rawjson

import (
	"bytes"
	"testing"
)

// A scan of a large value (a body of megabytes) calls the yield function
// every yieldBytes, so that a single-threaded host can run others meanwhile.
func TestALongScanYieldsEveryFewHundredKilobytes(t *testing.T) {
	calls := 0
	SetYield(func() { calls++ })
	defer SetYield(nil)
	item := []byte(`{"role":"user","content":"` + string(bytes.Repeat([]byte("x"), 1000)) + `"},`)
	body := append([]byte(`{"messages":[`), bytes.Repeat(item, 4096)...) // ~4 MiB
	body = append(body[:len(body)-1], "]}"...)
	if _, err := CompactUnique(nil, body); err != nil {
		t.Fatal(err)
	}
	if want := len(body) / yieldBytes; calls < want-1 {
		t.Fatalf("a scan of %d bytes called yield %d times, want about %d", len(body), calls, want)
	}
}

// A lookup that skips a large value (the messages of a create, to find a key
// after them) yields as a scan does: it held the isolate 65 ms in one piece
// for a 5.6 MB body (issue 25).
func TestALookupPastALargeValueYields(t *testing.T) {
	calls := 0
	SetYield(func() { calls++ })
	defer SetYield(nil)
	item := []byte(`{"role":"user","content":"` + string(bytes.Repeat([]byte("x"), 1000)) + `"},`)
	body := append([]byte(`{"messages":[`), bytes.Repeat(item, 4096)...) // ~4 MiB
	body = append(body[:len(body)-1], `],"title":"t"}`...)
	if v, ok := Lookup(body, "title"); !ok || string(v) != `"t"` {
		t.Fatalf("Lookup past the messages: %q %v", v, ok)
	}
	if want := len(body) / yieldBytes; calls < want-1 {
		t.Fatalf("a lookup past %d bytes called yield %d times, want about %d", len(body), calls, want)
	}
}
