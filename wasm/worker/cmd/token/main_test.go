package main

import (
	"testing"
	"time"

	"github.com/sessiontree/sessiontree/wasm/edge"
)

// The flag says at most 24h: a longer or a non-positive ttl printed a token
// that the worker refused on every request (401).
func TestATTLTheWorkerWouldRefuseIssuesNoToken(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	now := time.Unix(1_800_000_000, 0)
	for _, ttl := range []time.Duration{25 * time.Hour, 24*time.Hour + time.Second, 0, -time.Hour} {
		if tok, err := issue(key, "alice", ttl, now); err == nil {
			t.Errorf("ttl %v: issued %q, want an error", ttl, tok)
		}
	}
	for _, ttl := range []time.Duration{time.Second, 12 * time.Hour, 24 * time.Hour} {
		tok, err := issue(key, "alice", ttl, now)
		if err != nil {
			t.Fatalf("ttl %v: %v", ttl, err)
		}
		if tenant, err := edge.VerifyToken(key, tok, now.Unix()); err != nil || tenant != "alice" {
			t.Errorf("ttl %v: the worker's check says %q, %v", ttl, tenant, err)
		}
	}
}
