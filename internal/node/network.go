package node

import (
	"fmt"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/holiman/uint256"
)

// network answers the chain_ namespace. Until the BFT and staking layers
// drive it, the node is the whole network: one active validator (or none,
// for a node that only serves an imported chain).
type network struct{ n *Node }

const (
	cycleBlocks        = 10
	defaultMaxSyncTime = 1200 // seconds
)

var (
	weiPerChain = uint256.NewInt(1e18)
	tenChain    = uint256.NewInt(10e18)
)

func (nw *network) Nodes() []backend.NodeInfo {
	v := nw.n.cfg.Validator
	if v == nil {
		return []backend.NodeInfo{}
	}
	pub := crypto.PublicKey(v).SerializeCompressed()
	id := crypto.Keccak256(pub)
	return []backend.NodeInfo{{
		ID:        id[:],
		IP:        nw.n.cfg.Host,
		Port:      26656,
		PublicKey: pub,
	}}
}

func (nw *network) NetworkAccount() (backend.NetworkAccount, error) {
	return backend.NetworkAccount{
		ActiveVersion: versionOf(nw.n.cfg.ClientVersion), LatestVersion: versionOf(nw.n.cfg.ClientVersion), MinVersion: versionOf(nw.n.cfg.ClientVersion),
		CertCycleDuration:   30,
		MaintenanceFee:      0,
		MaintenanceInterval: 24 * time.Hour,
		Penalty:             backend.Amount{Amount: tenChain, Currency: "CHAIN"},
		Slashing:            backend.SlashingParams{LeftNetworkEarlyPenaltyPercent: 0.2, NodeRefutedPenaltyPercent: 0.2, SyncTimeoutPenaltyPercent: 0.2},
		Reward:              backend.Amount{Amount: weiPerChain, Currency: "CHAIN"},
		RewardInterval:      time.Hour,
		RequiredStake:       backend.Amount{Amount: tenChain, Currency: "CHAIN"},
		RestakeCooldown:     30 * time.Minute,
		Timestamp:           time.Unix(int64(nw.n.Chain.Head().Time()), 0),
	}, nil
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

// CycleInfo derives a cycle record from the blocks of the cycle: cycle c
// holds blocks 10c .. 10c+9.
func (nw *network) CycleInfo(c *uint64) (*backend.CycleInfo, error) {
	head := nw.n.Chain.Head()
	cur := head.Number() / cycleBlocks
	if c == nil {
		c = &cur
	}
	if *c > cur {
		return nil, backend.ErrCycleNotFound
	}
	first, err := nw.n.Chain.BlockByNumber(*c * cycleBlocks)
	if err != nil {
		return nil, backend.ErrCycleNotFound
	}
	blockTime := uint64(nw.n.cfg.BlockTime / time.Second)
	if blockTime == 0 {
		blockTime = 2
	}
	duration := cycleBlocks * blockTime
	start := first.Time()
	end := start + duration
	if last, err := nw.n.Chain.BlockByNumber(*c*cycleBlocks + cycleBlocks - 1); err == nil {
		end = last.Time() + blockTime
	}
	active := 0
	if nw.n.cfg.Validator != nil {
		active = 1
	}
	return &backend.CycleInfo{
		Counter:     *c,
		Start:       time.Unix(int64(start), 0),
		End:         time.Unix(int64(end), 0),
		Nodes:       backend.NodeCounts{Active: active},
		Desired:     uint64(active),
		Duration:    time.Duration(duration) * time.Second,
		MaxSyncTime: defaultMaxSyncTime * time.Second,
		Timestamp:   time.Now(),
	}, nil
}
