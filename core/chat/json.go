package chat

import "github.com/sessiontree/sessiontree/core/rawjson"

// Small readers over valid, compact JSON (a core.Message and its slices).

// str is obj's string member key, "" when absent or not a string.
func str(obj []byte, key string) string {
	s, _ := rawjson.LookupString(obj, key)
	return s
}

// member is obj's member key as raw JSON, nil when absent.
func member(obj []byte, key string) []byte {
	v, ok := rawjson.Lookup(obj, key)
	if !ok {
		return nil
	}
	return v
}

// isTrue reports whether obj's member key is the literal true.
func isTrue(obj []byte, key string) bool { return isLiteralTrue(member(obj, key)) }

// isLiteralTrue reports whether the value v is the literal true.
func isLiteralTrue(v []byte) bool { return len(v) == 4 && string(v) == "true" }

func isObject(v []byte) bool { return len(v) > 0 && v[0] == '{' }
func isArray(v []byte) bool  { return len(v) > 0 && v[0] == '[' }
func isString(v []byte) bool { return len(v) > 0 && v[0] == '"' }

// each calls fn with every element of the array arr (nothing when arr is not
// an array).
func each(arr []byte, fn func(elem []byte)) {
	if !isArray(arr) {
		return
	}
	d := rawjson.NewDecoder(arr)
	_ = d.Array(func() error {
		start := len(arr) - len(d.Rest())
		if err := d.Skip(); err != nil {
			return err
		}
		end := len(arr) - len(d.Rest())
		fn(trimSpace(arr[start:end]))
		return nil
	})
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\n' || b[0] == '\t' || b[0] == '\r' || b[0] == ',') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\n' || b[len(b)-1] == '\t' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// joinTo appends s to b, after sep when b holds something: the text of many
// parts joined in one buffer. A string grown by += copied all of itself at
// each part: a 420 KB tool result of 10,000 text parts took 3.6 s to read.
func joinTo(b []byte, sep, s string) []byte {
	if len(b) > 0 {
		b = append(b, sep...)
	}
	return append(b, s...)
}

// unquote is the string a raw JSON string literal holds, "" for anything else.
func unquote(v []byte) string {
	if !isString(v) {
		return ""
	}
	return rawjson.Unquote(v)
}

// jsonText is the JSON text of a tool call's arguments: a JSON string's
// content when the shape keeps arguments as a string (OpenAI), the value as
// it is otherwise (Anthropic's input, pi's arguments), "{}" when absent.
func jsonText(v []byte) string {
	switch {
	case len(v) == 0 || string(v) == "null":
		return "{}"
	case isString(v):
		return rawjson.Unquote(v)
	}
	return string(v)
}

// object builds a JSON object of string members, in order.
func object(kv ...string) string {
	b := []byte{'{'}
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b = append(b, ',')
		}
		b = rawjson.AppendString(b, kv[i])
		b = append(b, ':')
		b = rawjson.AppendString(b, kv[i+1])
	}
	return string(append(b, '}'))
}

// number parses a JSON number's integer and fraction (seconds.fraction) into
// thousandths: 1704067200.5 → 1704067200500. Exponents and garbage give 0.
func millis(v []byte, scale int64) int64 {
	var whole, frac, fscale int64 = 0, 0, 1
	neg := false
	i := 0
	if i < len(v) && v[i] == '-' {
		neg = true
		i++
	}
	for ; i < len(v) && v[i] >= '0' && v[i] <= '9'; i++ {
		if whole > (1<<62)/10 {
			return 0
		}
		whole = whole*10 + int64(v[i]-'0')
	}
	if i < len(v) && v[i] == '.' {
		for i++; i < len(v) && v[i] >= '0' && v[i] <= '9'; i++ {
			if fscale < scale {
				frac = frac*10 + int64(v[i]-'0')
				fscale *= 10
			}
		}
	}
	if i != len(v) || whole > (1<<62)/scale {
		return 0
	}
	n := whole*scale + frac*(scale/fscale)
	if neg {
		n = -n
	}
	return n
}

// isoMillis parses an RFC 3339 UTC time (2006-01-02T15:04:05[.000]Z) into
// milliseconds since the epoch; 0 for anything else.
func isoMillis(s string) int64 {
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[len(s)-1] != 'Z' {
		return 0
	}
	num := func(a, b int) int64 {
		var n int64
		for i := a; i < b; i++ {
			if s[i] < '0' || s[i] > '9' {
				return -1
			}
			n = n*10 + int64(s[i]-'0')
		}
		return n
	}
	y, mo, d, h, mi, sec := num(0, 4), num(5, 7), num(8, 10), num(11, 13), num(14, 16), num(17, 19)
	if y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 || sec < 0 || sec > 60 {
		return 0
	}
	var ms int64
	if s[19] == '.' {
		digits := s[20 : len(s)-1]
		scale := int64(100)
		for i := 0; i < len(digits); i++ {
			if digits[i] < '0' || digits[i] > '9' {
				return 0
			}
			ms += int64(digits[i]-'0') * scale
			scale /= 10
		}
	} else if len(s) != 20 {
		return 0
	}
	// Days from the civil date (Howard Hinnant's algorithm).
	if mo <= 2 {
		y--
	}
	era := y / 400
	yoe := y - era*400
	m := mo
	if m > 2 {
		m -= 3
	} else {
		m += 9
	}
	doy := (153*m+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	days := era*146097 + doe - 719468
	return ((days*24+h)*60+mi)*60000 + sec*1000 + ms
}

func validJSON(b []byte) bool { return rawjson.Valid(b) }

// args makes a tool call's arguments valid JSON: text that is not JSON (a
// custom tool's free-form input) becomes {"input": text}.
func args(s string) string {
	if trimSpace([]byte(s)) == nil || len(trimSpace([]byte(s))) == 0 {
		return "{}"
	}
	if validJSON([]byte(s)) {
		return s
	}
	return object("input", s)
}
