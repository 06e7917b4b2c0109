package ethapi

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/rpc"
	"github.com/holiman/uint256"
)

// nodeInfo is one element of chain_getNodeList.
type nodeInfo struct {
	ID        string `json:"id"`
	IP        string `json:"ip"`
	Port      int    `json:"port"`
	PublicKey string `json:"publicKey"`
	// Kind and Status go beyond the network this interface comes from:
	// "validator", "full" or "rpc"; the node's state (backend.NodeInfo).
	Kind   string `json:"kind"`
	Status string `json:"status"`
}

// networkAccount is the result of chain_getNetworkAccount, in the wire
// shapes of the network this interface comes from (amounts hex wei without
// 0x, penalties fractions, intervals milliseconds, maintenanceFee a
// number); internal/staking/README.md has the table of every field's unit
// and rule.
type networkAccount struct {
	ActiveVersion       string         `json:"activeVersion"`
	LatestVersion       string         `json:"latestVersion"`
	MinVersion          string         `json:"minVersion"`
	CertCycleDuration   uint64         `json:"certCycleDuration"`
	MaintenanceFee      json.Number    `json:"maintenanceFee"` // CHAIN, exact decimal
	MaintenanceInterval uint64         `json:"maintenanceInterval"`
	Penalty             amount         `json:"penalty"`
	Slashing            slashingParams `json:"slashing"`
	Reward              reward         `json:"reward"`
	RequiredStake       amount         `json:"requiredStake"`
	RestakeCooldown     uint64         `json:"restakeCooldown"`
	Timestamp           uint64         `json:"timestamp"`
}

// amount is a currency amount in hex wei without 0x.
type amount struct {
	Amount   string `json:"amount"`
	Currency string `json:"currency"`
}

// reward is the node reward and the interval (ms) it is paid per.
type reward struct {
	Amount             string `json:"amount"`
	Currency           string `json:"currency"`
	NodeRewardInterval uint64 `json:"nodeRewardInterval"`
}

// slashingParams are the penalty fractions.
type slashingParams struct {
	LeftNetworkEarlyPenaltyPercent float64 `json:"leftNetworkEarlyPenaltyPercent"`
	NodeRefutedPenaltyPercent      float64 `json:"nodeRefutedPenaltyPercent"`
	SyncTimeoutPenaltyPercent      float64 `json:"syncTimeoutPenaltyPercent"`
}

// cycleInfo is one cycle record: times in ms, duration and maxSyncTime in
// seconds.
type cycleInfo struct {
	CycleCounter uint64     `json:"cycleCounter"`
	StartTime    uint64     `json:"startTime"`
	EndTime      uint64     `json:"endTime"`
	Nodes        nodeCounts `json:"nodes"`
	Desired      uint64     `json:"desired"`
	Duration     uint64     `json:"duration"`
	MaxSyncTime  uint64     `json:"maxSyncTime"`
	Timestamp    uint64     `json:"timestamp"`
}

// nodeCounts counts nodes by state.
type nodeCounts struct {
	Active  int `json:"active"`
	Standby int `json:"standby"`
	Syncing int `json:"syncing"`
}

func renderNode(n backend.NodeInfo) nodeInfo {
	return nodeInfo{ID: hex.EncodeToString(n.ID), IP: n.IP, Port: n.Port, PublicKey: hex.EncodeToString(n.PublicKey), Kind: n.Kind, Status: n.Status}
}

// hexAmount is an amount as hex without 0x.
func hexAmount(a backend.Amount) amount {
	return amount{Amount: hexWei(a.Amount), Currency: a.Currency}
}

// hexWei renders wei as hex without 0x; nil is zero.
func hexWei(v *uint256.Int) string {
	if v == nil {
		return "0"
	}
	return strings.TrimPrefix(v.Hex(), "0x")
}

// coins renders wei as a JSON number of whole coins (18 decimals), its
// text exact: 7 wei is 0.000000000000000007, 1.5e18 wei is 1.5.
func coins(v *uint256.Int) json.Number {
	if v == nil || v.IsZero() {
		return "0"
	}
	d := v.Dec()
	if len(d) <= 18 {
		d = strings.Repeat("0", 19-len(d)) + d
	}
	whole, frac := d[:len(d)-18], strings.TrimRight(d[len(d)-18:], "0")
	if frac == "" {
		return json.Number(whole)
	}
	return json.Number(whole + "." + frac)
}

func millis(d time.Duration) uint64 { return uint64(d.Milliseconds()) }

func renderNetworkAccount(a backend.NetworkAccount) networkAccount {
	return networkAccount{
		ActiveVersion: a.ActiveVersion, LatestVersion: a.LatestVersion, MinVersion: a.MinVersion,
		CertCycleDuration:   a.CertCycleDuration,
		MaintenanceFee:      coins(a.MaintenanceFee),
		MaintenanceInterval: millis(a.MaintenanceInterval),
		Penalty:             hexAmount(a.Penalty),
		Slashing: slashingParams{
			LeftNetworkEarlyPenaltyPercent: a.Slashing.LeftNetworkEarlyPenaltyPercent,
			NodeRefutedPenaltyPercent:      a.Slashing.NodeRefutedPenaltyPercent,
			SyncTimeoutPenaltyPercent:      a.Slashing.SyncTimeoutPenaltyPercent,
		},
		Reward:          reward{Amount: hexAmount(a.Reward).Amount, Currency: a.Reward.Currency, NodeRewardInterval: millis(a.RewardInterval)},
		RequiredStake:   hexAmount(a.RequiredStake),
		RestakeCooldown: millis(a.RestakeCooldown),
		Timestamp:       uint64(a.Timestamp.UnixMilli()),
	}
}

