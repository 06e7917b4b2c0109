package chain

import (
	"math/rand"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

// storeOrDie is runtime code: with calldata (key, value) it stores value
// at key; without, it self-destructs to the caller.
var storeOrDie = []byte{0x36, 0x15, 0x60, 0x0d, 0x57, 0x60, 0x20, 0x35, 0x60, 0x00, 0x35, 0x55, 0x00, 0x5b, 0x33, 0xff}

// storeOrDieInit deploys storeOrDie with slot 5 set to 42.
var storeOrDieInit = append([]byte{0x60, 0x2a, 0x60, 0x05, 0x55,
	0x60, byte(len(storeOrDie)), 0x60, 0x11, 0x60, 0x00, 0x39,
	0x60, byte(len(storeOrDie)), 0x60, 0x00, 0xf3}, storeOrDie...)

// trieOnly hides the chain DB's flat copy: a StateDB on it reads the tries.
type trieOnly struct{ db *DB }

func (t trieOnly) Node(h [32]byte) ([]byte, error) { return t.db.Node(h) }
func (t trieOnly) Update(s *trie.NodeSet) error    { return t.db.Update(s) }

// checkFlat recomputes the state root from the flat copy alone and
// compares it with want, then compares reads through the copy at each of
// roots with reads of the tries.
func checkFlat(t *testing.T, c *Chain, want types.Hash, addrs []types.Address, roots ...types.Hash) {
	t.Helper()
	if r, ok := c.db.FlatRoot(); !ok || r != want {
		t.Fatalf("flat copy at %s (valid %v), want %s", r, ok, want)
	}
	got, err := c.db.ComputeFlatRoot()
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("root from the flat copy %s, want %s", got, want)
	}
	for _, root := range append(roots, want) {
		if !c.db.flat.Covers(root) {
			t.Fatalf("flat copy does not cover recent state %s", root)
		}
		fs, err := c.StateAt(root)
		if err != nil {
			t.Fatal(err)
		}
		ts, err := state.New(root, trieOnly{c.db})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range addrs {
			if fb, tb := fs.GetBalance(a), ts.GetBalance(a); !fb.Eq(tb) || fs.GetNonce(a) != ts.GetNonce(a) || fs.Exist(a) != ts.Exist(a) {
				t.Fatalf("state %s, %s: flat balance %s nonce %d, trie %s %d", root, a, fb, fs.GetNonce(a), tb, ts.GetNonce(a))
			}
			for k := byte(0); k < 8; k++ {
				if fv, tv := fs.GetState(a, types.Hash{31: k}), ts.GetState(a, types.Hash{31: k}); fv != tv {
					t.Fatalf("state %s, %s slot %d: flat %s, trie %s", root, a, k, fv, tv)
				}
			}
		}
	}
}

// TestFlatStateFollowsTheChain runs random blocks (transfers to new and
// old accounts, slot writes and deletions, contract creations and
// self-destructs), proof-of-work reorganisations, rewinds, development
// state changes and reopenings, and after each checks the state root the
// flat copy gives against the head's, and reads of recent states through
// the copy against the tries.
func TestFlatStateFollowsTheChain(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		flatRun(t, seed, false)
	}
}

