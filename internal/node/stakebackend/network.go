package stakebackend

import (
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/staking"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/holiman/uint256"
)

// network answers the chain_ namespace. On a proof-of-stake chain (a
// genesis with a staking section) every answer comes from the staking
// state of the head block. A chain without one (an imported Ethereum
// chain) has no validator network: the node reports itself, if it
// validates, and derives cycles from the blocks.
type network struct{ n *Backend }

const (
	defaultMaxSyncTime = 1200 // seconds
)

var (
	weiPerChain = uint256.NewInt(1e18)
	tenChain    = uint256.NewInt(10e18)
)

// headState returns the state of the head block when the chain has the
// staking contracts; the caller releases it.
func (nw *network) headState() (*state.StateDB, bool) {
	if !nw.n.Chain.Engine().ProofOfStake() {
		return nil, false
	}
	st, err := nw.n.stateOf(nw.n.Chain.Head().HeaderRef())
	if err != nil {
		return nil, false
	}
	return st, true
}

// Nodes lists the validators in their states (nodestates.go).
func (nw *network) Nodes() []backend.NodeInfo {
	nodes := nw.registered()
	applySigning(backend.NodeCounts{}, nodes, nw.n.signingStates())
	markSyncing(nodes, nw.n.syncingNodes())
	return nodes
}

// NodeList lists the validators, then the nodes that announced
// themselves (Config.Announced) but are not validators, by ID.
func (nw *network) NodeList() []backend.NodeInfo {
	nodes := nw.Nodes()
	validator := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		validator[string(n.ID)] = true
	}
	if nw.n.cfg.Announced == nil {
		return nodes
	}
	for _, n := range nw.n.cfg.Announced() {
		if !validator[string(n.ID)] {
			nodes = append(nodes, n)
		}
	}
	return nodes
}

// registered lists the validators as the chain (or the configuration, on
// a chain without staking) records them.
func (nw *network) registered() []backend.NodeInfo {
	if st, ok := nw.headState(); ok {
		defer st.Release()
		return stakingNodes(st)
	}
	v := nw.n.cfg.Validator
	if v == nil {
		return []backend.NodeInfo{}
	}
	pub := crypto.PublicKey(v).SerializeCompressed()
	id := crypto.PrivkeyToAddress(v) // the p2p ID: a validator's node key is its validator key
	// The node's own p2p address, as configured; a node that accepts no
	// p2p connections reports its host with port 0.
	host, port := nw.n.cfg.Host, 0
	if l := nw.n.cfg.P2PListenAddr; l != "" {
		if h, pt := splitNetAddress(l); pt != 0 {
			port = pt
			if h != "" && h != "0.0.0.0" && h != "::" {
				host = h
			}
		}
	}
	return []backend.NodeInfo{{
		Kind:      "validator",
		ID:        id[:],
		IP:        host,
		Port:      port,
		PublicKey: pub,
		Operator:  crypto.PrivkeyToAddress(v),
		Status:    "active",
	}}
}

// stakingNodes lists the validators of the state, active ones first (in
// the order the cycle chose them), then standby, jailed and inactive ones
// in creation order.
func stakingNodes(st staking.State) []backend.NodeInfo {
	vals := staking.ReadValidators(st)
	out := make([]backend.NodeInfo, 0, len(vals))
	for _, want := range []staking.Status{staking.Active, staking.Standby, staking.Jailed, staking.Inactive} {
		for _, v := range vals {
			if v.Status != want {
				continue
			}
			host, port := splitNetAddress(v.NetAddress)
			var id []byte
			if a, ok := nodeID(v.Pubkey); ok {
				id = a[:] // the p2p ID: a validator's node key is its validator key
			}
			out = append(out, backend.NodeInfo{Kind: "validator", ID: id, IP: host, Port: port, PublicKey: v.Pubkey,
				Operator: v.Operator, Status: v.Status.String()})
		}
	}
	return out
}

// splitNetAddress splits a registered host:port (checked when it was
// registered).
func splitNetAddress(s string) (string, int) {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return s, 0
	}
	p, _ := strconv.Atoi(port)
	return host, p
}

func (nw *network) NetworkAccount() (backend.NetworkAccount, error) {
	if st, ok := nw.headState(); ok {
		defer st.Release()
		return networkAccount(staking.ReadParams(st)), nil
	}
	return backend.NetworkAccount{
		ActiveVersion: versionOf(nw.n.cfg.ClientVersion), LatestVersion: versionOf(nw.n.cfg.ClientVersion), MinVersion: versionOf(nw.n.cfg.ClientVersion),
		CertCycleDuration:   30,
		MaintenanceFee:      new(uint256.Int),
		MaintenanceInterval: 24 * time.Hour,
		Penalty:             backend.Amount{Amount: tenChain, Currency: staking.Currency},
		Slashing:            backend.SlashingParams{LeftNetworkEarlyPenaltyPercent: 0.2, NodeRefutedPenaltyPercent: 0.2, SyncTimeoutPenaltyPercent: 0.2},
		Reward:              backend.Amount{Amount: weiPerChain, Currency: staking.Currency},
		RewardInterval:      time.Hour,
		RequiredStake:       backend.Amount{Amount: tenChain, Currency: staking.Currency},
		RestakeCooldown:     30 * time.Minute,
		Timestamp:           time.Unix(int64(nw.n.Chain.Head().Time()), 0),
	}, nil
}

