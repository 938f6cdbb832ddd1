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

var (
	errNoToken  = errors.New("no bearer token: send Authorization: Bearer <token>")
	errBadToken = errors.New("the bearer token is not valid")
	errExpired  = errors.New("the bearer token has expired")
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
	if !ValidTenant(tenant) {
		return "", errors.New("a tenant is 1 to 64 of A-Z a-z 0-9 . _ - @")
	}
	body := tokenPrefix + "." + base64.RawURLEncoding.EncodeToString([]byte(tenant)) + "." +
		strconv.FormatInt(expiresUnix, 10)
	return body + "." + base64.RawURLEncoding.EncodeToString(sign(key, body)), nil
}

// VerifyToken checks token against key at time nowUnix and returns its tenant.
func VerifyToken(key []byte, token string, nowUnix int64) (string, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 4 || parts[0] != tokenPrefix {
		return "", errBadToken
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[3])
	if err != nil || !hmac.Equal(sig, sign(key, token[:len(token)-len(parts[3])-1])) {
		return "", errBadToken
	}
	tenant, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil || !ValidTenant(string(tenant)) {
		return "", errBadToken
	}
	exp, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil {
		return "", errBadToken
	}
	if nowUnix >= exp {
		return "", errExpired
	}
	return string(tenant), nil
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
