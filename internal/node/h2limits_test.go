package node

import (
	"testing"

	"github.com/chaind/chaind/internal/h2"
)

// The HTTP/2 abuse limits of the node's configuration reach the gRPC
// port's server, whose enforcement internal/h2 tests; unset (0), they
// leave the server to its defaults (h2.DefaultResetsPerSecond...).
func TestGRPCAbuseLimitsConfigured(t *testing.T) {
	zero := 0
	for _, tc := range []struct{ resets, control int }{{5, 50}, {0, 0}} {
		cfg := Config{HTTPPort: -1, WSPort: -1, GRPCPort: &zero}
		cfg.Ops.Limits.H2Resets, cfg.Ops.Limits.H2Control = tc.resets, tc.control
		n, _ := publicNode(t, cfg)
		var srv *h2.Server
		for _, l := range n.listeners() {
			if l.Kind == "grpc" {
				srv, _ = l.H2.(*h2.Server)
			}
		}
		if srv == nil {
			t.Fatal("no gRPC port served by internal/h2")
		}
		if srv.MaxResetsPerSecond != tc.resets || srv.MaxControlPerSecond != tc.control {
			t.Fatalf("gRPC server limits %d resets, %d control frames a second; want %d, %d",
				srv.MaxResetsPerSecond, srv.MaxControlPerSecond, tc.resets, tc.control)
		}
	}
}
