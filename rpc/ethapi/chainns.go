package ethapi

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/chaind/chaind/rpc"
)

// NodeInfo is one element of chain_getNodeList.
type NodeInfo struct {
	ID        string `json:"id"`
	IP        string `json:"ip"`
	Port      int    `json:"port"`
	PublicKey string `json:"publicKey"`
}

// NetworkAccount is the result of chain_getNetworkAccount: amounts are hex
// wei without 0x and intervals are milliseconds, as the network this
// interface comes from renders them.
type NetworkAccount struct {
	ActiveVersion       string         `json:"activeVersion"`
	LatestVersion       string         `json:"latestVersion"`
	MinVersion          string         `json:"minVersion"`
	CertCycleDuration   uint64         `json:"certCycleDuration"`
	MaintenanceFee      uint64         `json:"maintenanceFee"`
	MaintenanceInterval uint64         `json:"maintenanceInterval"`
	Penalty             Amount         `json:"penalty"`
	Slashing            SlashingParams `json:"slashing"`
	Reward              Reward         `json:"reward"`
	RequiredStake       Amount         `json:"requiredStake"`
	RestakeCooldown     uint64         `json:"restakeCooldown"`
	Timestamp           uint64         `json:"timestamp"`
}

// Amount is a currency amount in hex wei without 0x.
type Amount struct {
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
}

// Reward is the node reward and the interval (ms) it is paid per.
type Reward struct {
	Amount             string `json:"amount"`
	Currency           string `json:"currency"`
	NodeRewardInterval uint64 `json:"nodeRewardInterval"`
}

// SlashingParams are the penalty fractions.
type SlashingParams struct {
	LeftNetworkEarlyPenaltyPercent float64 `json:"leftNetworkEarlyPenaltyPercent"`
	NodeRefutedPenaltyPercent      float64 `json:"nodeRefutedPenaltyPercent"`
	SyncTimeoutPenaltyPercent      float64 `json:"syncTimeoutPenaltyPercent"`
}

// CycleInfo is one cycle record: times in ms, duration and maxSyncTime in
// seconds.
type CycleInfo struct {
	CycleCounter uint64     `json:"cycleCounter"`
	StartTime    uint64     `json:"startTime"`
	EndTime      uint64     `json:"endTime"`
	Nodes        NodeCounts `json:"nodes"`
	Desired      uint64     `json:"desired"`
	Duration     uint64     `json:"duration"`
	MaxSyncTime  uint64     `json:"maxSyncTime"`
	Timestamp    uint64     `json:"timestamp"`
}

// NodeCounts counts nodes by state.
type NodeCounts struct {
	Active  int `json:"active"`
	Standby int `json:"standby"`
	Syncing int `json:"syncing"`
}

// NetworkBackend serves the chain_ namespace from the consensus and
// staking state.
type NetworkBackend interface {
	Nodes() []NodeInfo
	NetworkAccount() (NetworkAccount, error)
	// CycleInfo returns cycle n, or the latest when n is nil.
	CycleInfo(n *uint64) (*CycleInfo, error)
}

// ErrCycleNotFound answers chain_getCycleInfo for a cycle that has not
// started.
var ErrCycleNotFound = errors.New("cycle info not found")

const (
	nodeListDefaultLimit = 100
	nodeListMaxLimit     = 1000
)

type nodeList struct {
	Nodes      []NodeInfo `json:"nodes"`
	TotalNodes int        `json:"totalNodes"`
	Page       int        `json:"page"`
	Limit      int        `json:"limit"`
	TotalPages int        `json:"totalPages"`
}

// RegisterChain installs chain_getNodeList, chain_getNetworkAccount and
// chain_getCycleInfo.
func RegisterChain(s *rpc.Server, nb NetworkBackend) {
	s.Register("chain_getNodeList", 0, 1, func(_ context.Context, p rpc.Params) (any, error) {
		var opts struct {
			Page  *int `json:"page"`
			Limit *int `json:"limit"`
		}
		if p.Has(0) {
			if err := json.Unmarshal(p[0], &opts); err != nil {
				return nil, &rpc.Error{Code: rpc.CodeInvalidParams, Message: "invalid params: expected an object {page, limit} or no parameters"}
			}
		}
		page, limit := 1, nodeListDefaultLimit
		if opts.Page != nil {
			if *opts.Page < 1 {
				return nil, &rpc.Error{Code: rpc.CodeInvalidParams, Message: "invalid params: page must be 1 or greater"}
			}
			page = *opts.Page
		}
		if opts.Limit != nil {
			limit = min(max(*opts.Limit, 1), nodeListMaxLimit)
		}
		all := nb.Nodes()
		out := nodeList{Nodes: []NodeInfo{}, TotalNodes: len(all), Page: page, Limit: limit,
			TotalPages: (len(all) + limit - 1) / limit}
		// Bound the page before multiplying: (page-1)*limit overflows for
		// huge pages.
		if page-1 < out.TotalPages {
			start := (page - 1) * limit
			out.Nodes = all[start:min(start+limit, len(all))]
		}
		return out, nil
	})
	s.Register("chain_getNetworkAccount", 0, 0, func(context.Context, rpc.Params) (any, error) {
		return nb.NetworkAccount()
	})
	s.Register("chain_getCycleInfo", 0, 1, func(_ context.Context, p rpc.Params) (any, error) {
		var n *uint64
		if p.Has(0) {
			var v uint64
			if err := json.Unmarshal(p[0], &v); err != nil {
				var q Quantity
				if json.Unmarshal(p[0], &q) != nil {
					return nil, &rpc.Error{Code: rpc.CodeInvalidParams, Message: "invalid params: expected a single cycle number or null"}
				}
				v = uint64(q)
			}
			n = &v
		}
		ci, err := nb.CycleInfo(n)
		if err != nil {
			return nil, err
		}
		return struct {
			CycleInfo *CycleInfo `json:"cycleInfo"`
		}{ci}, nil
	})
}
