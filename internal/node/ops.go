package node

import (
	"encoding/json"
	"net/http"
	"net/netip"
	"path/filepath"

	"github.com/chaind/chaind/rpc/opslog"
)

// OpsConfig is what an operator of a public node sets beyond the ports:
// the debug routes' passphrase, where the client address comes from, and
// the capture's size.
type OpsConfig struct {
	// DebugPassphrase turns on POST /authenticate and the /log/* routes
	// of the JSON-RPC port; without it they answer 404.
	DebugPassphrase []byte
	// CaptureBytes bounds each debug capture table (0: 16 MiB).
	CaptureBytes int64
	// TrustedProxies are the peers whose X-Forwarded-For names the client
	// (for limits and captured transactions).
	TrustedProxies []netip.Prefix
}

// openOps opens the debug capture, kept under the data directory, when a
// passphrase is set, and reports every served call to it.
func (n *Node) openOps() error {
	if len(n.cfg.Ops.DebugPassphrase) == 0 {
		return nil
	}
	dir := ""
	if n.cfg.DataDir != "" {
		dir = filepath.Join(n.cfg.DataDir, "debuglog")
	}
	l, err := opslog.New(opslog.Config{Passphrase: n.cfg.Ops.DebugPassphrase, Dir: dir, MaxBytes: n.cfg.Ops.CaptureBytes})
	if err != nil {
		return err
	}
	n.opslog = l
	n.RPC.Observe(l.Observe)
	return nil
}

func (n *Node) closeOps() error {
	if n.opslog == nil {
		return nil
	}
	return n.opslog.Close()
}

// withOpsRoutes puts the login and debug routes in front of the JSON-RPC
// handler; with the routes off their paths answer 404, not the JSON-RPC
// port's health-probe 200.
func (n *Node) withOpsRoutes(rpcHandler http.Handler) http.Handler {
	var ops http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		json.NewEncoder(w).Encode(map[string]string{"message": "debug routes are off: start the node with --debug.passphrase-file or CHAIND_DEBUG_PASSPHRASE"})
	})
	if n.opslog != nil {
		ops = n.opslog.Handler()
	}
	mux := http.NewServeMux()
	mux.Handle("/authenticate", ops)
	mux.Handle("/log/", ops)
	mux.Handle("/", rpcHandler)
	return mux
}
