package front

import (
	"bufio"
	"errors"
	"net/http"
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

// FuzzGuardCoversMux: however a request spells its path, a ServeMux behind
// the front never hands it to a route under a guard's prefix without the
// guard being asked.
func FuzzGuardCoversMux(f *testing.F) {
	for _, target := range []string{"/log/status", "/log/", "/log", "/x/../log/a", "//log//a", "/log/../log/a",
		"/%6cog/a", "/log%2Fa", "/./log/a", "/log/./a", "*", "http://h/log/a", "/LOG/a"} {
		f.Add(target)
	}
	deny := func(*http.Request) error { return errors.New("no") }
	f.Fuzz(func(t *testing.T, target string) {
		r, err := http.ReadRequest(bufio.NewReader(strings.NewReader("GET " + target + " HTTP/1.1\r\nHost: h\r\n\r\n")))
		if err != nil {
			return
		}
		reached := false
		m := http.NewServeMux()
		m.HandleFunc("/", func(http.ResponseWriter, *http.Request) {})
		m.HandleFunc("/log/", func(http.ResponseWriter, *http.Request) { reached = true })
		New(Config{}).Handler(Options{Guards: []Guard{{Prefix: "/log/", Auth: deny}}}, m).ServeHTTP(httptest.NewRecorder(), r)
		if reached {
			t.Fatalf("%q (path %q) reached /log/ past its guard", target, r.URL.Path)
		}
	})
}
