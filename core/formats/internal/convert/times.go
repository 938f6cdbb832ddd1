package convert

import (
	"math"
	"strconv"
	"time"
)

// ParseISO reads an RFC 3339 timestamp as Unix milliseconds. The form every
// chat tool writes, 2006-01-02T15:04:05[.fff…]Z, is read without the time
// package; any other goes through time.Parse.
func ParseISO(s string) (int64, bool) {
	if ms, ok := parseUTC(s); ok {
		return ms, true
	}
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, false
	}
	return tm.UnixMilli(), true
}

// FormatISO writes ms as an RFC 3339 UTC timestamp with milliseconds, the way
// JavaScript's Date.toISOString does.
func FormatISO(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

// ParseSeconds reads a JSON number of (fractional) Unix seconds as milliseconds.
func ParseSeconds(raw []byte) (int64, bool) {
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil || math.IsNaN(f) || math.Abs(f) > 1e14 {
		return 0, false
	}
	return int64(math.Round(f * 1000)), true
}

// FormatSeconds writes ms as a JSON number of Unix seconds with three decimals,
// which ParseSeconds reads back exactly.
func FormatSeconds(ms int64) []byte {
	return strconv.AppendFloat(nil, float64(ms)/1000, 'f', 3, 64)
}

// parseUTC reads YYYY-MM-DDTHH:MM:SS, an optional fraction of 1 to 9 digits,
// and Z, with the ranges time.Parse checks.
func parseUTC(s string) (int64, bool) {
	if len(s) < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[len(s)-1] != 'Z' {
		return 0, false
	}
	num := func(from, to int) int {
		n := 0
		for i := from; i < to; i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return -1
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	year, month, day := num(0, 4), num(5, 7), num(8, 10)
	hour, minute, sec := num(11, 13), num(14, 16), num(17, 19)
	if year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return 0, false
	}
	if day > daysIn(year, month) {
		return 0, false
	}
	ms := 0
	if frac := s[19 : len(s)-1]; frac != "" {
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
			return 0, false
		}
		digits := num(20, len(s)-1)
		if digits < 0 {
			return 0, false
		}
		// Milliseconds, truncated as time.Time.UnixMilli truncates.
		for n := len(frac) - 1; n < 3; n++ {
			digits *= 10
		}
		for n := len(frac) - 1; n > 3; n-- {
			digits /= 10
		}
		ms = digits
	}
	days := daysFromCivil(year, month, day)
	return ((days*24+int64(hour))*60+int64(minute))*60000 + int64(sec)*1000 + int64(ms), true
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil counts days from 1970-01-01 to a proleptic Gregorian date.
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}