func ms(v uint64) time.Duration { return time.Duration(v) * time.Millisecond }

// networkAccount renders the staking parameters as the network account.
func networkAccount(p staking.Params) backend.NetworkAccount {
	frac := func(ppm uint64) float64 { return float64(ppm) / staking.PPM }
	return backend.NetworkAccount{
		ActiveVersion: p.ActiveVersion, LatestVersion: p.LatestVersion, MinVersion: p.MinVersion,
		CertCycleDuration:   p.CertCycleDuration,
		MaintenanceFee:      p.MaintenanceFee,
		MaintenanceInterval: ms(p.MaintenanceInterval),
		Penalty:             backend.Amount{Amount: p.Penalty, Currency: staking.Currency},
		Slashing: backend.SlashingParams{LeftNetworkEarlyPenaltyPercent: frac(p.LeftNetworkEarlyPenalty),
			NodeRefutedPenaltyPercent: frac(p.NodeRefutedPenalty), SyncTimeoutPenaltyPercent: frac(p.SyncTimeoutPenalty)},
		Reward:          backend.Amount{Amount: p.Reward, Currency: staking.Currency},
		RewardInterval:  ms(p.NodeRewardInterval),
		RequiredStake:   backend.Amount{Amount: p.RequiredStake, Currency: staking.Currency},
		RestakeCooldown: ms(p.RestakeCooldown),
		Timestamp:       time.UnixMilli(int64(p.Timestamp)),
	}
}

// versionOf takes "1.2.3" out of "chaind/v1.2.3/os-arch/go".
func versionOf(cv string) string {
	var v string
	if _, err := fmt.Sscanf(cv, "chaind/v%s", &v); err == nil {
		for i, c := range v {
			if c == '/' {
				return v[:i]
			}
		}
		return v
	}
	return cv
}

// blockInterval is the expected time between blocks, for the end of a
// cycle still running.
func (nw *network) blockInterval() uint64 {
	bt := uint64(nw.n.cfg.BlockTime / time.Second)
	if bt == 0 {
		bt = 2
	}
	return bt
}

// Cycles implements backend.Validators: the schedule the staking state
// records on a proof-of-stake chain, the spec's default rule on a chain
// without staking.
func (nw *network) Cycles() (types.Cycles, error) {
	if e := pos.Of(nw.n.Chain); e != nil {
		return e.Cycles(nw.n.Chain)
	}
	return types.DefaultCycles, nil
}

// CycleInfo returns the chain's record of cycle c (the blocks the
// schedule gives it). A cycle still running ends, by estimate, after its
// remaining blocks at the expected block interval.
func (nw *network) CycleInfo(c *uint64) (*backend.CycleInfo, error) {
	cycles, err := nw.Cycles()
	if err != nil {
		return nil, err
	}
	head := nw.n.Chain.Head()
	cur := cycles.Of(head.Number())
	if c == nil {
		c = &cur
	}
	if *c > cur {
		return nil, backend.ErrCycleNotFound
	}
	st, ok := nw.headState()
	if !ok {
		return nw.derivedCycle(cycles, *c)
	}
	defer st.Release()
	r, found := staking.ReadCycle(st, *c)
	if !found {
		return nil, backend.ErrCycleNotFound
	}
	end, stamp := r.End, r.Timestamp
	counts := backend.NodeCounts{Active: int(r.Active), Standby: int(r.Standby), Syncing: int(r.Syncing)}
	if end == 0 {
		left := cycles.Last(*c) - head.Number()
		end = head.Time()*1000 + left*nw.blockInterval()*1000
		stamp = head.Time() * 1000
		counts = nw.liveCounts(counts, stakingNodes(st))
	}
	return &backend.CycleInfo{
		Counter:     *c,
		Start:       time.UnixMilli(int64(r.Start)),
		End:         time.UnixMilli(int64(end)),
		Nodes:       counts,
		Desired:     r.Desired,
		Duration:    time.Duration((end-r.Start+999)/1000) * time.Second,
		MaxSyncTime: time.Duration(r.MaxSyncTime) * time.Second,
		Timestamp:   time.UnixMilli(int64(stamp)),
	}, nil
}

// derivedCycle derives a cycle record from the blocks of a chain without
// staking.
func (nw *network) derivedCycle(cycles types.Cycles, c uint64) (*backend.CycleInfo, error) {
	first, err := nw.n.Chain.BlockByNumber(cycles.First(c))
	if err != nil {
		return nil, backend.ErrCycleNotFound
	}
	duration := cycles.Rule(c).Length * nw.blockInterval()
	start := first.Time()
	end := start + duration
	last, err := nw.n.Chain.BlockByNumber(cycles.Last(c))
	running := err != nil
	if !running {
		end = last.Time() + nw.blockInterval()
	}
	active := 0
	if nw.n.cfg.Validator != nil {
		active = 1
	}
	counts := backend.NodeCounts{Active: active}
	if running {
		counts = nw.liveCounts(counts, nw.registered())
	}
	return &backend.CycleInfo{
		Counter:     c,
		Start:       time.Unix(int64(start), 0),
		End:         time.Unix(int64(end), 0),
		Nodes:       counts,
		Desired:     uint64(active),
		Duration:    time.Duration(end-start) * time.Second,
		MaxSyncTime: defaultMaxSyncTime * time.Second,
		Timestamp:   time.Unix(int64(nw.n.Chain.Head().Time()), 0),
	}, nil
}
