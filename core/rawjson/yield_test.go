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
