package chain

import (
	"bytes"
	"errors"
	"slices"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
)

// The account index lists, in address order, every address that has held
// an account in a state this store committed since its genesis: the Cosmos
// queries that list accounts (auth Accounts, bank DenomOwners) page
// through it, as the SDK pages its address-keyed stores. The state's tries
// cannot serve them: their keys are hashes of addresses.
//
// Each state commit's diff names the accounts it creates (state.Diff.New);
// their keys go into the very batch that writes the block (or the
// development helper's state), so a crash never leaves the index behind
// the state it describes. Entries are never removed: an address whose
// account went (deleted, or only in a block a rewind, a reorganisation or
// evm_revert dropped) stays listed, and readers keep only the addresses
// that hold an account in the state they read, at whatever height they
// read. So one index serves every height whose state is stored, and
// rewinds have nothing to undo.
//
// The index is complete only if it began with the genesis state: a data
// directory made before it existed (keyAcctIndex absent) keeps none, and
// its addresses cannot be recovered from the state; a forked chain's
// accounts are the upstream's.
var (
	prefixAcctIndex = []byte("Aa")           // Aa + address(20) -> nothing
	keyAcctIndex    = []byte("m:acct-index") // present: the index covers every state since genesis
)

// acctIndexVersion is keyAcctIndex's value: the layout above.
const acctIndexVersion = 1

// ErrNoAccountIndex is returned by IndexedAccounts on a data directory
// made before the account index existed.
var ErrNoAccountIndex = errors.New("this data directory keeps no account index: it was made before chaind kept one, " +
	"and the state's tries are keyed by hashes of addresses, which cannot be turned back into addresses; " +
	"sync the chain into a new data directory (chaind export, then chaind import) to list accounts")

// ErrForkAccounts is returned by IndexedAccounts on a forked chain.
var ErrForkAccounts = errors.New("a forked chain's accounts are its upstream's, which chaind cannot list")

// openAcctIndex reads whether the store keeps the index.
func (db *DB) openAcctIndex() error {
	ok, err := db.kv.Has(keyAcctIndex)
	db.acctIndex = ok
	return err
}

// startAcctIndex makes the next write, the genesis block's, begin the
// index: its marker goes into the same batch, and from then on every
// committed state's new accounts are indexed.
func (db *DB) startAcctIndex() {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.acctIndex = true
	db.pending.Put(keyAcctIndex, []byte{acctIndexVersion})
}

// indexAccounts stages the index entries of the new accounts of staged
// diffs. Called with db.mu held, by writePending.
func (db *DB) indexAccounts(staged []flatDiff) {
	if !db.acctIndex {
		return
	}
	for _, f := range staged {
		if f.d == nil {
			continue
		}
		for _, a := range f.d.New {
			db.putKey(prefixAcctIndex, a[:], nil)
		}
	}
}

// putAcctIndex stages the index entry of a in b (a genesis being streamed
// into a store).
func putAcctIndex(b *store.Batch, a types.Address) {
	b.Put(append(append(make([]byte, 0, len(prefixAcctIndex)+len(a)), prefixAcctIndex...), a[:]...), nil)
}

// IndexedAccounts returns up to n addresses of the account index: with
// reverse false, ascending from bound (inclusive; nil: from the first);
// with reverse, descending from below bound (exclusive; nil: from the
// last). The index lists every address that held an account in some
// state since genesis: callers keep those that hold one in the state
// they read.
func (c *Chain) IndexedAccounts(bound []byte, reverse bool, n int) ([]types.Address, error) {
	if c.fork.Load() != nil {
		return nil, ErrForkAccounts
	}
	return c.db.IndexedAccounts(bound, reverse, n)
}

// IndexedAccounts is Chain.IndexedAccounts on the store alone.
func (db *DB) IndexedAccounts(bound []byte, reverse bool, n int) ([]types.Address, error) {
	if !db.acctIndex {
		return nil, ErrNoAccountIndex
	}
	if n <= 0 {
		return nil, nil
	}
	if !reverse {
		return db.acctRange(prefixAcctIndex, bound, nil, n)
	}
	return db.acctDown(nil, bound, n, max(4*n, 1024), nil)
}

// acctDown appends to out, descending, up to n indexed addresses that
// start with p and are below bound (nil: any). The store iterates only
// upwards: a range of at most limit addresses is read whole and turned
// round; a larger one is walked one next byte at a time, from the top, so
// a walk down reads about as many keys as it returns, whatever the size
// of the index (addresses are hashes, spread evenly over their bytes).
func (db *DB) acctDown(p, bound []byte, n, limit int, out []types.Address) ([]types.Address, error) {
	var below []byte
	if bound != nil && bytes.HasPrefix(bound, p) {
		if len(bound) == len(p) {
			return out, nil // every address starting with p is at or above bound
		}
		below = bound
	}
	all, err := db.acctRange(append(slices.Clip(prefixAcctIndex), p...), nil, below, limit+1)
	if err != nil {
		return nil, err
	}
	if len(all) <= limit || len(p) >= len(types.Address{}) {
		for i := len(all) - 1; i >= 0 && len(out) < n; i-- {
			out = append(out, all[i])
		}
		return out, nil
	}
	top := 0xff
	if below != nil {
		top = int(below[len(p)])
	}
	for c := top; c >= 0 && len(out) < n; c-- {
		if out, err = db.acctDown(append(slices.Clip(p), byte(c)), below, n, limit, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// acctRange returns the indexed addresses under prefix, ascending, from
// from (inclusive; nil: the first) and below below (exclusive; nil: no
// bound), at most n of them (n < 0: all).
func (db *DB) acctRange(prefix, from, below []byte, n int) ([]types.Address, error) {
	var out []types.Address
	start := append(slices.Clip(prefixAcctIndex), from...)
	fn := func(k []byte) bool {
		if bytes.Compare(k, start) < 0 {
			return true
		}
		a := k[len(prefixAcctIndex):]
		if len(a) != len(types.Address{}) {
			return true
		}
		if below != nil && bytes.Compare(a, below) >= 0 {
			return false
		}
		out = append(out, types.Address(a))
		return n < 0 || len(out) < n
	}
	if r, ok := db.kv.(keyRanger); ok {
		return out, r.IterateKeysFrom(prefix, start, fn)
	}
	return out, db.kv.Iterate(prefix, func(k, _ []byte) bool { return fn(k) })
}

// keyRanger is a store that seeks to a key (store.DB, store.MemDB); any
// other is walked from the prefix.
type keyRanger interface {
	IterateKeysFrom(prefix, start []byte, fn func(key []byte) bool) error
}
