package rawjson

import "unsafe"

// Members walks the object that is next like Object, but hands fn the key's raw
// bytes (without quotes, escapes undecoded) instead of allocating a string: for
// hot loops over known field names. The bytes alias the input.
func (d *Decoder) Members(fn func(key []byte) error) error {
	if d.Peek() != '{' {
		return errAt(d.pos, "expected an object")
	}
	d.pos++
	if d.Peek() == '}' {
		d.pos++
		return nil
	}
	for {
		if d.Peek() != '"' {
			return errAt(d.pos, "expected a string key")
		}
		end, err := scanString(d.data, d.pos)
		if err != nil {
			return err
		}
		key := d.data[d.pos+1 : end-1]
		d.pos = end
		if d.Peek() != ':' {
			return errAt(d.pos, "expected ':' after an object key")
		}
		d.pos++
		if err := fn(key); err != nil {
			return err
		}
		switch d.Peek() {
		case ',':
			d.pos++
		case '}':
			d.pos++
			return nil
		default:
			return errAt(d.pos, "expected ',' or '}' in an object")
		}
	}
}

// StringView decodes the string that is next. When it has no escapes the result
// shares memory with the input instead of copying it, so the caller must never
// modify the input afterwards (Unmarshal copies its input once for this reason).
func (d *Decoder) StringView() (string, error) {
	if d.Peek() != '"' {
		return "", errAt(d.pos, "expected a string")
	}
	end, err := scanString(d.data, d.pos)
	if err != nil {
		return "", err
	}
	body := d.data[d.pos+1 : end-1]
	d.pos = end
	for _, c := range body {
		if c == '\\' {
			return Unquote(d.data[d.pos-len(body)-2 : d.pos]), nil
		}
	}
	if len(body) == 0 {
		return "", nil
	}
	return unsafe.String(&body[0], len(body)), nil
}

// KeyView returns an object key's bytes from Members as a string, sharing memory
// with the input when the key has no escapes (see StringView).
func KeyView(key []byte) string {
	key = unescapeKey(key)
	if len(key) == 0 {
		return ""
	}
	return unsafe.String(&key[0], len(key))
}

// Rest is the input not yet consumed.
func (d *Decoder) Rest() []byte { return d.data[d.pos:] }
