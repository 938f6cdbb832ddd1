package edge

import "sync"

// Pacer shares out what a tenant may do per second in an isolate without
// refusing it: work over its rate is not dropped but delayed. The worker
// paces a tenant's fan-out (the frames one write sends to the live sockets
// of its tree) and the live sockets it opens (issue 25: 2,000 sockets on one
// tree, and each write then sending a frame to each, slowed every other
// tenant of the isolate 7-10x). A key's allowance is rate units a second
// and a burst of Burst seconds' worth: work within the burst goes at once.
// Safe for concurrent use.
type Pacer struct {
	mu   sync.Mutex
	owed map[string]*paced
}

type paced struct {
	owed float64 // units beyond the allowance (< 0: burst left)
	at   int64   // ms
}

// PaceBurst is how many seconds of its rate a key may spend at once.
const PaceBurst = 0.25

// pacerKeys is how many keys a Pacer keeps before it forgets idle ones.
const pacerKeys = 10_000

// Delay counts n units of key's work at nowMs (milliseconds) under rate units
// a second and returns how many milliseconds to wait before doing them: 0
// while the key has burst left. rate <= 0 paces nothing. The units are
// counted when asked: a caller that waits the answer and then does the work
// keeps the key at its rate whatever the size of each piece.
func (p *Pacer) Delay(key string, n int, rate float64, nowMs int64) int64 {
	if rate <= 0 || n <= 0 {
		return 0
	}
	burst := rate * PaceBurst
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.owed == nil {
		p.owed = map[string]*paced{}
	}
	if len(p.owed) > pacerKeys {
		for k, b := range p.owed {
			if b.owed-float64(nowMs-b.at)*rate/1000 <= -burst {
				delete(p.owed, k)
			}
		}
	}
	b := p.owed[key]
	if b == nil {
		b = &paced{owed: -burst, at: nowMs}
		p.owed[key] = b
	}
	if nowMs > b.at {
		b.owed = max(-burst, b.owed-float64(nowMs-b.at)*rate/1000)
		b.at = nowMs
	}
	b.owed += float64(n)
	if b.owed <= 0 {
		return 0
	}
	return int64(b.owed*1000/rate) + 1
}