// flatRun prunes by mark and sweep, or incrementally.
func flatRun(t *testing.T, seed int64, incremental bool) {
	rng := rand.New(rand.NewSource(seed))
	h := &canonHarness{t: t, nonces: map[int]uint64{}}
	cfg := powConfig()
	h.g = &Genesis{Config: cfg, GasLimit: 30_000_000, Alloc: Alloc{}}
	h.g.Difficulty.SetUint64(1_000_000)
	var bal U256
	bal.SetUint64(1e18)
	var addrs []types.Address
	for i := 0; i < 3; i++ {
		key, _ := crypto.GenerateKey()
		h.keys = append(h.keys, key)
		a := types.Address(crypto.PubkeyToAddress(key.PubKey()))
		h.g.Alloc[a] = Account{Balance: bal}
		addrs = append(addrs, a)
	}
	contracts := []types.Address{{0xcc}, {0xcd}}
	for _, a := range contracts {
		h.g.Alloc[a] = Account{Code: storeOrDie, Storage: map[types.Hash]types.Hash{{31: 1}: {31: 1}, {31: 2}: {31: 2}}}
	}
	addrs = append(addrs, contracts...)
	kv := &flakyKV{KV: store.NewMem()}
	h.kv = kv
	open := func() {
		c, err := Open(h.g, kv, nil)
		if err != nil {
			t.Fatal(err)
		}
		h.c = c
	}
	open()
	checkFlat(t, h.c, h.c.Head().Root(), addrs)

	// randomTxs makes up to four transactions on parent's state.
	randomTxs := func(parent *types.Block) []*types.Transaction {
		st, err := h.c.StateAt(parent.Root())
		if err != nil {
			t.Fatal(err)
		}
		var txs []*types.Transaction
		for n := 1 + rng.Intn(4); n > 0; n-- {
			k := rng.Intn(len(h.keys))
			from := addrs[k]
			nonce := st.GetNonce(from)
			for _, tx := range txs {
				if s, _ := h.c.Config.Signer(1, 1).Sender(tx); s == from {
					nonce++
				}
			}
			inner := &types.DynamicFeeTx{ChainID: *uint256.NewInt(8118), Nonce: nonce, GasTipCap: *uint256.NewInt(1),
				GasFeeCap: *uint256.NewInt(4e9), Gas: 200_000}
			switch rng.Intn(5) {
			case 0: // a new account
				to := types.Address{0xaa, byte(rng.Intn(256)), byte(rng.Intn(256))}
				inner.To, inner.Value = &to, *uint256.NewInt(uint64(1 + rng.Intn(1000)))
				addrs = append(addrs, to)
			case 1: // an existing one, maybe a contract
				to := addrs[rng.Intn(len(addrs))]
				inner.To, inner.Value = &to, *uint256.NewInt(uint64(rng.Intn(3)))
			case 2, 3: // a slot write (value 0 deletes)
				to := contracts[rng.Intn(len(contracts))]
				data := make([]byte, 64)
				data[31], data[63] = byte(rng.Intn(8)), byte(rng.Intn(3))
				inner.To, inner.Data = &to, data
			case 4:
				if rng.Intn(3) == 0 { // a self-destruct
					to := contracts[rng.Intn(len(contracts))]
					inner.To = &to
				} else { // a contract creation with storage
					inner.Data = storeOrDieInit
					created := types.CreateAddress(from, nonce)
					contracts = append(contracts, created)
					addrs = append(addrs, created)
				}
			}
			txs = append(txs, types.MustSignNewTx(h.keys[k], h.c.Config.Signer(1, 1), inner))
		}
		return txs
	}

	var snapshots []types.Hash // roots of development state changes
	deleted := 0
	for step := 0; step < 80; step++ {
		head := h.c.Head()
		r := rng.Intn(10)
		switch {
		case r < 5 || head.Number() < 4:
			h.insert(h.powBlock(head, 13, randomTxs(head)...))
		case r < 7: // a heavier branch from a few blocks back
			base := head
			for k := 1 + rng.Intn(3); k > 0 && base.Number() > 0; k-- {
				var err error
				if base, err = h.c.db.Block(base.ParentHash()); err != nil {
					t.Fatal(err)
				}
			}
			var branch []*types.Block
			parent := base
			for n := head.Number() - base.Number() + 1; n > 0; n-- {
				b := h.powBlock(parent, 1, randomTxs(parent)...)
				h.insert(b)
				branch = append(branch, b)
				parent = b
			}
			h.wantHead(branch[len(branch)-1])
		case r < 8:
			if err := h.c.Rewind(head.Number() - 1 - uint64(rng.Intn(2))); err != nil {
				t.Fatal(err)
			}
		case r < 9: // a development helper changes the head's state outside a block
			before := head.Root()
			st, err := h.c.StateAt(before)
			if err != nil {
				t.Fatal(err)
			}
			st.SetBalance(addrs[rng.Intn(len(addrs))], uint256.NewInt(uint64(rng.Intn(1e6))))
			st.SetState(contracts[0], types.Hash{31: byte(rng.Intn(8))}, types.Hash{31: byte(rng.Intn(3))})
			root, err := h.c.CommitState(st)
			if err != nil {
				t.Fatal(err)
			}
			snapshots = append(snapshots, root)
			checkFlat(t, h.c, root, addrs, before)
			checkAccountIndex(t, h.c, root)
			// The head's own state stays readable beside the edited one
			// (a snapshot revert goes back to it).
			if st, err := h.c.StateAt(before); err != nil {
				t.Fatal(err)
			} else {
				st.Release()
			}
			h.insert(h.powBlock(h.c.Head(), 13, randomTxs(h.c.Head())...))
		default:
			open()
		}
		head = h.c.Head()
		var recent []types.Hash
		if head.Number() > 0 {
			parent, err := h.c.db.Block(head.ParentHash())
			if err != nil {
				t.Fatal(err)
			}
			recent = append(recent, parent.Root())
		}
		if fr, _ := h.c.db.FlatRoot(); fr != head.Root() {
			// A rewind leaves the copy ahead until the next block: the
			// head's state is then read through the journal.
			if !h.c.db.flat.Covers(head.Root()) {
				t.Fatalf("step %d: rewound head's state %s not covered", step, head.Root())
			}
			h.insert(h.powBlock(head, 13, randomTxs(head)...))
			head = h.c.Head()
			recent = recent[:0]
			if parent, err := h.c.db.Block(head.ParentHash()); err == nil {
				recent = append(recent, parent.Root())
			}
		}
		checkFlat(t, h.c, head.Root(), addrs, recent...)
		checkAccountIndex(t, h.c, head.Root())
		if step%5 == 4 {
			if incremental {
				st, err := h.c.PruneStep(pruneKeep, nil)
				if err != nil {
					t.Fatal(err)
				}
				deleted += st.Deleted
			} else {
				st, err := h.c.Prune(pruneKeep)
				if err != nil {
					t.Fatal(err)
				}
				deleted += st.Deleted
			}
			checkKeptStates(t, h.c, pruneKeep)
		}
	}
	if deleted == 0 {
		t.Fatal("pruning never deleted a node: the check proves nothing")
	}
}

