package edge

import (
	"crypto/sha256"
	"encoding/hex"
	"github.com/sessiontree/sessiontree/core"
)

// maxIdemKeyLen bounds an Idempotency-Key (a UUID is 36 bytes).
const maxIdemKeyLen = 255

// readWrite reads a write's body and begins its Idempotency-Key (beginIdem):
// done when the answer kept for the key was sent, ae when either refused.
func (h *Handler) readWrite(q *request) (body []byte, done bool, ae *apiError) {
	if body, ae = h.readBody(q); ae != nil {
		return nil, false, ae
	}
	done, ae = h.beginIdem(q, body)
	return body, done, ae
}

// beginIdem looks at q's Idempotency-Key, if it has one. A key already kept
// for this tenant is answered here with the kept answer (done), or refused if
// it was kept for another request; a new one is set on q, to be stored with
// the write (q.keep).
func (h *Handler) beginIdem(q *request, body []byte) (done bool, ae *apiError) {
	key := q.r.Header.Get("Idempotency-Key")
	if key == "" {
		return false, nil
	}
	if len(key) > maxIdemKeyLen {
		return false, errTooLarge("the Idempotency-Key is " + itoa(len(key)) + " bytes; it may have at most " + itoa(maxIdemKeyLen))
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x21 || c > 0x7e {
			return false, errInput("an Idempotency-Key is printable ASCII without spaces (a UUID, say)")
		}
	}
	sum := sha256.New()
	target := q.r.URL.Path
	if q.r.URL.RawQuery != "" {
		// The query is the request's too (a create's ?format=): without it,
		// an import sent as another format with the key of the first was
		// answered the first's tree. Kept keys of requests without one keep
		// their fingerprints.
		target += "?" + q.r.URL.RawQuery
	}
	sum.Write([]byte(q.r.Method + " " + target + "\n"))
	for rest := body; len(rest) > 0; {
		n := min(len(rest), 64<<10)
		sum.Write(rest[:n]) // in pieces: a body of megabytes is hashed in slices
		core.TickBytes(n)
		rest = rest[n:]
	}
	q.idem = &Idem{Key: key, Fingerprint: hex.EncodeToString(sum.Sum(nil))}
	return h.replay(q)
}

// replay answers q with the kept answer of its key, if there is one.
func (h *Handler) replay(q *request) (bool, *apiError) {
	kept, ok, err := h.store.Replay(q.ctx, q.tenant, q.idem.Key)
	if err != nil {
		return false, storeError("", err)
	}
	if !ok || h.now()-kept.CreatedMs > IdemKeepMs {
		return false, nil
	}
	if kept.Fingerprint != q.idem.Fingerprint {
		return false, errf(statusUnprocessableEntity, "invalid_input",
			"this Idempotency-Key was used for another request (another route or body); use a new key for a new write")
	}
	hdr := q.w.Header()
	if kept.ETag != "" {
		hdr.Set("ETag", kept.ETag)
	}
	if kept.Location != "" {
		hdr.Set("Location", kept.Location)
	}
	hdr.Set("Idempotent-Replayed", "true")
	if len(kept.Body) == 0 {
		q.w.WriteHeader(kept.Status)
		return true, nil
	}
	writeJSON(q.w, kept.Status, kept.Body)
	return true, nil
}

// keep returns the Idem to store with a write that answers status, etag,
// location and body, or nil if q has no Idempotency-Key.
func (h *Handler) keep(q *request, status int, etag, location string, body []byte) *Idem {
	if q.idem == nil {
		return nil
	}
	k := *q.idem
	k.Status, k.ETag, k.Location, k.Body, k.CreatedMs = status, etag, location, body, h.now()
	return &k
}

// afterFailedWrite answers a write whose store call failed: if its key was
// stored meanwhile (the same request, sent twice at once, won), with the kept
// answer; otherwise with ae.
func (h *Handler) afterFailedWrite(q *request, ae *apiError) *apiError {
	if q.idem != nil {
		if done, ae2 := h.replay(q); done || ae2 != nil {
			return ae2
		}
	}
	return ae
}
