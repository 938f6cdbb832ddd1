package edge

import (
	"bytes"
	"strconv"

	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Writes over a live socket. A client that holds the tree's live WebSocket
// (GET /v1/trees/{id}/live) may send its writes on it instead of over HTTP:
// one message into the tree's object, no hop through the router. A write is
//
//	{"type":"write","id":"r1","route":"ops","if_match":"\"3-…\"","idempotency_key":"k1","body":{"ops":[…]}}
//
// ("route": "ops", "merge" or "delta"; "id" is the client's name for the write, up to
// 64 characters, echoed in its ack; "if_match" and "idempotency_key" are
// optional and mean what the headers mean over HTTP), answered on the same
// socket, in order, by
//
//	{"type":"ack","id":"r1","status":200,"etag":"\"4-…\"","body":{…}}
//
// where status and body are those the same write would get over HTTP (an
// error is {"error":{"code","message"}} with its status: 412 with the current
// "etag", 413, 429 with "retry_after" seconds, …), and "replayed":true marks
// an answer kept for its Idempotency-Key. The socket was authenticated when
// it opened; a socket whose token expired is closed (CloseTokenExpired)
// instead of answered. The write's change is pushed to every other live
// client as over HTTP.

// MaxSocketMessage is the largest write message a socket takes (the
// platform's WebSocket message limit, 1 MiB); a larger write goes over HTTP.
const MaxSocketMessage = 1 << 20

// socketRoutes are the routes a socket write may name.
var socketRoutes = map[string]bool{"ops": true, "merge": true, "delta": true}

// SocketWrite is a write message read from a live socket: the request it
// stands for, to be served by the tree's object, and the client's id of it.
type SocketWrite struct {
	ID  string
	Req *Request
}

// ReadSocketWrite reads msg, a message of a live socket of tree (the tree's
// URL, https://host/v1/trees/{id}) opened by tenant as client (its ?client=,
// or ""), as the request the object serves. A message that is not a valid
// write gets its ack at once (ack != nil): a 400 or 413 naming what is wrong.
func ReadSocketWrite(msg []byte, tree, tenant, client string) (w SocketWrite, ack []byte) {
	if len(msg) > MaxSocketMessage {
		return w, SocketError("", errTooLarge("a socket message may have at most "+itoa(MaxSocketMessage)+
			" bytes; send a larger write over HTTP"))
	}
	// The envelope's own keys are checked below; its "body" is checked by
	// the route it is served by (checkJSON), so that its 400 is acked under
	// the write's id.
	if _, err := rawjson.Compact(nil, msg); err != nil || len(msg) == 0 || bytes.TrimSpace(msg)[0] != '{' {
		if err == nil {
			return w, SocketError("", errInput("a socket message is a JSON object"))
		}
		return w, SocketError("", errBadJSON("the message", err))
	}
	var typ, route, ifMatch, key string
	var body []byte
	seen := map[string]bool{}
	d := rawjson.NewDecoder(msg)
	err := d.Object(func(k string) error {
		if seen[k] {
			return errInput("the message names " + quote(k) + " twice; send each key once")
		}
		seen[k] = true
		var err error
		switch k {
		case "type":
			typ, err = d.String()
		case "id":
			w.ID, err = d.String()
		case "route":
			route, err = d.String()
		case "if_match":
			ifMatch, err = d.String()
		case "idempotency_key":
			key, err = d.String()
		case "body":
			body, err = d.Raw()
		default:
			err = d.Skip()
		}
		if err != nil {
			return errInput("the message's " + quote(k) + ": " + err.Error())
		}
		return nil
	})
	if len(w.ID) > 64 {
		w.ID = ""
		return w, SocketError("", errInput(`"id" names a write in at most 64 bytes`))
	}
	switch {
	case err != nil:
		return w, SocketError(w.ID, fromCore(err))
	case typ != "write":
		return w, SocketError(w.ID, errInput(`a socket message is {"type":"write",…}; got type `+quote(typ)))
	case !socketRoutes[route]:
		return w, SocketError(w.ID, errInput(`"route" is "ops", "merge" or "delta"; got `+quote(route)))
	case body == nil:
		return w, SocketError(w.ID, errInput(`a write message carries its request's JSON in "body"`))
	}
	req, rerr := NewRequest(methodPost, tree+"/"+route, body)
	if rerr != nil {
		return w, SocketError(w.ID, errInput("the socket's tree URL: "+rerr.Error()))
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderTenant, tenant)
	req.Header.Set(headerSocket, "1")
	if ifMatch != "" {
		req.Header.Set("If-Match", ifMatch)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	if client != "" {
		req.Header.Set(ClientHeader, client)
	}
	w.Req = req
	return w, nil
}

// SocketAck is the ack of the write id that got the HTTP answer status, h, body.
func SocketAck(id string, status int, h Header, body []byte) []byte {
	buf := append(make([]byte, 0, len(body)+96), `{"type":"ack","id":`...)
	buf = rawjson.AppendString(buf, id)
	buf = append(buf, `,"status":`...)
	buf = strconv.AppendInt(buf, int64(status), 10)
	if etag := h.Get("ETag"); etag != "" {
		buf = append(buf, `,"etag":`...)
		buf = rawjson.AppendString(buf, etag)
	}
	if h.Get("Idempotent-Replayed") == "true" {
		buf = append(buf, `,"replayed":true`...)
	}
	if ra, err := strconv.ParseInt(h.Get("Retry-After"), 10, 64); err == nil {
		buf = append(buf, `,"retry_after":`...)
		buf = strconv.AppendInt(buf, ra, 10)
	}
	if b := bytes.TrimSpace(body); len(b) > 0 && rawjson.Valid(b) {
		buf = append(buf, `,"body":`...)
		buf = append(buf, b...)
	}
	return append(buf, '}')
}

// SocketError is the ack of write id refused with e.
func SocketError(id string, e *apiError) []byte {
	rec := NewRecorder()
	writeError(rec, e)
	return SocketAck(id, rec.status, rec.header, rec.Bytes())
}

// Throttle takes one request of tenant from the Handler's rate limit (a
// router's): 0 if it may go on, else the seconds to wait (a 429).
func (h *Handler) Throttle(tenant string) int64 {
	if h == nil || h.limiter == nil {
		return 0
	}
	if wait := h.limiter.take(tenant, h.now()); wait > 0 {
		return (wait + 999) / 1000
	}
	return 0
}

// SocketThrottled is the ack of write id refused by the rate limit (Throttle).
func SocketThrottled(id string, retryAfter int64) []byte {
	rec := NewRecorder()
	rec.Header().Set("Retry-After", strconv.FormatInt(retryAfter, 10))
	writeError(rec, errf(statusTooManyRequests, "rate_limited",
		"too many requests for this tenant; try again in "+strconv.FormatInt(retryAfter, 10)+" s"))
	return SocketAck(id, rec.status, rec.header, rec.Bytes())
}

// ServeSocket serves a write message of a live socket (ReadSocketWrite) on
// an object's Handler and returns its ack, and the answer's headers, where
// the glue finds HeaderNext and HeaderHold as over HTTP: a write held for an
// earlier writer's turn (turns.go) has no ack yet, and is served again later
// with heldMs, the milliseconds it has waited, and turn, its place in line
// (HeaderTurn). router, if not nil, is the rate limit the write passes
// first, as over HTTP.
func (h *Handler) ServeSocket(router *Handler, msg []byte, tree, tenant, client string, heldMs int64, turn, grant string) ([]byte, Header) {
	w, ack := ReadSocketWrite(msg, tree, tenant, client)
	if ack != nil {
		return ack, Header{}
	}
	if grant != "" {
		w.Req.Header.Set(HeaderGrant, grant)
	}
	if heldMs == 0 {
		if wait := router.Throttle(tenant); wait > 0 {
			return SocketThrottled(w.ID, wait), Header{}
		}
	} else {
		w.Req.Header.Set(HeaderHeld, strconv.FormatInt(heldMs, 10))
	}
	if turn != "" {
		w.Req.Header.Set(HeaderTurn, turn)
	}
	rec := NewRecorder()
	h.Serve(rec, w.Req)
	if rec.header.Get(HeaderHold) != "" {
		return nil, rec.header
	}
	return SocketAck(w.ID, rec.status, rec.header, rec.Bytes()), rec.header
}

// Recorder is the ResponseWriter of a call served inside the worker (an
// object's call, a router's, a socket write; net/http/httptest is for tests).
// A body written in one Write is kept as given, not copied: the Handler never
// changes a slice it wrote (an export's bytes are its cache's).
type Recorder struct {
	header Header
	status int
	wrote  bool
	one    []byte
	body   bytes.Buffer
}

// NewRecorder is a Recorder of a 200 answer with no headers yet.
func NewRecorder() *Recorder { return &Recorder{header: Header{}, status: statusOK} }

// Status is the answer's status.
func (r *Recorder) Status() int { return r.status }

// Bytes is the answer's body.
func (r *Recorder) Bytes() []byte {
	if r.body.Len() == 0 {
		return r.one
	}
	return r.body.Bytes()
}

func (r *Recorder) Header() Header { return r.header }
func (r *Recorder) WriteHeader(s int) {
	if !r.wrote {
		r.status, r.wrote = s, true
	}
}
func (r *Recorder) Write(p []byte) (int, error) {
	r.WriteHeader(statusOK)
	if r.one == nil && r.body.Len() == 0 {
		r.one = p
		return len(p), nil
	}
	if r.one != nil {
		r.body.Write(r.one)
		r.one = nil
	}
	return r.body.Write(p)
}
