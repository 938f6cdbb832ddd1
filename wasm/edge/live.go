package edge

import (
	"strconv"
	"strings"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// HeaderLive on an object's answer asks the platform glue to accept the
// request's WebSocket (hibernatable, on the tree's object), tagged with the
// value of HeaderClient if there is one, and send the answer's body as its
// first message.
const (
	HeaderLive   = "X-Sessiontree-Live"
	HeaderClient = "X-Sessiontree-Client"
)

// CloseTooManySockets is the WebSocket close code of a live socket refused
// because its tree or its tenant has as many live sockets as its limit
// (a browser cannot read an upgrade's HTTP status; it reads a close code).
// The glue counts the sockets and refuses them, before any call into Go
// (socketsOver in wasm/worker/glue/fanout.mjs; SESSIONTREE_MAX_SOCKETS_PER_TREE
// and SESSIONTREE_MAX_SOCKETS_PER_TENANT, 128 and 1,024 by default).
const CloseTooManySockets = 4029

// ClientHeader names the client a write comes from (the ?client= of its live
// socket): the write's change is pushed to every live socket but that
// client's, which knows it already.
const ClientHeader = "Sessiontree-Client"

// validClient reports whether s can name a live client: 1 to 64 of
// A-Z a-z 0-9 - _.
func validClient(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// WriterClient is the client a request names (ClientHeader), or "".
func WriterClient(r *Request) string {
	if c := r.Header.Get(ClientHeader); validClient(c) {
		return c
	}
	return ""
}

// MaxDelta is the largest change pushed whole to live clients (a WebSocket
// message may have 1 MiB); a larger one is pushed without its rows, marked
// "partial", and clients read the tree.
const MaxDelta = 900 << 10

// live answers GET /v1/trees/{id}/live: a WebSocket on which the tree's object
// pushes every accepted change (Delta). Only the objects serve it.
func (h *Handler) live(q *request, id string) *apiError {
	if h.role != RoleObject {
		return errf(statusNotImplemented, CodeNotImplemented,
			"live sync needs the Durable Object build of the worker; pull and push instead")
	}
	if !strings.EqualFold(q.r.Header.Get("Upgrade"), "websocket") {
		q.w.Header().Set("Upgrade", "websocket")
		return errf(statusUpgradeRequired, "upgrade_required",
			"the live route is a WebSocket: send Upgrade: websocket")
	}
	client := q.r.URL.Query().Get("client")
	if client != "" && !validClient(client) {
		return errInput(`"client" names a live client: 1 to 64 of A-Z a-z 0-9 - _`)
	}
	return h.read(q, id, func(_ *core.Tree, m Meta) *apiError {
		if client != "" {
			q.w.Header().Set(HeaderClient, client)
		}
		if exp, err := strconv.ParseInt(q.r.Header.Get(HeaderExpires), 10, 64); err == nil && exp > 0 {
			q.w.Header().Set(HeaderExpires, strconv.FormatInt(exp, 10))
		}
		buf := []byte(`{"type":"hello","id":`)
		buf = rawjson.AppendString(buf, m.ID)
		buf = append(buf, `,"etag":`...)
		buf = rawjson.AppendString(buf, m.ETag)
		buf = append(buf, `,"version":`...)
		buf = rawjson.AppendInt(buf, m.Version)
		buf = append(buf, '}')
		q.w.Header().Set(HeaderLive, "accept")
		writeJSON(q.w, statusOK, buf)
		return nil
	})
}

// Delta is the message pushed to live clients for a stored write:
// {"type":"change","id","etag","version","root","active","nodes":{id: node},
// "deleted_nodes":[…],"branches":{name: branch},"deleted_branches":[…]} with
// each node and branch as in .tree.json (one row each, as TakeChanges found
// them), or {"type":"deleted","id"}. Over max bytes the rows are left out and
// "partial":true says to read the tree.
func Delta(w Write, deleted bool, max int) []byte {
	m := w.Meta
	if deleted {
		return append(rawjson.AppendString([]byte(`{"type":"deleted","id":`), m.ID), '}')
	}
	head := []byte(`{"type":"change","id":`)
	head = rawjson.AppendString(head, m.ID)
	head = append(head, `,"etag":`...)
	head = rawjson.AppendString(head, m.ETag)
	head = append(head, `,"version":`...)
	head = rawjson.AppendInt(head, m.Version)
	head = append(head, `,"root":`...)
	head = rawjson.AppendString(head, m.Root)
	head = append(head, `,"active":`...)
	head = rawjson.AppendString(head, m.Active)
	// Over max, the rows are not rendered at all (a batch of megabytes
	// would be copied only to be dropped): their size is known beforehand.
	size := len(head) + 64 + len(w.DelNodes)*3 + len(w.DelBranches)*3
	for _, frags := range [][]core.Fragment{w.PutNodes, w.PutBranches} {
		for _, f := range frags {
			size += len(f.Key) + len(f.JSON) + 4
		}
	}
	for _, keys := range [][]string{w.DelNodes, w.DelBranches} {
		for _, k := range keys {
			size += len(k)
		}
	}
	if size > max {
		return append(head, `,"partial":true}`...)
	}
	buf := make([]byte, 0, size)
	buf = append(buf, head...)
	rows := func(name string, frags []core.Fragment) {
		buf = append(buf, `,"`+name+`":{`...)
		for i, f := range frags {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = rawjson.AppendString(buf, f.Key)
			buf = append(buf, ':')
			buf = append(buf, f.JSON...)
		}
		buf = append(buf, '}')
	}
	rows("nodes", w.PutNodes)
	buf = append(buf, `,"deleted_nodes":`...)
	buf = rawjson.AppendStrings(buf, w.DelNodes)
	rows("branches", w.PutBranches)
	buf = append(buf, `,"deleted_branches":`...)
	buf = rawjson.AppendStrings(buf, w.DelBranches)
	buf = append(buf, '}')
	if len(buf) > max {
		return append(head, `,"partial":true}`...)
	}
	return buf
}
