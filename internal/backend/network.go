package backend

import (
	"errors"
	"time"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Network reports the node's place in the peer-to-peer network.
type Network interface {
	PeerCount() int
	// Syncing reports sync progress; false when the node is in sync.
	Syncing() (SyncProgress, bool)
}

// SyncProgress is how far a catching-up node has got.
type SyncProgress struct {
	StartingBlock, CurrentBlock, HighestBlock uint64
}

// Validators describes the validator network: its nodes, the rules that
// bind them and its consensus cycles.
type Validators interface {
	// Nodes lists the validators.
	Nodes() []NodeInfo
	// NodeList lists every node of the network this node knows of: the
	// validators (Nodes), then the full and RPC nodes that announce
	// themselves, by ID.
	NodeList() []NodeInfo
	NetworkAccount() (NetworkAccount, error)
	// CycleInfo returns cycle n, or the latest when n is nil;
	// ErrCycleNotFound for a cycle that has not started.
	CycleInfo(n *uint64) (*CycleInfo, error)
	// Cycles returns the chain's cycle schedule: which blocks every cycle
	// it ran holds, and the rule in force (a governable parameter).
	Cycles() (types.Cycles, error)
}

// ErrCycleNotFound is returned for a cycle that has not started.
var ErrCycleNotFound = errors.New("cycle info not found")

// NodeInfo is one node of the network.
type NodeInfo struct {
	// Kind is "validator", or "full" or "rpc" for a node that announced
	// itself (package internal/protocol/nodes).
	Kind string
	// ID is the node's p2p ID, the address of its public key: with IP and
	// Port it is the ID@host:port that --p2p.peers takes.
	ID        []byte
	IP        string
	Port      int
	PublicKey []byte // compressed secp256k1
	// Operator is the validator's operator address (zero for other
	// kinds) and Status its state: "active", "standby", "syncing",
	// "jailed" or "inactive"; an announced node is "active", or
	// "syncing" while it says it catches up.
	Operator [20]byte
	Status   string
}

// NetworkAccount holds the network-wide parameters of validators.
type NetworkAccount struct {
	ActiveVersion, LatestVersion, MinVersion string
	CertCycleDuration                        uint64       // cycles a certificate lasts
	MaintenanceFee                           *uint256.Int // wei per MaintenanceInterval
	MaintenanceInterval                      time.Duration
	Penalty                                  Amount
	Slashing                                 SlashingParams
	Reward                                   Amount
	RewardInterval                           time.Duration // the reward is paid per interval
	RequiredStake                            Amount
	RestakeCooldown                          time.Duration
	Timestamp                                time.Time
}

// Amount is a sum of a currency's smallest unit.
type Amount struct {
	Amount   *uint256.Int
	Currency string
}

// SlashingParams are penalty fractions.
type SlashingParams struct {
	LeftNetworkEarlyPenaltyPercent float64
	NodeRefutedPenaltyPercent      float64
	SyncTimeoutPenaltyPercent      float64
}

// CycleInfo is one consensus cycle.
type CycleInfo struct {
	Counter     uint64
	Start, End  time.Time
	Nodes       NodeCounts
	Desired     uint64
	Duration    time.Duration
	MaxSyncTime time.Duration
	Timestamp   time.Time // when the record was made
}

// NodeCounts counts nodes by state.
type NodeCounts struct {
	Active, Standby, Syncing int
}

// PeerList lists the connected peers.
type PeerList interface {
	Peers() []PeerInfo
}

// PeerInfo is one connected peer.
type PeerInfo struct {
	ID         []byte // the address of its p2p key
	RemoteAddr string // host:port of the connection
	ListenAddr string // where it accepts connections; empty when it does not
	Inbound    bool   // it dialled us
}
