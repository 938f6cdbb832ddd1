package edge

import (
	"strconv"
	"strings"
	"sync"
)

// Turns for writers who lost. Writers that append with If-Match and read the
// tree again after a 412 do not get equal chances on their own: the writer
// whose write just went in has the new ETag in its answer and writes again at
// once, while each loser needs a 412, a read and a write, and finds the ETag
// moved on again. Measured on one tree, 5 to 9 of 32 such writers got any
// write in over 20 s. A tree's object (RoleObject) therefore keeps a line of
// the writers that lost or waited, by the client name they send
// (ClientHeader), in the order they joined. Only the head of the line is
// served: its 412 comes at once (it reads and writes again, and its write goes
// in); every other If-Match write is held, in the glue, without an answer,
// until it is the head or HoldMaxMs passed (then it is evaluated as usual and
// keeps its place). A head that does not write within grantMs of its 412 went
// away and loses its place. If-Match keeps its meaning (a write is applied
// only at the ETag it names); the line decides who gets the next version.
//
// A writer needs no name to have a place: a plain HTTP client that knows
// nothing of ClientHeader takes its place when its If-Match write first
// reaches the object (a place "#n", counted), first come, first served. A
// held write keeps its place while the glue asks again (HeaderTurn on the
// call). A writer's place survives its 412 and the read after it: the head's
// 412 carries the tree's ETag with the place as a ticket ("7-3fa2…~12"),
// and so does the first read of the tree (GET) within grantMs after it, the
// one the head makes; If-Match with that ETag matches the tree's version
// whatever the ticket, and names the place. Other reads answer the plain
// ETag. A name (ClientHeader) only makes the place independent of reads.

// HeaderHold on an object's answer asks the glue to call again with the same
// request after that many milliseconds, or as soon as a write of the tree
// names this request's client in HeaderNext (the head of the line, whose
// turn it is); HeaderHeld on the call says how long the request has been
// held so far.
const (
	HeaderHold = "X-Sessiontree-Hold"
	HeaderHeld = "X-Sessiontree-Held"
	HeaderNext = "X-Sessiontree-Next"
	// HeaderTurn on a held answer is the writer's place in line (its name
	// or "#n"), which a later HeaderNext names; the glue sends it back on
	// the calls that ask again.
	HeaderTurn = "X-Sessiontree-Turn"
	// headerSocket marks a write that came on a live socket (ServeSocket):
	// its 412 carries the plain ETag, as its ack always did.
	headerSocket = "X-Sessiontree-Socket"
)

const (
	// HoldMaxMs is the longest a write is held for the writers before it in
	// line (128 writers on one tree take about that for a round); it is then
	// answered (a 412 if the ETag moved meanwhile) and the writer keeps its
	// place.
	HoldMaxMs = 10_000
	// holdStepMs is how long the glue waits before it asks again when no
	// write names the request's place next: a writer is woken when it is,
	// and asks again after holdStepMs anyway, so that a head that went away
	// (its grant passed, see grantMs) holds the line for about that long,
	// not HoldMaxMs.
	holdStepMs = 2_000
	// grantMs is how long the head of the line has for its read and its
	// write after it was told its turn (a 412): a writer that went away
	// loses its place then, and holds the others no longer.
	grantMs = 1500
	// turnKeepMs is how long a writer keeps its place after it was last
	// seen (a 412, or a held write asked again).
	turnKeepMs = 3 * HoldMaxMs
	// maxLosers bounds the line.
	maxLosers = 4096
)

// loser is a writer in line: its place (the order it joined in), its first
// 412 since its last write that went in, its last 412, and when it was told
// it is the head (0: not yet).
type loser struct{ seq, first, last, grant int64 }

