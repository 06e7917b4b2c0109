package jwt

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"
)

var key = []byte("0123456789abcdef0123456789abcdef")

// forge builds a token from raw header and payload JSON, signed with k
// (unsigned when k is nil).
func forge(k []byte, hdr, payload string) string {
	signed := b64.EncodeToString([]byte(hdr)) + "." + b64.EncodeToString([]byte(payload))
	if k == nil {
		return signed + "."
	}
	m := hmac.New(sha256.New, k)
	m.Write([]byte(signed))
	return signed + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func TestVerify(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	good := Sign(key, Claims{IssuedAt: now.Unix(), ExpiresAt: now.Add(time.Hour).Unix(), Subject: "debug"})
	for _, tc := range []struct {
		name  string
		token string
		at    time.Time
		want  error
	}{
		{"good", good, now, nil},
		{"good later", good, now.Add(59 * time.Minute), nil},
		{"expired", good, now.Add(time.Hour), ErrExpired},
		{"issued in the future", good, now.Add(-time.Hour), ErrNotYet},
		{"other key", Sign([]byte("another key"), Claims{IssuedAt: now.Unix(), ExpiresAt: now.Add(time.Hour).Unix()}), now, ErrSignature},
		{"tampered payload", strings.Replace(good, strings.Split(good, ".")[1], b64.EncodeToString([]byte(`{"iat":1700000000,"exp":1900000000}`)), 1), now, ErrSignature},
		{"alg none", forge(nil, `{"alg":"none","typ":"JWT"}`, `{"iat":1700000000,"exp":1800000000}`), now, ErrAlgorithm},
		{"alg None signed", forge(key, `{"alg":"None"}`, `{"iat":1700000000,"exp":1800000000}`), now, ErrAlgorithm},
		{"alg HS512", forge(key, `{"alg":"HS512"}`, `{"iat":1700000000,"exp":1800000000}`), now, ErrAlgorithm},
		{"alg RS256", forge(key, `{"alg":"RS256"}`, `{"iat":1700000000,"exp":1800000000}`), now, ErrAlgorithm},
		{"crit header", forge(key, `{"alg":"HS256","crit":["x"]}`, `{"iat":1700000000,"exp":1800000000}`), now, ErrAlgorithm},
		{"no exp", forge(key, `{"alg":"HS256"}`, `{"iat":1700000000}`), now, ErrMalformed},
		{"no iat", forge(key, `{"alg":"HS256"}`, `{"exp":1800000000}`), now, ErrMalformed},
		{"fractional exp", forge(key, `{"alg":"HS256"}`, `{"iat":1700000000,"exp":1.8e9}`), now, ErrMalformed},
		{"two parts", "a.b", now, ErrMalformed},
		{"four parts", good + ".x", now, ErrMalformed},
		{"empty", "", now, ErrMalformed},
		{"bad base64", "!!.!!.!!", now, ErrMalformed},
		{"huge", strings.Repeat("a", MaxTokenLen+1), now, ErrMalformed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Verify(key, tc.token, tc.at, 0)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Verify: %v, want %v", err, tc.want)
			}
			if err == nil && (c.Subject != "debug" || c.ExpiresAt != now.Add(time.Hour).Unix()) {
				t.Fatalf("claims %+v", c)
			}
		})
	}
}

// FuzzVerify: no input panics, and nothing but a token signed with the key
// is accepted.
func FuzzVerify(f *testing.F) {
	now := time.Unix(1_700_000_000, 0)
	f.Add(Sign(key, Claims{IssuedAt: now.Unix(), ExpiresAt: now.Add(time.Hour).Unix()}))
	f.Add(forge(nil, `{"alg":"none"}`, `{"iat":1,"exp":2000000000}`))
	f.Add("a.b.c")
	f.Add("")
	f.Fuzz(func(t *testing.T, token string) {
		c, err := Verify(key, token, now, time.Minute)
		if err != nil {
			return
		}
		parts := strings.Split(token, ".")
		m := hmac.New(sha256.New, key)
		m.Write([]byte(parts[0] + "." + parts[1]))
		if sig, _ := b64.DecodeString(parts[2]); !hmac.Equal(sig, m.Sum(nil)) {
			t.Fatalf("accepted a token not signed with the key: %q", token)
		}
		if c.ExpiresAt <= now.Unix() {
			t.Fatalf("accepted an expired token: %+v", c)
		}
	})
}
