package edge

import (
	"strconv"
	"strings"
)

// A Cursor is where a page of a tenant's list of trees starts: just after
// the place of the tree ID created at CreatedMs, in the list's order
// (creation time, then id). The place holds whether or not that tree still
// lives, so the page after a tree deleted since the page before named it
// starts where it was. The zero Cursor is before the first tree.
//
// With ByID, only ID is known: the place is that tree's own, looked up as
// stored, and Store.List is ErrNoTree if it is none of the tenant's trees
// (the plain tree id "after" took before the list answered cursors).
type Cursor struct {
	CreatedMs int64
	ID        string
	ByID      bool
}

// cursorAfter is the Cursor of the place just after tree m: the "next" of a
// page that ends with m.
func cursorAfter(m Meta) Cursor { return Cursor{CreatedMs: m.CreatedMs, ID: m.ID} }

// String is the cursor as the list's "next" carries it: its creation time
// in decimal, a dot, and the tree id (32 hex digits, never a dot), as in
// "1733400000000.0123456789abcdef0123456789abcdef". A client passes it back
// as "after" as it came, without reading it.
func (c Cursor) String() string {
	if c.ByID {
		return c.ID
	}
	return strconv.FormatInt(c.CreatedMs, 10) + "." + c.ID
}

// maxCursorMs bounds a cursor's creation time to the integers a JavaScript
// number holds exactly (D1 takes its parameters as numbers).
const maxCursorMs = 1<<53 - 1

// parseAfter reads the "after" of a page of the list: "" (the first page),
// a cursor as String writes it, or a tree id. Nothing else is one, and a
// cursor must be exactly as String writes it (no sign but a minus, no
// leading zero, at most maxCursorMs either way).
func parseAfter(s string) (Cursor, *apiError) {
	if s == "" {
		return Cursor{}, nil
	}
	ms, id, dotted := strings.Cut(s, ".")
	if !dotted {
		if !validTreeID(s) {
			return Cursor{}, errAfter(s)
		}
		return Cursor{ID: s, ByID: true}, nil
	}
	n, err := strconv.ParseInt(ms, 10, 64)
	if err != nil || strconv.FormatInt(n, 10) != ms || n > maxCursorMs || n < -maxCursorMs || !validTreeID(id) {
		return Cursor{}, errAfter(s)
	}
	return Cursor{CreatedMs: n, ID: id}, nil
}

// errAfter is the 400 of an "after" that names no place in the list: a
// malformed cursor, or a tree id none of the tenant's trees has.
func errAfter(after string) *apiError {
	return errInput(`"after" must be the "next" of a page of the list, or the id of one of your trees; ` + quote(after) + " is neither")
}
