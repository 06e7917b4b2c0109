package explorer

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// The page is small and self-contained: everything it loads is embedded,
// nothing comes from another origin, and the home page with its assets
// stays under 100 KB uncompressed.
func TestPageSelfContained(t *testing.T) {
	sub, _ := fs.Sub(webFS, "web")
	index, err := fs.ReadFile(sub, "index.html")
	if err != nil {
		t.Fatal(err)
	}
	total := len(index)
	refs := regexp.MustCompile(`(?:src|href)="([^"]+)"`).FindAllStringSubmatch(string(index), -1)
	for _, m := range refs {
		ref := m[1]
		if !strings.HasPrefix(ref, "/") || strings.HasPrefix(ref, "//") {
			if strings.HasPrefix(ref, "data:") {
				continue
			}
			t.Errorf("index.html loads %q from elsewhere", ref)
			continue
		}
		if ref == "/" || isPageRoute(strings.TrimPrefix(ref, "/")) {
			continue // links to the page's own routes
		}
		b, err := fs.ReadFile(sub, strings.TrimPrefix(ref, "/"))
		if err != nil {
			t.Errorf("index.html loads %s, which is not embedded", ref)
			continue
		}
		total += len(b)
	}
	if total > 100*1024 {
		t.Errorf("home page with its assets: %d bytes, over 100 KB", total)
	}
	external := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/|@import|url\(\s*['"]?https?:`)
	fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := fs.ReadFile(sub, p)
		if m := external.Find(b); m != nil {
			t.Errorf("%s refers to another origin: %q", p, m)
		}
		return nil
	})
}

// The page's routes serve the page; unknown files are 404, and only GET
// and HEAD are answered.
func TestPageRoutes(t *testing.T) {
	x := New(Config{})
	for path, want := range map[string]int{
		"/": 200, "/index.html": 200, "/app.js": 200, "/style.css": 200,
		"/block/12": 200, "/tx/0xab": 200, "/address/0x00": 200, "/validators": 200, "/cycle/3": 200,
		"/favicon.ico": 404, "/etc/passwd": 404, "/go.mod": 404, "/web/app.js": 404,
	} {
		rec := httptest.NewRecorder()
		x.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != want {
			t.Errorf("GET %s: %d, want %d", path, rec.Code, want)
		}
	}
	rec := httptest.NewRecorder()
	x.ServeHTTP(rec, httptest.NewRequest(http.MethodDelete, "/api/stats", nil))
	if rec.Code != http.StatusMethodNotAllowed || !strings.Contains(rec.Body.String(), `"success":false`) {
		t.Errorf("DELETE: %d %s", rec.Code, rec.Body)
	}
}

// Files carry an ETag, and a browser that has the file gets a 304.
func TestPageETag(t *testing.T) {
	x := New(Config{})
	for _, path := range []string{"/", "/app.js", "/block/7"} {
		rec := httptest.NewRecorder()
		x.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		tag := rec.Header().Get("ETag")
		if rec.Code != 200 || tag == "" {
			t.Fatalf("%s: %d, ETag %q", path, rec.Code, tag)
		}
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("If-None-Match", tag)
		rec = httptest.NewRecorder()
		x.ServeHTTP(rec, req)
		if rec.Code != http.StatusNotModified || rec.Body.Len() != 0 {
			t.Errorf("%s again: %d with %d bytes, want 304", path, rec.Code, rec.Body.Len())
		}
	}
}
