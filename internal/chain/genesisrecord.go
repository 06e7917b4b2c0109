package chain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
)

// What a data directory keeps of its genesis. Block 0 and its state are
// in the store like any block; beside them, the genesis spec without its
// allocation (config, block 0's fields, the staking section: a few KiB
// whatever the number of accounts) so that a start reads one small record
// instead of parsing and committing the allocation again, and two digests
// that let a genesis given again (a --genesis file, --dev) be recognised
// without building its block 0:
//
//	m:genesis-head   the spec without its allocation (with it for a fork,
//	                 whose block 0 every start builds again over the
//	                 upstream state)
//	m:genesis-alloc  allocDigest of the allocation
//	m:genesis-engine keccak256 of the JSON of the accounts the engine added
//
// A directory made before this layout holds the whole spec under
// m:genesis-spec; its first writable open moves it to the layout above.
var (
	keyGenesisHead   = []byte("m:genesis-head")
	keyGenesisAlloc  = []byte("m:genesis-alloc")
	keyGenesisEngine = []byte("m:genesis-engine")
	keyGenesisSpec   = []byte("m:genesis-spec") // the layout before: the whole spec
)

// ErrAllocNotLoaded is returned for a genesis read from a data directory
// whose allocation was left in the store's state (StoredGenesis): its
// block 0 cannot be built again from it.
var ErrAllocNotLoaded = errors.New("genesis allocation not loaded (it is in the data directory's state)")

// StoredHash returns block 0's hash of a genesis read from a data
// directory (StoredGenesis), false for any other.
func (g *Genesis) StoredHash() (types.Hash, bool) {
	return g.stored, g.stored != (types.Hash{})
}

// headSpec is the record m:genesis-head of g.
func (g *Genesis) headSpec() ([]byte, error) {
	head := *g
	if g.Fork == nil {
		head.Alloc = nil
	}
	return json.Marshal(&head)
}

// allocDigest is keccak256 over the accounts of a in the order of their
// hashed addresses (the state trie's order, in which a streamed genesis
// meets them): each the hashed address, then keccak256 of the account's
// JSON.
func allocDigest(a Alloc) ([]byte, error) {
	type entry struct{ key, acc types.Hash }
	entries := make([]entry, 0, len(a))
	for addr, acc := range a {
		raw, err := json.Marshal(&acc)
		if err != nil {
			return nil, err
		}
		entries = append(entries, entry{types.Hash(crypto.Keccak256(addr[:])), types.Hash(crypto.Keccak256(raw))})
	}
	sort.Slice(entries, func(i, j int) bool { return bytes.Compare(entries[i].key[:], entries[j].key[:]) < 0 })
	d := newAllocDigester()
	for _, e := range entries {
		d.add(e.key, e.acc)
	}
	return d.sum(), nil
}

// allocDigester computes allocDigest from accounts met in hashed-address
// order.
type allocDigester struct{ h crypto.KeccakState }

func newAllocDigester() *allocDigester { return &allocDigester{h: crypto.NewKeccak()} }

func (d *allocDigester) add(key, accJSONHash types.Hash) {
	d.h.Write(key[:])
	d.h.Write(accJSONHash[:])
}

func (d *allocDigester) sum() []byte { return d.h.Sum(nil) }

// engineDigest is keccak256 of the JSON of an engine's genesis accounts.
func engineDigest(a Alloc) ([]byte, error) {
	raw, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	h := crypto.Keccak256(raw)
	return h[:], nil
}

// genesisRecords are the records of g's genesis (see above): e is the
// chain's engine, alloc the digest of g's allocation.
func genesisRecords(g *Genesis, e Engine, alloc []byte) (head, eng []byte, err error) {
	if head, err = g.headSpec(); err != nil {
		return nil, nil, err
	}
	extra, err := e.GenesisAlloc(g)
	if err != nil {
		return nil, nil, err
	}
	if eng, err = engineDigest(extra); err != nil {
		return nil, nil, err
	}
	return head, eng, nil
}

// putGenesisRecords stages g's records in b, replacing those of the layout
// before.
func putGenesisRecords(b interface {
	Put(k, v []byte)
	Delete(k []byte)
}, head, alloc, eng []byte) {
	b.Put(keyGenesisHead, head)
	b.Put(keyGenesisAlloc, alloc)
	b.Put(keyGenesisEngine, eng)
	b.Delete(keyGenesisSpec)
}

// isStoredGenesis reports whether g is the genesis kv holds, by its
// records: read from it, or spelled the same with the same allocation and
// engine accounts. False means only that the records do not tell (the
// caller builds block 0 to know).
func isStoredGenesis(kv store.KV, g *Genesis, e Engine, gh types.Hash) (bool, error) {
	if g.Fork != nil {
		return false, nil // its block 0 is built at every start in any case
	}
	if h, ok := g.StoredHash(); ok {
		return h == gh, nil
	}
	alloc, err := allocDigest(g.Alloc)
	if err != nil {
		return false, err
	}
	head, eng, err := genesisRecords(g, e, alloc)
	if err != nil {
		return false, err
	}
	return storedIs(kv, keyGenesisHead, head) && storedIs(kv, keyGenesisAlloc, alloc) && storedIs(kv, keyGenesisEngine, eng), nil
}

// storedIs reports whether the store holds exactly want under key.
func storedIs(kv store.KV, key, want []byte) bool {
	stored, err := kv.Get(key)
	return err == nil && bytes.Equal(stored, want)
}

// StoredGenesis returns the genesis a data directory was initialised with,
// or false for an empty one. Its allocation is not read (except a fork's):
// the state of block 0 holds it, and StoredHash gives block 0's hash.
func StoredGenesis(kv store.KV) (*Genesis, bool, error) {
	spec, err := kv.Get(keyGenesisHead)
	omitted := true
	if errors.Is(err, store.ErrNotFound) {
		// The layout before: the whole spec, parsed once more until a
		// writable open moves it (migrateGenesisRecords).
		spec, err = kv.Get(keyGenesisSpec)
		omitted = false
	}
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	g, err := ParseGenesis(spec)
	if err != nil {
		return nil, false, fmt.Errorf("stored genesis: %w", err)
	}
	gh, err := kv.Get(keyGenesis)
	if err != nil || len(gh) != 32 {
		return nil, false, fmt.Errorf("stored genesis: no block 0 hash (%v)", err)
	}
	g.stored = types.Hash(gh)
	g.allocOmitted = omitted && g.Fork == nil
	return g, true, nil
}

// migrateGenesisRecords moves the whole spec of a data directory of the
// layout before to the records above, once: until then every start
// parses it.
func migrateGenesisRecords(kv store.KV, e Engine) error {
	spec, err := kv.Get(keyGenesisSpec)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	g, err := ParseGenesis(spec)
	if err != nil {
		return fmt.Errorf("stored genesis: %w", err)
	}
	alloc, err := allocDigest(g.Alloc)
	if err != nil {
		return err
	}
	head, eng, err := genesisRecords(g, e, alloc)
	if err != nil {
		return err
	}
	// The engine digest block 0 was built with, when there is one, stays:
	// the engine may have changed since.
	if old, err := kv.Get(keyGenesisEngine); err == nil {
		eng = old
	}
	var b store.Batch
	putGenesisRecords(&b, head, alloc, eng)
	if err := kv.Write(&b); !errors.Is(err, store.ErrReadOnly) {
		return err
	}
	return nil // a read-only open (export, the report of repair) leaves it to the next writable one
}
