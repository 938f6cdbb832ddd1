package edge

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
)

// Tokens are "st1.<tenant>.<expiry>.<signature>": the tenant in unpadded
// base64url, the expiry in Unix seconds, and an HMAC-SHA256 of the first three
// parts under the operator's signing key, in unpadded base64url. Whoever holds
// the key issues tokens; nothing about a token is stored.
const tokenPrefix = "st1"

// MaxTenantLen bounds a tenant name.
const MaxTenantLen = 64

// MaxTokenLifetime is the longest a token may be valid for: a token that
// expires later than this after the request is refused, so a leaked token
// is good for hours, not a year. Clients refresh by asking the issuer (the
// operator's login service, or `make token`) for a new one before expiry.
const MaxTokenLifetime = 24 * 60 * 60 // seconds

// b64 decodes strictly: unpadded, and refusing the spellings whose unused
// trailing bits are set, so every token has exactly one spelling.
var b64 = base64.RawURLEncoding.Strict()

var (
	errNoToken  = errors.New("no bearer token: send Authorization: Bearer <token>")
	errBadToken = errors.New("the bearer token is not valid")
	errExpired  = errors.New("the bearer token has expired; get a new one from the token issuer")
	errLongLife = errors.New("the bearer token is valid for longer than 24 hours; issue one that expires sooner")
)

// ValidTenant reports whether name can be a tenant: 1 to 64 ASCII letters,
// digits, '.', '_', '-' or '@'.
func ValidTenant(name string) bool {
	if name == "" || len(name) > MaxTenantLen {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '.' || c == '_' || c == '-' || c == '@') {
			return false
		}
	}
	return true
}

// IssueToken returns a bearer token for tenant, valid until expiresUnix
// (seconds), signed with key.
func IssueToken(key []byte, tenant string, expiresUnix int64) (string, error) {
	if len(key) < 16 {
		return "", errors.New("the signing key must be at least 16 bytes")
	}
	if expiresUnix <= 0 {
		return "", errors.New("the expiry must be a positive Unix time")
	}
	if !ValidTenant(tenant) {
		return "", errors.New("a tenant is 1 to 64 of A-Z a-z 0-9 . _ - @")
	}
	body := tokenPrefix + "." + base64.RawURLEncoding.EncodeToString([]byte(tenant)) + "." +
		strconv.FormatInt(expiresUnix, 10)
	return body + "." + base64.RawURLEncoding.EncodeToString(sign(key, body)), nil
}

// VerifyToken checks token against key at time nowUnix and returns its tenant.
func VerifyToken(key []byte, token string, nowUnix int64) (string, error) {
	tenant, _, err := verifyToken(key, token, nowUnix)
	return tenant, err
}

// verifyToken is VerifyToken, also returning the token's expiry (Unix seconds).
func verifyToken(key []byte, token string, nowUnix int64) (string, int64, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 4 || parts[0] != tokenPrefix {
		return "", 0, errBadToken
	}
	// One spelling of each part, as for the expiry below: the decoder skips
	// \r and \n and takes any trailing bits, so a token with a line break put
	// into its signature would otherwise verify as the token it was made from
	// (found by FuzzVerifyToken).
	sig, err := b64.DecodeString(parts[3])
	if err != nil || b64.EncodeToString(sig) != parts[3] || !hmac.Equal(sig, sign(key, token[:len(token)-len(parts[3])-1])) {
		return "", 0, errBadToken
	}
	tenant, err := b64.DecodeString(parts[1])
	if err != nil || b64.EncodeToString(tenant) != parts[1] || !ValidTenant(string(tenant)) {
		return "", 0, errBadToken
	}
	exp, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil || exp <= 0 || strconv.FormatInt(exp, 10) != parts[2] {
		return "", 0, errBadToken // one spelling: no sign, no leading zeros
	}
	if nowUnix >= exp {
		return "", 0, errExpired
	}
	if exp-nowUnix > MaxTokenLifetime {
		return "", 0, errLongLife
	}
	return string(tenant), exp, nil
}

func sign(key []byte, body string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(body))
	return m.Sum(nil)
}

// bearer extracts the token of an Authorization header.
func bearer(header string) (string, error) {
	const scheme = "bearer "
	if len(header) <= len(scheme) || !strings.EqualFold(header[:len(scheme)], scheme) {
		return "", errNoToken
	}
	return strings.TrimSpace(header[len(scheme):]), nil
}
