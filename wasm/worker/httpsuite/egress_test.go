//go:build !js

package httpsuite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// A tenant's large answers leave at SESSIONTREE_EGRESS_RATE once its burst (a
// quarter second's worth) is spent, byte for byte the same as unpaced, and
// another tenant's large answer meanwhile is paced by its own allowance, not
// by the first tenant's debt. Run on a worker of its own (limitedServer), at 1 MiB/s.
func TestATenantsLargeAnswersArePacedAndNoOtherTenantWaitsForThem(t *testing.T) {
	const rate = 1 << 20
	s := limitedServer(t)

	get := func(tok, path string) ([]byte, error) {
		req, _ := http.NewRequest("GET", s.URL+path, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := httpClient.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err == nil && resp.StatusCode != 200 {
			err = fmt.Errorf("status %d: %.300s", resp.StatusCode, b)
		}
		return b, err
	}
	// A tree of 600 messages of 1,000 characters: an export of ~0.6 MB, in
	// three slices.
	create := func(tok string) string {
		var b strings.Builder
		b.WriteString(`{"messages":[`)
		for i := 0; i < 600; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"role":"user","content":"%04d %s"}`, i, strings.Repeat("x", 995))
		}
		b.WriteString(`]}`)
		req, _ := http.NewRequest("POST", s.URL+"/v1/trees", strings.NewReader(b.String()))
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := httpClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 201 {
			t.Fatalf("create: %d %.300s", resp.StatusCode, body)
		}
		return (reply{resp.StatusCode, resp.Header, body}).object(t)["id"].(string)
	}
	alice, bob := token(t, "egress-alice"), token(t, "egress-bob")
	aliceTree, bobTree := create(alice), create(bob)
	const export = "/export?format=openai"

	// Alice asks for 8 exports at once: ~4.8 MB, all but her 256 KiB burst
	// paced at 1 MiB/s, so the last arrives no sooner than ~4.3 s.
	start := time.Now()
	var wg sync.WaitGroup
	bodies := make([][]byte, 8)
	errs := make([]error, 8)
	for i := range bodies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bodies[i], errs[i] = get(alice, "/v1/trees/"+aliceTree+export)
		}()
	}
	// Bob's export meanwhile: ~0.6 MB on his own allowance (~0.35 s paced);
	// on Alice's it would wait for all of hers.
	time.Sleep(300 * time.Millisecond)
	bobStart := time.Now()
	bobBody, err := get(bob, "/v1/trees/"+bobTree+export)
	bobTook := time.Since(bobStart)
	if err != nil {
		t.Fatalf("bob's export: %v", err)
	}
	wg.Wait()
	aliceTook := time.Since(start)
	total := 0
	for i, b := range bodies {
		if errs[i] != nil {
			t.Fatalf("alice's export %d: %v", i, errs[i])
		}
		if !bytes.Equal(b, bodies[0]) {
			t.Fatalf("alice's export %d differs from her first (%d vs %d bytes)", i, len(b), len(bodies[0]))
		}
		total += len(b)
	}
	if len(bodies[0]) < 2*256*1024 || len(bobBody) < 2*256*1024 {
		t.Fatalf("the exports are %d and %d bytes: too small to be paced", len(bodies[0]), len(bobBody))
	}
	// The rate bounds from below how soon her bytes can all have left.
	least := time.Duration(float64(total-rate/4) / rate * float64(time.Second))
	if aliceTook < least*9/10 {
		t.Errorf("alice's %d bytes arrived in %v: faster than 1 MiB/s after the burst allows (%v)", total, aliceTook, least)
	}
	if bobTook > 2*time.Second || bobTook > aliceTook/2 {
		t.Errorf("bob's export took %v while alice's took %v: he waited for her allowance", bobTook, aliceTook)
	}
	t.Logf("alice: 8 exports, %d bytes in %v (least %v); bob: %d bytes in %v", total, aliceTook.Round(time.Millisecond),
		least.Round(time.Millisecond), len(bobBody), bobTook.Round(time.Millisecond))

	// The paced bytes are the whole export: the 600 messages, in order.
	var msgs []struct{ Role, Content string }
	if err := json.Unmarshal(bodies[0], &msgs); err != nil || len(msgs) != 600 {
		t.Fatalf("the paced export: %v, %d messages", err, len(msgs))
	}
	for i, m := range msgs {
		if m.Role != "user" || m.Content != fmt.Sprintf("%04d %s", i, strings.Repeat("x", 995)) {
			t.Fatalf("the paced export's message %d: %q %.40q", i, m.Role, m.Content)
		}
	}
}
