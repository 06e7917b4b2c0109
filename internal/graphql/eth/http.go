package eth

import (
	_ "embed"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/chaind/chaind/internal/front"
	"github.com/chaind/chaind/internal/graphql"
)

//go:embed ui.html
var uiPage []byte

// Handler serves POST and GET /graphql and the query page at
// /graphql/ui. It runs behind the node's front, which caps the body and
// keeps each client's rate: every query is charged as one call there.
func (s *Service) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/graphql", s.serveQuery)
	mux.HandleFunc("/graphql/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/graphql/" && r.URL.Path != "/graphql/ui" {
			http.NotFound(w, r)
			return
		}
		if r.URL.Path == "/graphql/" && r.Method == http.MethodPost {
			s.serveQuery(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'")
		w.Write(uiPage)
	})
	return mux
}

func writeResponse(w http.ResponseWriter, status int, resp *graphql.Response) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(resp)
}

func refuse(w http.ResponseWriter, status int, msg string) {
	writeResponse(w, status, &graphql.Response{Errors: []*graphql.Error{{Message: msg}}})
}

func (s *Service) serveQuery(w http.ResponseWriter, r *http.Request) {
	var req graphql.Request
	switch r.Method {
	case http.MethodGet:
		q := r.URL.Query()
		req.Query, req.OperationName = q.Get("query"), q.Get("operationName")
		if v := q.Get("variables"); v != "" {
			if err := json.Unmarshal([]byte(v), &req.Variables); err != nil {
				refuse(w, http.StatusBadRequest, "variables are not a JSON object: "+err.Error())
				return
			}
		}
	case http.MethodPost:
		body, err := io.ReadAll(r.Body)
		if err != nil {
			if limit, ok := front.IsTooLarge(err); ok {
				refuse(w, http.StatusRequestEntityTooLarge, front.TooLarge(limit).Message)
				return
			}
			refuse(w, http.StatusBadRequest, "cannot read the request: "+err.Error())
			return
		}
		ct := r.Header.Get("Content-Type")
		if strings.HasPrefix(ct, "application/graphql") {
			req.Query = string(body)
		} else if err := json.Unmarshal(body, &req); err != nil {
			refuse(w, http.StatusBadRequest, "request body is not a GraphQL request object: "+err.Error())
			return
		}
	case http.MethodOptions:
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		refuse(w, http.StatusMethodNotAllowed, "use GET or POST")
		return
	}
	if strings.TrimSpace(req.Query) == "" {
		refuse(w, http.StatusBadRequest, "no query given")
		return
	}
	if wait, ok := front.ClientFrom(r.Context()).Charge(1); !ok {
		front.SetRetryAfter(w.Header(), wait)
		refuse(w, http.StatusTooManyRequests, front.Limited(wait).Message)
		return
	}
	resp := s.Execute(r.Context(), &req)
	status := http.StatusOK
	if len(resp.Errors) > 0 {
		// As go-ethereum and the hive suite expect: any error, in
		// parsing, validation or a field, answers 400.
		status = http.StatusBadRequest
	}
	writeResponse(w, status, resp)
}

// Refuse answers a refusal of the node's front (rate limit, body cap,
// host, CORS) in GraphQL's shape: {"errors": [{"message": ...}]} with the
// refusal's HTTP status.
func Refuse(w http.ResponseWriter, _ *http.Request, ref front.Refusal) {
	refuse(w, ref.Status, ref.Message)
}