// turns is the line of writers who lost. An object in the worker serves one
// request at a time, but the package runs natively too, where a Handler
// serves requests concurrently: mu is held for each whole decision
// (precondition, wonTurn), which reads and changes the line in several
// steps. The line is ordered by when each
// writer joined, counted, not timed: the clock does not move while an object
// runs (workerd holds it during a synchronous call, and a group of writes is
// one call), so writers that join at the same millisecond must not be
// ordered by name — a newcomer named earlier in the alphabet would take the
// head's place after the head was told its turn, and nobody would wake it.
type turns struct {
	mu     sync.Mutex
	losers map[string]loser
	next   int64 // the place of the next writer to join

	tickets int64  // the last ticket given with a read
	owed    string // the anonymous head ("#ticket") told its turn, whose read has not come yet
	owedAt  int64  // when it was told
}

func newTurns() *turns { return &turns{losers: map[string]loser{}} }

// lost records a 412 for client c at now.
func (t *turns) lost(c string, now int64) {
	if c == "" {
		return
	}
	l, ok := t.losers[c]
	if !ok || now-l.last > turnKeepMs {
		if !ok && len(t.losers) >= maxLosers {
			t.head(now) // drops the expired
			if len(t.losers) >= maxLosers {
				return
			}
		}
		t.next++
		l = loser{seq: t.next, first: now}
	}
	l.last = now
	t.losers[c] = l
}

// won records a write of client c that went in: its turn is over.
func (t *turns) won(c string) { delete(t.losers, c) }

// head is the writer whose turn it is: the earliest loser, after dropping
// the expired and a head that let its grant pass.
func (t *turns) head(now int64) string {
	for {
		best, seq := "", int64(1<<63-1)
		for c, l := range t.losers {
			if now-l.last > turnKeepMs {
				delete(t.losers, c)
				continue
			}
			if l.seq < seq {
				best, seq = c, l.seq
			}
		}
		if best == "" {
			return ""
		}
		if l := t.losers[best]; l.grant != 0 && now-l.grant > grantMs {
			delete(t.losers, best) // went away: it joins again at the end on its next 412
			continue
		}
		return best
	}
}

// granted notes that the head c was told its turn (its 412) at now.
func (t *turns) granted(c string, now int64) {
	if l, ok := t.losers[c]; ok && l.grant == 0 {
		l.grant = now
		t.losers[c] = l
	}
}

// ticketSep separates an ETag's ticket from the ETag, inside its quotes.
const ticketSep = '~'

// splitTicket returns etag without its ticket, and the ticket (0: none).
func splitTicket(etag string) (string, int64) {
	i := strings.LastIndexByte(etag, ticketSep)
	if i < 0 || !strings.HasSuffix(etag, `"`) {
		return etag, 0
	}
	n, err := strconv.ParseInt(etag[i+1:len(etag)-1], 10, 64)
	if err != nil || n <= 0 {
		return etag, 0
	}
	return etag[:i] + `"`, n
}

// withTicket is etag (quoted) carrying ticket n.
func withTicket(etag string, n int64) string {
	return strings.TrimSuffix(etag, `"`) + string(ticketSep) + strconv.FormatInt(n, 10) + `"`
}

// turnKey is the place in line of q's writer: the one the glue says it
// holds (HeaderTurn), its name, "#n" from the ticket of the ETag its
// If-Match names, or "" (none yet).
func turnKey(q *request) string {
	if c := q.r.Header.Get(HeaderTurn); c != "" {
		return c
	}
	if c := WriterClient(q.r); c != "" {
		return c
	}
	for _, part := range strings.Split(q.r.Header.Get("If-Match"), ",") {
		if _, n := splitTicket(strings.TrimPrefix(strings.TrimSpace(part), "W/")); n > 0 {
			return "#" + strconv.FormatInt(n, 10)
		}
	}
	return ""
}

