package convert

import (
	"bytes"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// WithNodeExt ends a format's derive: msg, no label and at, overridden by what
// the record's "sessiontree" member (among ms) carries.
func WithNodeExt(ms []Member, msg core.Message, at int64) (core.Message, string, int64, error) {
	return WithNodeExtOn(ms, msg, at, nil)
}

// WithNodeExtOn is WithNodeExt with the record's base given (see Base).
func WithNodeExtOn(ms []Member, msg core.Message, at int64, base *Base) (core.Message, string, int64, error) {
	label := ""
	if e, ok := ReadNodeExtOn(ms, base); ok {
		if e.Message != nil && e.Same {
			e.Message = fillSame(e.Message, msg)
		}
		e.Apply(&msg, &label, &at)
	}
	return msg, label, at, nil
}

// HasExtMessage reports whether a record's members carry a node message in
// their "sessiontree" member.
func HasExtMessage(ms []Member) bool { return HasExtMessageOn(ms, nil) }

// HasExtMessageOn is HasExtMessage with the record's base given (see Base).
func HasExtMessageOn(ms []Member, base *Base) bool {
	e, ok := ReadNodeExtOn(ms, base)
	return ok && e.Message != nil
}

// DeriveLine is the derive of the JSONL formats whose line holds a "message"
// object: the message plus key: the line with "message" replaced by 0, its
// time from "timestamp". A line without a message object is left to other,
// which gets the line's members without "sessiontree".
func DeriveLine(line []byte, key string, other func(base []Member) (core.Message, error)) (core.Message, string, int64, error) {
	ms, err := Members(line)
	if err != nil {
		return nil, "", 0, err
	}
	base := Without(ms, ExtKey)
	var at int64
	if ts := Str(base, "timestamp"); ts != "" {
		at, _ = ParseISO(ts)
	}
	var msg core.Message
	if m, ok := Get(base, "message"); ok && len(m) > 0 && m[0] == '{' {
		if _, ok := rawjson.LookupString(m, "role"); !ok {
			return nil, "", 0, Invalid("message has no string role")
		}
		rec := NewObject(nil).Members(Set(base, "message", Placeholder)).Bytes()
		msg = AppendMember(m, key, rec)
	} else if msg, err = other(base); err != nil {
		return nil, "", 0, err
	}
	return WithNodeExt(ms, msg, at)
}

// OwnLine returns the line kept under key in msg when it still fits n (its
// idKey is n's id and, unless n is a root, its parentKey is n's parent), with
// the message put back in place of its 0; else nil.
func OwnLine(n core.Node, msg core.Message, key, idKey, parentKey string) []byte {
	rec, ok := rawjson.Lookup(msg, key)
	if !ok {
		return nil
	}
	ms, err := Members(rec)
	if err != nil || Str(ms, idKey) != n.ID || (n.Parent != "" && Str(ms, parentKey) != n.Parent) {
		return nil
	}
	m, has := Get(ms, "message")
	if has && bytes.Equal(m, Placeholder) {
		return Unfold(rec, WithoutKey(msg, key))
	}
	if !has {
		return rec
	}
	return nil
}

// AppendTreeExtLine appends the last line of a JSONL export:
// {"type":"sessiontree",…} with the branches (TreeExt).
func AppendTreeExtLine(out []byte, t *core.Tree) []byte {
	ext := TreeExt(t)
	out = append(out, `{"type":"sessiontree",`...)
	out = append(out, ext[1:]...)
	return append(out, '\n')
}

// AppendLines appends each of lines, as a JSONL line, to out.
func AppendLines(out []byte, lines [][]byte) []byte {
	for _, l := range lines {
		core.TickBytes(len(l))
		out = append(append(out, l...), '\n')
	}
	return out
}

// Reattached is derive for a record exported with the lines kept before and
// after its node: the message it derives carries them again (Reattach), unless
// the record's "sessiontree" member gives the message whole.
func Reattached(derive Derive, beforeKey string, before [][]byte, afterKey string, after [][]byte) Derive {
	return func(r []byte) (core.Message, string, int64, error) {
		m, l, a, err := derive(r)
		if err == nil {
			if rm, _ := Members(r); !HasExtMessage(rm) {
				m = Reattach(m, beforeKey, before, afterKey, after)
			}
		}
		return m, l, a, err
	}
}
