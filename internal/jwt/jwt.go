// Package jwt issues and checks the HS256 JSON Web Tokens that guard the
// node's debug routes. It does only what those routes need: one algorithm,
// a shared secret, and the iat/exp claims. Anything else in a token's
// header (another alg, "none", a key id) is refused rather than trusted.
package jwt

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// Errors Verify returns; all of them mean "not authorised".
var (
	ErrMalformed = errors.New("jwt: malformed token")
	ErrAlgorithm = errors.New("jwt: algorithm not accepted (HS256 only)")
	ErrSignature = errors.New("jwt: bad signature")
	ErrExpired   = errors.New("jwt: token expired")
	ErrNotYet    = errors.New("jwt: token issued in the future")
)

// MaxTokenLen bounds what Verify parses; real tokens are a few hundred
// bytes.
const MaxTokenLen = 4096

// Claims are the registered claims the node issues and checks.
type Claims struct {
	IssuedAt  int64  `json:"iat"`
	ExpiresAt int64  `json:"exp"`
	Subject   string `json:"sub,omitempty"`
}

var b64 = base64.RawURLEncoding

// header is fixed: the node only ever issues HS256 tokens.
var header = b64.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))

// Sign returns a token for c signed with key.
func Sign(key []byte, c Claims) string {
	body, _ := json.Marshal(c) // a struct of ints and a string cannot fail
	signed := header + "." + b64.EncodeToString(body)
	return signed + "." + b64.EncodeToString(mac(key, signed))
}

func mac(key []byte, signed string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(signed))
	return m.Sum(nil)
}

// Verify checks token's algorithm, signature and times against now, and
// returns its claims. Leeway is the clock skew tolerated for iat.
func Verify(key []byte, token string, now time.Time, leeway time.Duration) (Claims, error) {
	var c Claims
	if len(token) > MaxTokenLen {
		return c, ErrMalformed
	}
	h, rest, ok := strings.Cut(token, ".")
	if !ok {
		return c, ErrMalformed
	}
	p, s, ok := strings.Cut(rest, ".")
	if !ok || strings.Contains(s, ".") {
		return c, ErrMalformed
	}
	hb, err := b64.DecodeString(h)
	if err != nil {
		return c, ErrMalformed
	}
	var hdr struct {
		Alg  string  `json:"alg"`
		Typ  *string `json:"typ"`
		Crit any     `json:"crit"`
	}
	if err := json.Unmarshal(hb, &hdr); err != nil {
		return c, ErrMalformed
	}
	// The algorithm is checked before the signature, so "none" or an
	// asymmetric algorithm never gets a chance to be misread as HS256.
	if hdr.Alg != "HS256" || hdr.Crit != nil {
		return c, ErrAlgorithm
	}
	if hdr.Typ != nil && !strings.EqualFold(*hdr.Typ, "JWT") {
		return c, ErrMalformed
	}
	sig, err := b64.DecodeString(s)
	if err != nil {
		return c, ErrMalformed
	}
	if !hmac.Equal(sig, mac(key, h+"."+p)) {
		return c, ErrSignature
	}
	pb, err := b64.DecodeString(p)
	if err != nil {
		return c, ErrMalformed
	}
	var raw struct {
		IssuedAt  *json.Number `json:"iat"`
		ExpiresAt *json.Number `json:"exp"`
		Subject   string       `json:"sub"`
	}
	if err := json.Unmarshal(pb, &raw); err != nil {
		return c, ErrMalformed
	}
	// Tokens without an expiry are never accepted: a leaked one would
	// otherwise open the routes forever.
	if raw.ExpiresAt == nil || raw.IssuedAt == nil {
		return c, ErrMalformed
	}
	if c.ExpiresAt, err = raw.ExpiresAt.Int64(); err != nil {
		return c, ErrMalformed
	}
	if c.IssuedAt, err = raw.IssuedAt.Int64(); err != nil {
		return c, ErrMalformed
	}
	c.Subject = raw.Subject
	if now.Unix() >= c.ExpiresAt {
		return c, ErrExpired
	}
	if c.IssuedAt > now.Add(leeway).Unix() {
		return c, ErrNotYet
	}
	return c, nil
}
