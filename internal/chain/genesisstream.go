package chain

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/state/flat"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

// InitGenesis is chaind init for a genesis of any size: the JSON read from
// r is decoded one allocation at a time and spooled to sorted runs in tmp
// (a directory on the data directory's disk), the runs are merged in the
// state trie's key order, and the tries and the flat copy are written as
// they are built (stack tries: memory bounded by their depth), in batches
// of initBatchBytes. Memory holds one account at a time, its storage
// included, and one sort run. The result is the store Open would have
// made from the same genesis, with the genesis read back as StoredGenesis
// gives it (no allocation in memory).
//
// kv must hold no chain. A fork genesis (its state is another chain's) is
// refused with ErrStreamFork: Open builds it.
func InitGenesis(r io.Reader, kv store.KV, engineFor func(*Genesis) Engine, tmp string) (*Genesis, error) {
	return initGenesis(r, kv, engineFor, tmp, initRunBytes)
}

// ErrStreamFork is returned by InitGenesis for a fork genesis.
var ErrStreamFork = errors.New("a fork genesis is not streamed")

const (
	initRunBytes   = 256 << 20 // one sort run in memory
	initBatchBytes = 16 << 20  // one store batch
)

func initGenesis(r io.Reader, kv store.KV, engineFor func(*Genesis) Engine, tmp string, runBytes int) (*Genesis, error) {
	db := NewDB(kv)
	if _, ok := db.GenesisHash(); ok {
		return nil, errors.New("the data directory already holds a chain")
	}
	empty := true
	if err := kv.IterateKeys(nil, func([]byte) bool { empty = false; return false }); err != nil {
		return nil, err
	}
	if !empty {
		// What an init that failed half-way wrote: never mixed with
		// another genesis's state.
		return nil, errors.New("the data directory holds data but no chain (an interrupted init?); remove it and init again")
	}
	sp, err := newSpool(tmp, runBytes)
	if err != nil {
		return nil, err
	}
	defer sp.remove()
	g, err := decodeStreamed(r, sp)
	if err != nil {
		return nil, err
	}
	if g.Fork != nil {
		return nil, ErrStreamFork
	}
	if err := sp.finish(); err != nil {
		return nil, err
	}
	g.spool = sp
	defer func() { g.spool = nil }()
	e := engineFor(g)
	if e == nil {
		e = Ethereum{}
	}
	extra, err := e.GenesisAlloc(g)
	if err != nil {
		return nil, err
	}
	eng, err := engineDigest(extra)
	if err != nil {
		return nil, err
	}
	w := &stateWriter{kv: kv, pin: newPinSet(pinKeysFor(sp.n, sp.slots))}
	root, alloc, err := w.writeMerged(sp, extra)
	if err != nil {
		return nil, err
	}
	head, err := g.headSpec()
	if err != nil {
		return nil, err
	}
	blk := types.NewBlock(g.header(root), &types.Body{Withdrawals: g.withdrawals()})
	db.startAcctIndex() // writeMerged indexed every account it wrote
	if err := db.writeGenesisBlock(blk, head, alloc, eng, w.pin); err != nil {
		return nil, err
	}
	g.stored, g.allocOmitted = blk.Hash(), true
	return g, nil
}

// decodeStreamed reads a genesis JSON object, spooling its allocations
// (keyed by hashed address) and keeping the rest, which it parses as
// ParseGenesis does.
func decodeStreamed(r io.Reader, sp *spool) (*Genesis, error) {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<20))
	if err := expectDelim(dec, '{'); err != nil {
		return nil, err
	}
	rest := map[string]json.RawMessage{}
	var rec []byte
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("genesis: %w", err)
		}
		k, _ := tok.(string)
		if !strings.EqualFold(k, "alloc") {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, fmt.Errorf("genesis: %s: %w", k, err)
			}
			rest[k] = raw
			continue
		}
		if err := expectDelim(dec, '{'); err != nil {
			return nil, fmt.Errorf("genesis: alloc: %w", err)
		}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return nil, fmt.Errorf("genesis: alloc: %w", err)
			}
			a, err := parseAllocAddress(tok.(string))
			if err != nil {
				return nil, err
			}
			var acc Account
			if err := dec.Decode(&acc); err != nil {
				return nil, fmt.Errorf("genesis: alloc %s: %w", a, err)
			}
			if rec, err = appendSpooled(rec[:0], a, &acc); err != nil {
				return nil, err
			}
			if err := sp.add(types.Hash(crypto.Keccak256(a[:])), rec); err != nil {
				return nil, err
			}
			sp.slots += len(acc.Storage)
		}
		if _, err := dec.Token(); err != nil { // the closing brace
			return nil, fmt.Errorf("genesis: alloc: %w", err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("genesis: %w", err)
	}
	head, err := json.Marshal(rest)
	if err != nil {
		return nil, err
	}
	return ParseGenesis(head)
}

