package convert

import (
	"bytes"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// sameKeys are the members of a kept message that, when the message the
// record derives has them equal, are written as a reference to it: the role
// and content a format's own fields carry.
var sameKeys = []string{"role", "content"}

// sameRef stands for the value of the same member of the derived message.
var sameRef = []byte(`{"~":0}`)

// markSame replaces the role and content of msg that derived has equal by
// sameRef, and reports whether it replaced any.
func markSame(msg, derived []byte) ([]byte, bool) {
	ms, err := Members(msg)
	if err != nil {
		return msg, false
	}
	changed := false
	for _, k := range sameKeys {
		v, ok := Get(ms, k)
		if !ok || len(v) <= len(sameRef) {
			continue
		}
		if d, ok := rawjson.Lookup(derived, k); ok && bytes.Equal(d, v) {
			ms = Set(ms, k, sameRef)
			changed = true
		}
	}
	if !changed {
		return msg, false
	}
	return NewObject(nil).Members(ms).Bytes(), true
}

// fillSame puts back the members markSame replaced, from derived; nil when
// derived has no such member.
func fillSame(msg, derived []byte) core.Message {
	ms, err := Members(msg)
	if err != nil {
		return nil
	}
	for i, m := range ms {
		if !bytes.Equal(m.Value, sameRef) {
			continue
		}
		d, ok := rawjson.Lookup(derived, m.Key)
		if !ok {
			return nil
		}
		ms[i].Value = d
	}
	out, err := core.ParseMessage(NewObject(nil).Members(ms).Bytes())
	if err != nil {
		return nil
	}
	return out
}
