package explorer

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"strings"
)

// The web page: plain HTML, CSS and JavaScript, no build step, nothing
// loaded from elsewhere.
//
//go:embed web
var webFS embed.FS

// pageHandler serves the page's files and, for the page's own routes
// (/block/..., /tx/..., ...), its index so links and reloads work. Each
// file carries an ETag of its content, so a browser revalidates instead
// of downloading it again (embedded files have no modification time).
func pageHandler() http.Handler {
	sub, err := fs.Sub(webFS, "web")
	if err != nil {
		panic(err)
	}
	files := http.FileServerFS(sub)
	etags := map[string]string{}
	fs.WalkDir(sub, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := fs.ReadFile(sub, p)
			sum := sha256.Sum256(b)
			etags[p] = `"` + hex.EncodeToString(sum[:8]) + `"`
		}
		return err
	})
	index, err := fs.ReadFile(sub, "index.html")
	if err != nil {
		panic(err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Security-Policy", "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:")
		h.Set("Cache-Control", "no-cache")
		name := strings.TrimPrefix(r.URL.Path, "/")
		if name == "" || name == "index.html" || (etags[name] == "" && isPageRoute(name)) {
			name = "index.html"
		}
		tag, ok := etags[name]
		if !ok {
			http.NotFound(w, r)
			return
		}
		// FileServer answers If-None-Match with 304 once the ETag is set.
		h.Set("ETag", tag)
		if name == "index.html" {
			if r.Header.Get("If-None-Match") == tag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
			h.Set("Content-Type", "text/html; charset=utf-8")
			w.Write(index)
			return
		}
		files.ServeHTTP(w, r)
	})
}

// isPageRoute reports whether a path is one the page renders itself.
func isPageRoute(p string) bool {
	for _, prefix := range []string{"block/", "tx/", "address/", "validator/", "cycle/", "validators", "cycles", "proposals", "proposal/"} {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}
