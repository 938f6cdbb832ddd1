package convert

import (
	"github.com/sessiontree/sessiontree/core/rawjson"
)

// Member is one member of a JSON object: its decoded key and its raw value.
type Member struct {
	Key   string
	Value []byte
}

// Members lists the members of the JSON object obj, in order. It fails on
// anything but one valid object.
func Members(obj []byte) ([]Member, error) {
	d := rawjson.NewDecoder(obj)
	var out []Member
	err := d.Object(func(key string) error {
		v, err := d.Raw()
		if err != nil {
			return err
		}
		out = append(out, Member{key, v})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := d.End(); err != nil {
		return nil, err
	}
	return out, nil
}

// Object writes a JSON object member by member, in the order they are added.
type Object struct {
	buf []byte
}

// NewObject starts an object, appending to dst.
func NewObject(dst []byte) *Object { return &Object{buf: append(dst, '{')} }

func (o *Object) key(k string) {
	if o.buf[len(o.buf)-1] != '{' {
		o.buf = append(o.buf, ',')
	}
	o.buf = rawjson.AppendString(o.buf, k)
	o.buf = append(o.buf, ':')
}

// Raw adds a member whose value is the valid JSON v.
func (o *Object) Raw(k string, v []byte) *Object {
	o.key(k)
	o.buf = append(o.buf, v...)
	return o
}

// String adds a string member.
func (o *Object) String(k, v string) *Object {
	o.key(k)
	o.buf = rawjson.AppendString(o.buf, v)
	return o
}

// Int adds an integer member.
func (o *Object) Int(k string, v int64) *Object {
	o.key(k)
	o.buf = rawjson.AppendInt(o.buf, v)
	return o
}

// Members adds every member of ms, the buffer grown for them once.
func (o *Object) Members(ms []Member) *Object {
	need := 1 // the closing brace
	for _, m := range ms {
		need += len(m.Key) + len(m.Value) + 4
	}
	if cap(o.buf)-len(o.buf) < need {
		o.buf = append(make([]byte, 0, len(o.buf)+need), o.buf...)
	}
	for _, m := range ms {
		o.Raw(m.Key, m.Value)
	}
	return o
}

// Bytes closes the object and returns it.
func (o *Object) Bytes() []byte { return append(o.buf, '}') }

// Get returns the value of the first member called key in ms.
func Get(ms []Member, key string) ([]byte, bool) {
	for _, m := range ms {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}

// Without returns ms without the members whose key is one of keys.
func Without(ms []Member, keys ...string) []Member {
	out := make([]Member, 0, len(ms))
next:
	for _, m := range ms {
		for _, k := range keys {
			if m.Key == k {
				continue next
			}
		}
		out = append(out, m)
	}
	return out
}

// Set returns ms with the value of key replaced, or the member appended when
// there is none.
func Set(ms []Member, key string, v []byte) []Member {
	out := make([]Member, len(ms), len(ms)+1)
	copy(out, ms)
	for i := range out {
		if out[i].Key == key {
			out[i].Value = v
			return out
		}
	}
	return append(out, Member{key, v})
}

// Str returns the string value of key in ms, or "".
func Str(ms []Member, key string) string {
	v, ok := Get(ms, key)
	if !ok || len(v) == 0 || v[0] != '"' {
		return ""
	}
	return rawjson.Unquote(v)
}

// Quote returns s as a JSON string literal.
func Quote(s string) []byte { return rawjson.AppendString(nil, s) }

// IsNull reports whether v is absent or the literal null.
func IsNull(v []byte) bool { return len(v) == 0 || string(v) == "null" }

// Elements lists the raw elements of the JSON array arr.
func Elements(arr []byte) ([][]byte, error) {
	d := rawjson.NewDecoder(arr)
	var out [][]byte
	err := d.Array(func() error {
		v, err := d.Raw()
		if err != nil {
			return err
		}
		out = append(out, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, d.End()
}
