package explorer

import (
	"embed"
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
// (/block/..., /tx/..., ...), its index so links and reloads work.
func pageHandler() http.Handler {
	sub, err := fs.Sub(webFS, "web")
	if err != nil {
		panic(err)
	}
	files := http.FileServerFS(sub)
	index, err := fs.ReadFile(sub, "index.html")
	if err != nil {
		panic(err)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Security-Policy", "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:")
		name := strings.TrimPrefix(r.URL.Path, "/")
		if name != "" && name != "index.html" {
			if _, err := fs.Stat(sub, name); err == nil {
				h.Set("Cache-Control", "no-cache")
				files.ServeHTTP(w, r)
				return
			}
			if !isPageRoute(name) {
				http.NotFound(w, r)
				return
			}
		}
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Cache-Control", "no-cache")
		w.Write(index)
	})
}

// isPageRoute reports whether a path is one the page renders itself.
func isPageRoute(p string) bool {
	for _, prefix := range []string{"block/", "tx/", "address/", "validator/", "cycle/", "validators", "cycles", "search"} {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}
