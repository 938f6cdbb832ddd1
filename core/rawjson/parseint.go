package rawjson

// ParseInt is strconv.ParseInt(s, 10, 64) with ok for its error: an optional
// sign, then decimal digits, within int64. ParseUint is strconv.ParseUint(s,
// 10, bits): digits alone, within bits (at most 64).
//
// They stand in for strconv's parsers in the browser module: their error type,
// *strconv.NumError, links strconv.Quote and its tables of printable runes
// (~5 KB gzipped) for messages nobody here reads.
func ParseInt(s string) (n int64, ok bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	u, ok := ParseUint(s, 64)
	if !ok {
		return 0, false
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return -int64(u), true
	}
	if u > 1<<63-1 {
		return 0, false
	}
	return int64(u), true
}

// ParseUint: see ParseInt.
func ParseUint(s string, bits int) (n uint64, ok bool) {
	if s == "" || bits < 1 || bits > 64 {
		return 0, false
	}
	limit := uint64(1)<<uint(bits) - 1 // 1<<64 wraps to 0: 0-1 is the whole range
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > limit/10 {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
		if n < uint64(c-'0') || n > limit { // wrapped past 64 bits, or past bits
			return 0, false
		}
	}
	return n, true
}

// Atoi is ParseInt for an int (strconv.Atoi).
func Atoi(s string) (int, bool) {
	n, ok := ParseInt(s)
	if !ok || int64(int(n)) != n {
		return 0, false
	}
	return int(n), true
}