func renderCycle(c *backend.CycleInfo) *cycleInfo {
	return &cycleInfo{
		CycleCounter: c.Counter,
		StartTime:    uint64(c.Start.UnixMilli()),
		EndTime:      uint64(c.End.UnixMilli()),
		Nodes:        nodeCounts{Active: c.Nodes.Active, Standby: c.Nodes.Standby, Syncing: c.Nodes.Syncing},
		Desired:      c.Desired,
		Duration:     uint64(c.Duration / time.Second),
		MaxSyncTime:  uint64(c.MaxSyncTime / time.Second),
		Timestamp:    uint64(c.Timestamp.UnixMilli()),
	}
}

const (
	nodeListDefaultLimit = 100
	nodeListMaxLimit     = 1000
)

type nodeList struct {
	Nodes      []nodeInfo `json:"nodes"`
	TotalNodes int        `json:"totalNodes"`
	Page       int        `json:"page"`
	Limit      int        `json:"limit"`
	TotalPages int        `json:"totalPages"`
}

// RegisterChain installs chain_getNodeList, chain_getNetworkAccount and
// chain_getCycleInfo.
func RegisterChain(s *rpc.Server, nb backend.Validators) {
	register(s, "chain_getNodeList", 0, 1, func(_ context.Context, p rpc.Params) (any, error) {
		var opts struct {
			Page  *int `json:"page"`
			Limit *int `json:"limit"`
		}
		if p.Has(0) {
			if err := json.Unmarshal(p[0], &opts); err != nil {
				return nil, rpc.InvalidParams(0, errors.New("expected an object {page, limit} or no parameters"))
			}
		}
		page, limit := 1, nodeListDefaultLimit
		if opts.Page != nil {
			if *opts.Page < 1 {
				return nil, rpc.InvalidParams(0, errors.New("page must be 1 or greater"))
			}
			page = *opts.Page
		}
		if opts.Limit != nil {
			if *opts.Limit < 1 || *opts.Limit > nodeListMaxLimit {
				return nil, &rpc.Error{Code: rpc.CodeInvalidParams, Message: "invalid params: limit must be 1..1000"}
			}
			limit = *opts.Limit
		}
		all := nb.NodeList()
		out := nodeList{Nodes: []nodeInfo{}, TotalNodes: len(all), Page: page, Limit: limit,
			TotalPages: (len(all) + limit - 1) / limit}
		// Bound the page before multiplying: (page-1)*limit overflows for
		// huge pages.
		if page-1 < out.TotalPages {
			start := (page - 1) * limit
			for _, n := range all[start:min(start+limit, len(all))] {
				out.Nodes = append(out.Nodes, renderNode(n))
			}
		}
		return out, nil
	})
	register(s, "chain_getNetworkAccount", 0, 0, func(context.Context, rpc.Params) (any, error) {
		a, err := nb.NetworkAccount()
		if err != nil {
			return nil, err
		}
		return renderNetworkAccount(a), nil
	})
	register(s, "chain_getCycleInfo", 0, 1, func(_ context.Context, p rpc.Params) (any, error) {
		var n *uint64
		if p.Has(0) {
			var v uint64
			if err := json.Unmarshal(p[0], &v); err != nil {
				var q Quantity
				if json.Unmarshal(p[0], &q) != nil {
					return nil, rpc.InvalidParams(0, errors.New("expected a single cycle number or null"))
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
			CycleInfo *cycleInfo `json:"cycleInfo"`
		}{renderCycle(ci)}, nil
	})
	if ev, ok := nb.(backend.NetworkEvents); ok {
		registerNetworkSubscriptions(s, ev)
	}
}

// nodeChange is a chain_subscribe("nodes") notification.
type nodeChange struct {
	Node     nodeInfo `json:"node"`
	Operator string   `json:"operator"`
	From     string   `json:"from"` // "" for a validator new since the last selection
	To       string   `json:"to"`
	Block    Quantity `json:"block"`
}

// registerNetworkSubscriptions installs chain_subscribe over WebSocket:
// "cycles" delivers each cycle's record (the chain_getCycleInfo shape) as
// the cycle closes, "nodes" each validator state change (active, standby,
// syncing, jailed, inactive). chain_unsubscribe ends one.
func registerNetworkSubscriptions(s *rpc.Server, ev backend.NetworkEvents) {
	events := &feed[backend.NetworkEvent]{source: ev.SubscribeNetwork, buffer: 64}
	register(s, "chain_subscribe", 1, 1, func(ctx context.Context, p rpc.Params) (any, error) {
		n, ok := rpc.NotifierFrom(ctx)
		if !ok {
			return nil, rpc.ErrNotificationsUnsupported
		}
		var kind string
		if err := p.Decode(0, &kind); err != nil {
			return nil, err
		}
		if kind != "cycles" && kind != "nodes" {
			return nil, &rpc.Error{Code: rpc.CodeInvalidParams, Message: "unsupported subscription type: " + kind + " (cycles or nodes)"}
		}
		sub, err := n.Subscribe()
		if err != nil {
			return nil, err
		}
		events.add(sub, func(e backend.NetworkEvent) error {
			switch {
			case kind == "cycles" && e.Cycle != nil:
				return sub.Notify(struct {
					CycleInfo *cycleInfo `json:"cycleInfo"`
				}{renderCycle(e.Cycle)})
			case kind == "nodes" && e.Node != nil:
				return sub.Notify(nodeChange{Node: renderNode(e.Node.Node), Operator: "0x" + hex.EncodeToString(e.Node.Node.Operator[:]),
					From: e.Node.From, To: e.Node.To, Block: Quantity(e.Node.Block)})
			}
			return nil
		})
		return sub.ID, nil
	})
	s.RegisterUnsubscribe("chain_unsubscribe")
}