// readETag is the ETag to send with a read of the tree to q: the plain
// one, or with the head's place as its ticket for the first read after the
// head's 412 (see above), when q's client has no name.
func (h *Handler) readETag(q *request, etag string) string {
	if h.turns == nil || q.r.Header.Get(HeaderTenant) == "" || WriterClient(q.r) != "" {
		return etag
	}
	t := h.turns
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.owed == "" || h.now()-t.owedAt > grantMs {
		return etag
	}
	n, _ := strconv.ParseInt(t.owed[1:], 10, 64)
	t.owed = ""
	return withTicket(etag, n)
}

// precondition checks a write's If-Match against the tree's ETag. Without
// turns (or without If-Match) it is the plain check: 412 on a mismatch. An
// object's turns add holds: a writer who is not the head of the line is
// held, whether its ETag is current (it would take the head's turn) or not
// (a 412 now would only send it to read and come back to be held again);
// the head gets its 412 at once, or its write goes in.
func (h *Handler) precondition(q *request, ifMatch, etag string) *apiError {
	if ifMatch == "" {
		return nil
	}
	match := etagListHas(ifMatch, etag)
	if h.turns == nil || q.r.Header.Get(HeaderTenant) == "" { // not reached through a router's glue
		if !match {
			return errStaleIfMatch(q, ifMatch, etag)
		}
		return nil
	}
	client := turnKey(q)
	now := h.now()
	held, _ := strconv.ParseInt(q.r.Header.Get(HeaderHeld), 10, 64)
	t := h.turns
	t.mu.Lock()
	defer t.mu.Unlock()
	if client == "" { // a writer without a name or a ticket: a place at the end
		t.tickets++
		client = "#" + strconv.FormatInt(t.tickets, 10)
	}
	q.turn = client
	head := t.head(now)
	if head != "" && head != client && held < HoldMaxMs {
		t.lost(client, now) // in line from its first wait
		q.w.Header().Set(HeaderHold, strconv.Itoa(holdStepMs))
		q.w.Header().Set(HeaderTurn, client)
		return errf(statusServiceUnavailable, "busy",
			"an earlier writer's turn: the tree's object holds this write for a moment")
	}
	if !match {
		t.lost(client, now)
		ae := errStaleIfMatch(q, ifMatch, etag)
		if t.head(now) == client {
			t.granted(client, now)
			n, err := strconv.ParseInt(strings.TrimPrefix(client, "#"), 10, 64)
			if err == nil && client[0] == '#' && q.r.Header.Get(headerSocket) == "" {
				// Its read comes next: it gets its place as a ticket (readETag).
				t.owed, t.owedAt = client, now
				q.w.Header().Set("ETag", withTicket(etag, n))
			}
		}
		return ae
	}
	return nil
}

// endTurn ends the turn of q's writer whose write was refused with ae
// (before its answer is written), as a write that went in ends it
// (answerWrite): a write refused for a missing branch, a body over a limit,
// a conflict, had its turn too. Only a refusal that keeps the writer's place
// does not: its 412 (it reads and writes again, as the head), a hold, or
// one the glue sends again with a larger grant (HeaderNeed). Before, a head
// whose write failed kept its place for turnKeepMs (30 s), or grantMs if it
// had lost once, and every other If-Match writer was held up to HoldMaxMs
// behind it.
func (h *Handler) endTurn(q *request, ae *apiError) {
	if h.turns == nil || ae == nil {
		return
	}
	if ae.status == statusPreconditionFailed || q.w.Header().Get(HeaderHold) != "" || q.w.Header().Get(HeaderNeed) != "" {
		return
	}
	h.wonTurn(q)
}

// wonTurn ends the turn of the client of q, whose write had its answer, and
// names the next head for the glue (HeaderNext).
func (h *Handler) wonTurn(q *request) {
	if h.turns == nil {
		return
	}
	h.turns.mu.Lock()
	defer h.turns.mu.Unlock()
	key := q.turn
	if key == "" {
		key = turnKey(q)
	}
	h.turns.won(key)
	if next := h.turns.head(h.now()); next != "" {
		q.w.Header().Set(HeaderNext, next)
	}
}
