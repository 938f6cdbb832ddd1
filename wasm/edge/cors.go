package edge

import (
	"sync"
)

// corsHeaders adds the CORS headers of an allowed Origin and reports whether
// it was one. A preflight (OPTIONS with Access-Control-Request-Method) also
// gets the methods and headers the API takes.
func (h *Handler) corsHeaders(w ResponseWriter, r *Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || len(h.cors) == 0 {
		return false
	}
	allowed := false
	for _, o := range h.cors {
		allowed = allowed || o == "*" || o == origin
	}
	hdr := w.Header()
	hdr.Add("Vary", "Origin")
	if !allowed {
		return false
	}
	hdr.Set("Access-Control-Allow-Origin", origin)
	hdr.Set("Access-Control-Expose-Headers", "ETag, Location, Retry-After, Idempotent-Replayed")
	if r.Method == methodOptions {
		hdr.Set("Access-Control-Allow-Methods", "GET, POST, DELETE")
		hdr.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key, Sessiontree-Client")
		hdr.Set("Access-Control-Max-Age", "600")
	}
	return true
}

// limiter is a token bucket per tenant: rate tokens a second, a burst of 2×rate
// and at least one request (under half a request a second, 2×rate is less
// than one token, which the bucket then never holds: every request was 429).
type limiter struct {
	mu      sync.Mutex
	rate    float64
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	at     int64 // ms
}

func newLimiter(rate float64) *limiter { return &limiter{rate: rate, buckets: map[string]*bucket{}} }

// take spends one token of tenant's bucket at nowMs and returns 0, or the
// milliseconds until one is there (nothing spent).
func (l *limiter) take(tenant string, nowMs int64) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	burst := max(1, 2*l.rate)
	b := l.buckets[tenant]
	if b == nil {
		if len(l.buckets) > 100_000 {
			l.buckets = map[string]*bucket{} // forget idle tenants rather than grow
		}
		b = &bucket{tokens: burst, at: nowMs}
		l.buckets[tenant] = b
	}
	b.tokens = min(burst, b.tokens+float64(nowMs-b.at)*l.rate/1000)
	b.at = nowMs
	if b.tokens >= 1 {
		b.tokens--
		return 0
	}
	return int64((1-b.tokens)*1000/l.rate) + 1
}
