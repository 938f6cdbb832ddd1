//go:build !js || stock

package edge

import (
	"strings"
	"testing"
)

// Every token has exactly one spelling: flipping the unused low bits of the
// last base64 character of the signature or the tenant, padding, or writing
// the expiry with a sign or leading zeros gives a token that is refused.
func TestATokenHasOneSpelling(t *testing.T) {
	tok, err := IssueToken(testKey, "alice", 5000)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyToken(testKey, tok, 1000); err != nil {
		t.Fatalf("the token itself: %v", err)
	}
	parts := strings.Split(tok, ".")
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	respell := func(s string) []string { // the same bits, other trailing bits
		last := strings.IndexByte(alphabet, s[len(s)-1])
		var out []string
		for i := 0; i < 64; i++ {
			if i != last && i>>2 == last>>2 && len(s)%4 == 3 || i != last && i>>4 == last>>4 && len(s)%4 == 2 {
				out = append(out, s[:len(s)-1]+alphabet[i:i+1])
			}
		}
		return out
	}
	var variants []string
	for _, sig := range respell(parts[3]) {
		variants = append(variants, strings.Join([]string{parts[0], parts[1], parts[2], sig}, "."))
	}
	if len(variants) == 0 {
		t.Fatal("no respelling of the signature was made: the test is wrong")
	}
	variants = append(variants, tok+"=",
		strings.Join([]string{parts[0], parts[1], "+" + parts[2], parts[3]}, "."),
		strings.Join([]string{parts[0], parts[1], "0" + parts[2], parts[3]}, "."))
	for _, v := range variants {
		if _, err := VerifyToken(testKey, v, 1000); err == nil {
			t.Errorf("another spelling was accepted: %s", v)
		}
	}
}

// A token valid for more than MaxTokenLifetime from now is refused, with a
// message that says what to do.
func TestATokenIsValidForHoursNotAYear(t *testing.T) {
	now := int64(1_800_000_000)
	year, _ := IssueToken(testKey, "alice", now+365*24*3600)
	if _, err := VerifyToken(testKey, year, now); err == nil || !strings.Contains(err.Error(), "24 hours") {
		t.Fatalf("a year-long token: %v", err)
	}
	day, _ := IssueToken(testKey, "alice", now+MaxTokenLifetime)
	if _, err := VerifyToken(testKey, day, now); err != nil {
		t.Fatalf("a 24-hour token: %v", err)
	}
}

// A token is accepted only as it was issued: a line break put anywhere into
// it (the base64 decoder skips \r and \n; a socket's ?token= can carry
// %0D) makes it another token, refused (found by FuzzVerifyToken).
func TestATokenWithALineBreakPutIntoItIsRefused(t *testing.T) {
	tok, _ := IssueToken(testKey, "alice", 5000)
	if _, err := VerifyToken(testKey, tok, 1000); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(tok); i++ {
		for _, c := range []string{"\r", "\n"} {
			if tenant, err := VerifyToken(testKey, tok[:i]+c+tok[i:], 1000); err == nil {
				t.Fatalf("%q accepted (tenant %q)", tok[:i]+c+tok[i:], tenant)
			}
		}
	}
}

func FuzzVerifyToken(f *testing.F) {
	tok, _ := IssueToken(testKey, "alice", 5000)
	f.Add(tok)
	f.Add("st1.YWxpY2U.5000.x")
	f.Fuzz(func(t *testing.T, s string) {
		tenant, err := VerifyToken(testKey, s, 1000)
		if err == nil && s != tok {
			t.Fatalf("a token not issued here was accepted: %q (tenant %q)", s, tenant)
		}
	})
}