func expectDelim(dec *json.Decoder, d json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != d {
		return fmt.Errorf("want %q, found %v", d, tok)
	}
	return nil
}

// A spooled allocation: address(20), keccak256 of the account's JSON
// (allocDigest), nonce (uvarint), balance(32), code (uvarint length,
// bytes), then the slots (uvarint count, then key(32) value(32) each).
func appendSpooled(out []byte, a types.Address, acc *Account) ([]byte, error) {
	raw, err := json.Marshal(acc)
	if err != nil {
		return nil, err
	}
	jh := crypto.Keccak256(raw)
	out = append(out, a[:]...)
	out = append(out, jh[:]...)
	out = binary.AppendUvarint(out, uint64(acc.Nonce))
	bal := acc.Balance.Bytes32()
	out = append(out, bal[:]...)
	out = binary.AppendUvarint(out, uint64(len(acc.Code)))
	out = append(out, acc.Code...)
	out = binary.AppendUvarint(out, uint64(len(acc.Storage)))
	for k, v := range acc.Storage {
		out = append(append(out, k[:]...), v[:]...)
	}
	return out, nil
}

// spooled is a decoded spooled allocation; its slices point into the
// record.
type spooled struct {
	addr     types.Address
	jsonHash types.Hash
	nonce    uint64
	balance  uint256.Int
	code     []byte
	slots    []byte // key(32) value(32) each
}

var errSpoolCorrupt = errors.New("genesis sort run: corrupt record")

func decodeSpooled(p []byte) (s spooled, err error) {
	if len(p) < 52 {
		return s, errSpoolCorrupt
	}
	s.addr, s.jsonHash, p = types.Address(p[:20]), types.Hash(p[20:52]), p[52:]
	n, k := binary.Uvarint(p)
	if k <= 0 || len(p) < k+32 {
		return s, errSpoolCorrupt
	}
	s.nonce, p = n, p[k:]
	s.balance.SetBytes32(p[:32])
	p = p[32:]
	n, k = binary.Uvarint(p)
	if k <= 0 || uint64(len(p)-k) < n {
		return s, errSpoolCorrupt
	}
	s.code, p = p[k:k+int(n)], p[k+int(n):]
	n, k = binary.Uvarint(p)
	if k <= 0 || uint64(len(p)-k) != 64*n {
		return s, errSpoolCorrupt
	}
	s.slots = p[k:]
	return s, nil
}

// account returns the allocation as a genesis Account (a copy).
func (s *spooled) account() Account {
	acc := Account{Balance: U256{Int: s.balance}, Nonce: Uint64(s.nonce), Code: bytes.Clone(s.code)}
	if len(s.slots) > 0 {
		acc.Storage = make(map[types.Hash]types.Hash, len(s.slots)/64)
		for i := 0; i < len(s.slots); i += 64 {
			acc.Storage[types.Hash(s.slots[i:i+32])] = types.Hash(s.slots[i+32 : i+64])
		}
	}
	return acc
}

// ForEachAlloc calls fn for every allocation of g: those of Alloc, or of a
// genesis being streamed into a store (InitGenesis), which are not held in
// memory. A genesis read back from a store has none to give.
func (g *Genesis) ForEachAlloc(fn func(types.Address, *Account) error) error {
	if g.allocOmitted {
		return ErrAllocNotLoaded
	}
	if g.spool != nil {
		return g.spool.each(func(_ types.Hash, p []byte) error {
			s, err := decodeSpooled(p)
			if err != nil {
				return err
			}
			acc := s.account()
			return fn(s.addr, &acc)
		})
	}
	for a, acc := range g.Alloc {
		if err := fn(a, &acc); err != nil {
			return err
		}
	}
	return nil
}

// stateWriter writes a state into a store in key order: trie nodes, code
// and the flat copy, in batches.
type stateWriter struct {
	kv    store.KV
	pin   *bloom // every node and code blob written (prunepin.go)
	b     store.Batch
	key   []byte
	enc   []byte
	slots []slotEntry
}

type slotEntry struct {
	key types.Hash // hashed
	val types.Hash
}

