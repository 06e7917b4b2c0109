package node

import (
	"github.com/chaind/chaind/explorer"
	"github.com/chaind/chaind/internal/front"
)

// explorerListener serves the block explorer from the node's backend. Its
// page follows new blocks over the node's JSON-RPC WebSocket: the
// WebSocket-only port when it is on, else the HTTP port's upgrade.
func (n *Node) explorerListener(addr string) front.Listener {
	x := explorer.New(explorer.Config{
		Backend:    n.backend,
		Validators: n.stake.Network(),
		Roles:      n.stake.Roles(),
		Staking:    n.stake.Staking(),
		Governance: n.stake.Governance(),
		Signing:    n.stake.Signing(),
		WebSocket: func() string {
			for _, kind := range []string{"ws", "http"} {
				if a := n.Addr(kind); a != "" {
					return "ws://" + a
				}
			}
			return ""
		},
	})
	return front.Listener{Kind: "explorer", Addr: addr, Handler: x,
		Options: explorer.Options(n.cfg.CORS, n.cfg.VHosts)}
}
