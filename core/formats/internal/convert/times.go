package convert

import (
	"math"
	"strconv"
	"time"
)

// ParseISO reads an RFC 3339 timestamp as Unix milliseconds.
func ParseISO(s string) (int64, bool) {
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
