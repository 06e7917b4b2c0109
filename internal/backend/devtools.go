package backend

import (
	"context"
	"errors"
	"time"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// DevTools are a development node's test helpers, the ones Hardhat
// Network and anvil serve as evm_*, hardhat_* and anvil_*: snapshots of
// the chain, mining on demand, a clock tests can move, direct changes of
// accounts and impersonation. A node serves them only in --dev mode.
type DevTools interface {
	// Snapshot records the chain as it is and returns the snapshot's id.
	Snapshot() uint64
	// Revert returns the chain to snapshot id, dropping that snapshot
	// and every later one; false for an id it does not know. The next
	// block's base fee chosen at the snapshot is restored too; opts say
	// what else is.
	Revert(ctx context.Context, id uint64, opts RevertOptions) (bool, error)
	// Mine makes blocks at once, with or without transactions: the first
	// at timestamp first (0: the dev clock's time), each next one interval
	// seconds later (0: the dev clock's time).
	Mine(ctx context.Context, blocks, first, interval uint64) error
	// IncreaseTime moves the dev clock forward and returns its total
	// offset from the wall clock, in seconds.
	IncreaseTime(seconds uint64) int64
	// SetNextBlockTimestamp fixes the next block's timestamp, which must
	// be after the head's (ErrTimestampNotAfterHead).
	SetNextBlockTimestamp(ts uint64) error
	// SetAutomine turns mining a block as soon as transactions are
	// pending on or off; Automine reports it.
	SetAutomine(on bool)
	Automine() bool
	// SetIntervalMining makes a block every interval drawn from
	// [min, max] (min = max for a fixed one; 0: off).
	SetIntervalMining(min, max time.Duration)
	// SetBalance, SetCode, SetNonce and SetStorageAt change an account
	// in the head's state: reads of "latest" see the change at once and
	// the next block is built on it.
	SetBalance(ctx context.Context, addr types.Address, balance *uint256.Int) error
	SetCode(ctx context.Context, addr types.Address, code []byte) error
	SetNonce(ctx context.Context, addr types.Address, nonce uint64) error
	SetStorageAt(ctx context.Context, addr types.Address, slot, value types.Hash) error
	// AddBalance adds amount to addr's balance (anvil_addBalance).
	AddBalance(ctx context.Context, addr types.Address, amount *uint256.Int) error
	// SetTime sets the dev clock to ts and answers how many seconds that
	// is ahead of where it was (0: not ahead).
	SetTime(ts uint64) uint64
	// SetBlockTimestampInterval stamps each next block secs after the
	// one before; RemoveBlockTimestampInterval goes back to the clock and
	// reports whether an interval was set.
	SetBlockTimestampInterval(secs uint64)
	RemoveBlockTimestampInterval() bool
	// Rollback drops the chain's last depth blocks (anvil_rollback).
	Rollback(ctx context.Context, depth uint64) error
	// Reorg replaces the chain's last depth blocks with as many new ones,
	// new block i holding txs[i] alone (anvil_reorg); the pool stays as it
	// was.
	Reorg(ctx context.Context, depth uint64, txs map[uint64][]*types.Transaction) error
	// Impersonate lets eth_sendTransaction send from addr without its
	// key; StopImpersonating ends it; AutoImpersonate does it for every
	// address.
	Impersonate(addr types.Address)
	StopImpersonating(addr types.Address)
	AutoImpersonate(on bool)
	// DumpState is the head's state as anvil_dumpState gives it (gzipped
	// JSON of the accounts); LoadState writes such a dump's accounts (gzip
	// or plain JSON) into the head's state.
	DumpState() ([]byte, error)
	LoadState(ctx context.Context, dump []byte) error
	// SetChainID makes id the chain ID of the blocks to come
	// (anvil_setChainId); the blocks made keep theirs.
	SetChainID(ctx context.Context, id uint64) error
	// Metadata identifies the development node (hardhat_metadata).
	Metadata() DevMetadata
	// SetLoggingEnabled turns the node's development log (its console of
	// blocks, transactions and console.log lines) on or off.
	SetLoggingEnabled(on bool)
	DevNextBlock
}

// DevMetadata identifies a development node to tools that detect one.
type DevMetadata struct {
	ClientVersion     string
	ChainID           uint64
	InstanceID        types.Hash // random per start of the node
	LatestBlockNumber uint64
	LatestBlockHash   types.Hash
	Automine          bool
	TimeOffset        int64 // seconds the dev clock is ahead of the wall clock
	// Forked describes the chain this one forked (--fork-url); nil when
	// it is no fork.
	Forked *DevFork
}

// DevFork is the fork point of a forked development chain, as
// hardhat_metadata reports it.
type DevFork struct {
	ChainID     uint64 // the upstream's chain ID (0: not known since a restart)
	BlockNumber uint64
	BlockHash   types.Hash
}

// ErrTimestampNotAfterHead is returned for a block timestamp that is not
// after the head's.
var ErrTimestampNotAfterHead = errors.New("timestamp is not after the latest block's")

// Impersonator is implemented by node-held Accounts that may send
// transactions from impersonated addresses (a development node).
type Impersonator interface {
	Impersonating(addr types.Address) bool
}
