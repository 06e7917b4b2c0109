package front

import (
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

// FuzzClientIP: whatever X-Forwarded-For a trusted proxy relays, the
// client address is the peer's or one of the header's, never made up;
// from an untrusted peer it is always the peer's.
func FuzzClientIP(f *testing.F) {
	f.Add("10.0.0.1:80", "198.51.100.1, 10.0.0.2")
	f.Add("192.0.2.1:80", "203.0.113.5")
	f.Add("10.0.0.1:80", ",,,")
	f.Add("[::1]:80", "::ffff:1.2.3.4")
	fr := New(Config{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}})
	f.Fuzz(func(t *testing.T, peer, xff string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = peer
		r.Header.Set("X-Forwarded-For", xff)
		got := fr.ClientIP(r)
		r.Header.Del("X-Forwarded-For")
		direct := fr.ClientIP(r)
		if got == direct {
			return
		}
		if !fr.trusted(direct) {
			t.Fatalf("untrusted peer %q: client %q from X-Forwarded-For %q", peer, got, xff)
		}
		a, err := netip.ParseAddr(got)
		if err != nil {
			t.Fatalf("client %q is not an address (X-Forwarded-For %q)", got, xff)
		}
		found := false
		for _, p := range strings.Split(xff, ",") {
			if b, err := netip.ParseAddr(strings.TrimSpace(p)); err == nil && b.Unmap() == a {
				found = true
			}
		}
		if !found {
			t.Fatalf("client %q is in neither the peer %q nor X-Forwarded-For %q", got, peer, xff)
		}
	})
}