func (w *stateWriter) node(hash [32]byte, blob []byte) {
	w.pin.add(hash)
	w.key = append(append(w.key[:0], prefixNode...), hash[:]...)
	w.b.Put(w.key, blob)
}

func (w *stateWriter) maybeFlush() error {
	if w.b.Size() < initBatchBytes {
		return nil
	}
	err := w.kv.Write(&w.b)
	w.b.Reset()
	return err
}

// writeMerged writes the accounts of the spool merged with the engine's
// (which replace an allocation of the same address), returning the state
// root and the allocation's digest (allocDigest).
func (w *stateWriter) writeMerged(sp *spool, extra Alloc) (types.Hash, []byte, error) {
	type engineAcc struct {
		key  types.Hash
		addr types.Address
	}
	var eng []engineAcc
	for a := range extra {
		eng = append(eng, engineAcc{types.Hash(crypto.Keccak256(a[:])), a})
	}
	slices.SortFunc(eng, func(x, y engineAcc) int { return bytes.Compare(x.key[:], y.key[:]) })
	accounts := trie.NewStackTrieWriter(w.node)
	digest := newAllocDigester()
	put := func(key types.Hash, addr types.Address, nonce uint64, bal *uint256.Int, code []byte, slots func(func(k, v types.Hash))) error {
		a := state.Account{Nonce: nonce, Balance: *bal, Root: state.EmptyRoot, CodeHash: state.EmptyCodeHash}
		if len(code) > 0 {
			a.CodeHash = types.Hash(crypto.Keccak256(code))
			w.node(a.CodeHash, code)
		}
		w.slots = w.slots[:0]
		slots(func(k, v types.Hash) {
			if v != (types.Hash{}) { // a zero value stores nothing
				w.slots = append(w.slots, slotEntry{types.Hash(crypto.Keccak256(k[:])), v})
			}
		})
		if len(w.slots) > 0 {
			slices.SortFunc(w.slots, func(x, y slotEntry) int { return bytes.Compare(x.key[:], y.key[:]) })
			st := trie.NewStackTrieWriter(w.node)
			for _, s := range w.slots {
				w.enc = state.AppendStorageValue(w.enc[:0], &s.val)
				if err := st.Update(s.key[:], w.enc); err != nil {
					return fmt.Errorf("genesis: storage of %s: %w", addr, err)
				}
				flat.PutSlot(&w.b, key, s.key, w.enc)
				if err := w.maybeFlush(); err != nil {
					return err
				}
			}
			a.Root = st.Hash()
		}
		w.enc = a.AppendRLP(w.enc[:0])
		if err := accounts.Update(key[:], w.enc); err != nil {
			return err
		}
		flat.PutAccount(&w.b, key, w.enc)
		putAcctIndex(&w.b, addr)
		return w.maybeFlush()
	}
	putEngine := func(e engineAcc) error {
		acc := extra[e.addr]
		return put(e.key, e.addr, uint64(acc.Nonce), &acc.Balance.Int, acc.Code, func(fn func(k, v types.Hash)) {
			for k, v := range acc.Storage {
				fn(k, v)
			}
		})
	}
	var prev *types.Hash
	err := sp.merge(func(key types.Hash, p []byte) error {
		if prev != nil && *prev == key {
			s, _ := decodeSpooled(p)
			return fmt.Errorf("genesis: alloc: address %s given twice", s.addr)
		}
		prev = &key
		s, err := decodeSpooled(p)
		if err != nil {
			return err
		}
		digest.add(key, s.jsonHash)
		for len(eng) > 0 && bytes.Compare(eng[0].key[:], key[:]) < 0 {
			if err := putEngine(eng[0]); err != nil {
				return err
			}
			eng = eng[1:]
		}
		if len(eng) > 0 && eng[0].key == key {
			return nil // the engine's account is written in its place
		}
		return put(key, s.addr, s.nonce, &s.balance, s.code, func(fn func(k, v types.Hash)) {
			for i := 0; i < len(s.slots); i += 64 {
				fn(types.Hash(s.slots[i:i+32]), types.Hash(s.slots[i+32:i+64]))
			}
		})
	})
	if err != nil {
		return types.Hash{}, nil, err
	}
	for _, e := range eng {
		if err := putEngine(e); err != nil {
			return types.Hash{}, nil, err
		}
	}
	root := types.Hash(accounts.Hash())
	flat.PutRoot(&w.b, root)
	if err := w.kv.Write(&w.b); err != nil {
		return types.Hash{}, nil, err
	}
	w.b.Reset()
	return root, digest.sum(), nil
}