const pruneKeep = 4

// checkKeptStates reads every node and code blob of the states pruning
// keeps (the last keep blocks' and the genesis'), through the tries alone:
// a pruned node still reachable from a kept root fails it.
func checkKeptStates(t *testing.T, c *Chain, keep uint64) {
	t.Helper()
	head := c.Head().Number()
	roots := []types.Hash{c.Genesis().Root()}
	for n := head; n+keep > head && n <= head; n-- {
		b, err := c.BlockByNumber(n)
		if err != nil {
			t.Fatal(err)
		}
		roots = append(roots, b.Root())
		if n == 0 {
			break
		}
	}
	db := trieOnly{c.db}
	for _, root := range roots {
		at, err := trie.New(root, db)
		if err != nil {
			t.Fatalf("kept state %s: %v", root, err)
		}
		it := at.NewIterator(nil)
		for it.Next() {
			acct, err := state.DecodeAccount(it.Value())
			if err != nil {
				t.Fatal(err)
			}
			if acct.CodeHash != state.EmptyCodeHash {
				if _, err := db.Node(acct.CodeHash); err != nil {
					t.Fatalf("kept state %s: code %s: %v", root, acct.CodeHash, err)
				}
			}
			if acct.Root == state.EmptyRoot {
				continue
			}
			stt, err := trie.New(acct.Root, db)
			if err != nil {
				t.Fatalf("kept state %s: storage %s: %v", root, acct.Root, err)
			}
			sit := stt.NewIterator(nil)
			for sit.Next() {
			}
			if err := sit.Err(); err != nil {
				t.Fatalf("kept state %s: storage %s: %v", root, acct.Root, err)
			}
		}
		if err := it.Err(); err != nil {
			t.Fatalf("kept state %s: %v", root, err)
		}
	}
}
