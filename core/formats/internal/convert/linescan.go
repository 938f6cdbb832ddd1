package convert

import (
	"bytes"

	"github.com/sessiontree/sessiontree/core/rawjson"
)

// LineScan is what the fast path of a JSONL import (claudecode, pi) reads of
// a line besides the format's own members: the first "message" member and
// whether the line has a "sessiontree" member or an escaped key.
type LineScan struct {
	Message    []byte // the first "message" member, when it is an object
	Ext        bool   // a "sessiontree" member
	EscapedKey bool   // a key with a backslash: byte offsets would not match
	BadMsg     bool   // the first "message" is no object or has no string role
}

// Member reads one member of the line that is none of the format's own.
func (l *LineScan) Member(key, v []byte) {
	switch string(key) {
	case ExtKey:
		l.Ext = true
	case "message":
		if l.Message != nil || l.BadMsg {
			return
		}
		if v[0] != '{' {
			l.BadMsg = true
			return
		}
		l.Message = v
		if role, ok := rawjson.Lookup(v, "role"); !ok || role[0] != '"' {
			l.BadMsg = true
		}
	default:
		if bytes.IndexByte(key, '\\') >= 0 {
			l.EscapedKey = true
		}
	}
}

// Simple reports whether the line can take the fast path: a message object
// with a string role, no "sessiontree" member and no escaped key, so
// DeriveLine would build byte for byte what Folded builds.
func (l *LineScan) Simple() bool {
	return l.Message != nil && !l.BadMsg && !l.Ext && !l.EscapedKey
}

// First keeps v in *dst unless *dst already holds an earlier member's value.
func First(dst *[]byte, v []byte) {
	if *dst == nil {
		*dst = v
	}
}

// StringsOnly drops each value that is not a JSON string: the first member of
// a name counts, and one that is not a string is absent.
func StringsOnly(vs ...*[]byte) {
	for _, p := range vs {
		if *p != nil && (*p)[0] != '"' {
			*p = nil
		}
	}
}
