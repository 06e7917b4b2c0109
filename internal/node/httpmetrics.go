package node

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chaind/chaind/internal/front"
	chainmetrics "github.com/chaind/chaind/internal/metrics"
	"github.com/chaind/chaind/rpc/opslog"
)

// httpMetrics count every listener's requests, by listener kind, the
// API the request went to and its status.
type httpMetrics struct {
	reqs *chainmetrics.CounterVec
	lat  *chainmetrics.HistogramVec
}

func newHTTPMetrics(r *chainmetrics.Registry) *httpMetrics {
	return &httpMetrics{
		reqs: r.NewCounterVec("chaind_http_requests_total", "HTTP requests answered, by listener (its kind: http, ws, rest, grpc, cometrpc, explorer, metrics), API (jsonrpc, graphql, websocket for upgrades, health, ops, or the listener's kind) and status code; the front's refusals (429, 413...) included.", "listener", "api", "code"),
		lat:  r.NewHistogramVec("chaind_http_request_duration_seconds", "Time to answer an HTTP request, by listener and API (for a WebSocket, the time to the upgrade).", chainmetrics.DefaultBuckets, "listener", "api"),
	}
}

// observeListeners has the front report each listener's requests.
func (n *Node) observeListeners(ls []front.Listener) {
	for i := range ls {
		kind := ls[i].Kind
		ls[i].Options.Observe = func(r *http.Request, status int, d time.Duration) {
			api := apiOf(kind, r, status)
			n.http.reqs.Add(1, kind, api, strconv.Itoa(status))
			n.http.lat.Observe(d.Seconds(), kind, api)
		}
	}
}

// apiOf names what a request went to. The JSON-RPC ports also carry
// GraphQL, the health check, the debug routes and WebSocket upgrades;
// the other listeners serve one API each, named by their kind. The
// values are a fixed few whatever the client sends.
func apiOf(kind string, r *http.Request, status int) string {
	switch {
	case status == http.StatusSwitchingProtocols:
		return "websocket"
	case kind != "http" && kind != "ws":
		return kind
	case isGraphQL(r):
		return "graphql"
	case slices.Contains(healthPaths, r.URL.Path):
		return "health"
	case r.URL.Path == "/authenticate" || strings.HasPrefix(r.URL.Path, opslog.Prefix):
		return "ops"
	}
	return "jsonrpc"
}
