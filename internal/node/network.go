package node

import (
	"encoding/hex"
	"fmt"
	"time"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/rpc/ethapi"
)

// network answers the chain_ namespace. Until the BFT and staking layers
// drive it, the node is the whole network: one active validator (or none,
// for a node that only serves an imported chain).
type network struct{ n *Node }

const (
	cycleBlocks        = 10
	defaultMaxSyncTime = 1200 // seconds
	weiPerChain        = "de0b6b3a7640000"
	tenChain           = "8ac7230489e80000"
)

func (nw *network) Nodes() []ethapi.NodeInfo {
	v := nw.n.cfg.Validator
	if v == nil {
		return []ethapi.NodeInfo{}
	}
	pub := crypto.PublicKey(v).SerializeCompressed()
	id := crypto.Keccak256(pub)
	return []ethapi.NodeInfo{{
		ID:        hex.EncodeToString(id[:]),
		IP:        nw.n.cfg.Host,
		Port:      26656,
		PublicKey: hex.EncodeToString(pub),
	}}
}

func (nw *network) NetworkAccount() (ethapi.NetworkAccount, error) {
	return ethapi.NetworkAccount{
		ActiveVersion: versionOf(nw.n.cfg.ClientVersion), LatestVersion: versionOf(nw.n.cfg.ClientVersion), MinVersion: versionOf(nw.n.cfg.ClientVersion),
		CertCycleDuration:   30,
		MaintenanceFee:      0,
		MaintenanceInterval: 86_400_000,
		Penalty:             ethapi.Amount{Amount: tenChain, Currency: "CHAIN"},
		Slashing:            ethapi.SlashingParams{LeftNetworkEarlyPenaltyPercent: 0.2, NodeRefutedPenaltyPercent: 0.2, SyncTimeoutPenaltyPercent: 0.2},
		Reward:              ethapi.Reward{Amount: weiPerChain, Currency: "CHAIN", NodeRewardInterval: 3_600_000},
		RequiredStake:       ethapi.Amount{Amount: tenChain, Currency: "CHAIN"},
		RestakeCooldown:     1_800_000,
		Timestamp:           nw.n.Chain.Head().Time() * 1000,
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
func (nw *network) CycleInfo(c *uint64) (*ethapi.CycleInfo, error) {
	head := nw.n.Chain.Head()
	cur := head.Number() / cycleBlocks
	if c == nil {
		c = &cur
	}
	if *c > cur {
		return nil, ethapi.ErrCycleNotFound
	}
	first, err := nw.n.Chain.BlockByNumber(*c * cycleBlocks)
	if err != nil {
		return nil, ethapi.ErrCycleNotFound
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
	return &ethapi.CycleInfo{
		CycleCounter: *c,
		StartTime:    start * 1000,
		EndTime:      end * 1000,
		Nodes:        ethapi.NodeCounts{Active: active},
		Desired:      uint64(active),
		Duration:     duration,
		MaxSyncTime:  defaultMaxSyncTime,
		Timestamp:    uint64(time.Now().UnixMilli()),
	}, nil
}
