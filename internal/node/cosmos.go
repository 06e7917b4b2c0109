package node

import (
	"encoding/json"
	"fmt"
	"runtime"

	"github.com/chaind/chaind/cometrpc"
	"github.com/chaind/chaind/grpcsrv"
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/front"
	"github.com/chaind/chaind/internal/h2"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/staking"
	"github.com/chaind/chaind/lcd"
	"github.com/chaind/chaind/p2p"
)

// cosmosListeners declares the Cosmos-style REST and gRPC query ports
// and the CometBFT RPC, all served from one query layer.
func (n *Node) cosmosListeners(addr func(int) string) []front.Listener {
	rest, grpc, comet := n.cfg.RESTPort, n.cfg.GRPCPort, n.cfg.CometRPCPort
	if (rest == nil || *rest < 0) && (grpc == nil || *grpc < 0) && (comet == nil || *comet < 0) {
		return nil
	}
	qb := n.queryBackend()
	q := query.New(qb)
	var ls []front.Listener
	gs := grpcsrv.New(q)
	gs.Observe(n.http.GRPC) // its calls on either port, native or gRPC-Web
	if rest != nil && *rest >= 0 {
		// The REST answers are public, read-only chain data fetched without
		// credentials, so any web page (a staking dashboard) may read them.
		// The port also answers gRPC-Web, as the Cosmos SDK's API server does.
		ls = append(ls, lcd.Listener(addr(*rest), grpcsrv.WebOr(lcd.New(q), gs), grpcsrv.WebCORS(front.Options{CORSOrigins: []string{"*"}})))
	}
	if grpc != nil && *grpc >= 0 {
		listener := grpcsrv.Listener
		if l, ok := grpcsrv.Servers[n.cfg.GRPCServer]; ok {
			listener = l
		}
		// The same public data as REST: a browser page may call the port
		// with gRPC-Web.
		l := listener(addr(*grpc), gs, front.Options{CORSOrigins: []string{"*"}})
		if s, ok := l.H2.(*h2.Server); ok { // internal/h2's server: its abuse limits
			lim := n.cfg.Ops.Limits
			s.MaxResetsPerSecond, s.MaxControlPerSecond = lim.H2Resets, lim.H2Control
		}
		ls = append(ls, l)
	}
	if comet != nil && *comet >= 0 {
		cb := cometrpc.Backend{Blocks: qb.Blocks, Consensus: qb.Consensus, Network: qb.Network}
		if v := n.cfg.Validator; v != nil {
			// crypto.PublicKey, not v.PubKey(): the library's method
			// decompresses its key table on first use, which would put
			// milliseconds on every --dev start (issue 31).
			pub := crypto.PublicKey(v)
			cb.Validator, cb.ValidatorKey = crypto.PubkeyToAddress(pub), pub.SerializeCompressed()
		}
		cb.P2PAddr = n.cfg.P2P.Listen()
		cb.Pool, cb.Heads = n.backend, n.backend
		cb.Genesis = func() ([]byte, error) { return json.Marshal(n.cfg.Genesis) }
		cb.Params = cometrpc.Params{
			BlockMaxBytes: p2p.MaxFrameSize, // a proposal travels in one frame
			// The evidence a block carries is part of its consensus data,
			// which the extra-data limit bounds.
			EvidenceMaxAgeBlocks: staking.MaxEvidenceAge, EvidenceMaxBytes: pos.MaxExtra,
			BlockTime: n.cfg.BlockTime,
		}
		srv := cometrpc.New(q, cb)
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			srv.Run(n.stop)
		}()
		// Read-only public chain data, like the REST port: any web page
		// (a wallet, a dashboard) may read it.
		ls = append(ls, cometrpc.Listener(addr(*comet), srv,
			front.Options{CORSOrigins: []string{"*"}, BodyLimit: n.cfg.Ops.Limits.BodyBytes}))
	}
	return ls
}

// queryBackend is what the query layer reads: the chain through the
// node's backend, the consensus sets from the BFT engine, and the staking,
// distribution, governance and slashing views and the supply from the
// staking contracts' state. A chain without those contracts has no such
// modules (their queries answer Unavailable) and its supply is summed
// over the state.
func (n *Node) queryBackend() query.Backend {
	b := query.Backend{
		Blocks: n.backend, State: n.backend, Accounts: n.backend, Retention: n.backend, Config: n.backend.GenesisConfig(), Network: n.backend,
		Receipts: n.backend, TxIndex: n.backend, History: n.backend,
		Supply: n.stake.Supply(), Consensus: n.stake.ConsensusSets(), Commits: n.stake.Commits(), Signing: n.stake.Signing(),
		BlockMaxBytes: p2p.MaxFrameSize, // a proposal travels in one frame
		Staking:       n.Staking(), Governance: n.Governance(),
		BlockTime: n.cfg.BlockTime, Authority: staking.GovernanceAddress, ModuleAccounts: n.stake.ModuleAccounts(),
		Moniker: "chaind", Version: n.cfg.ClientVersion, GoVersion: runtime.Version(),
	}
	if v := n.cfg.Validator; v != nil {
		id := crypto.Keccak256(crypto.PublicKey(v).SerializeCompressed())
		b.NodeID = fmt.Sprintf("%x", id[:20])
	}
	return b
}

// Staking returns the node's reader of the staking state, for the query
// interfaces (REST, gRPC, the explorer).
func (n *Node) Staking() backend.Staking { return n.stake.Staking() }

// Governance returns the node's reader of the governance state.
func (n *Node) Governance() backend.Governance { return n.stake.Governance() }
