package chain

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/holiman/uint256"
)

// canonHarness drives one chain through reorganisations, rewinds and
// resets, remembering every transaction and address it ever used, so its
// indexes can be compared with those of a node that only saw the final
// canonical chain.
type canonHarness struct {
	t       *testing.T
	g       *Genesis
	c       *Chain
	kv      *flakyKV
	keys    []*secp256k1.PrivateKey
	nonces  map[int]uint64
	txs     []types.Hash
	addrs   []types.Address
	fwd     types.Address // forwards its call value to payee
	payee   types.Address
	payTo   []types.Address // plain recipients
	created types.Address
	// wipedAt, when set, is the block after which the history index was
	// wiped (a data directory older than the index): the fresh node
	// starts its index after the same block.
	wipedAt *uint64
}

// wipeHistory deletes every history-index key of c, as a data directory
// written before the index existed lacks them.
func wipeHistory(t *testing.T, c *Chain) {
	var wipe store.Batch
	c.db.kv.IterateKeys([]byte("x"), func(k []byte) bool {
		wipe.Delete(append([]byte(nil), k...))
		return true
	})
	if err := c.db.kv.Write(&wipe); err != nil {
		t.Fatal(err)
	}
}

func (h *canonHarness) wipe() {
	n := h.c.Head().Number()
	h.wipedAt = &n
	wipeHistory(h.t, h.c)
}

// powConfig is every fork through London at genesis, merging never: the
// fork choice is the heaviest chain.
func powConfig() *Config {
	z := u64(0)
	return &Config{ChainID: 8118,
		HomesteadBlock: z, EIP150Block: z, EIP155Block: z, EIP158Block: z, ByzantiumBlock: z,
		ConstantinopleBlock: z, PetersburgBlock: z, IstanbulBlock: z, MuirGlacierBlock: z,
		BerlinBlock: z, LondonBlock: z, ArrowGlacierBlock: z, GrayGlacierBlock: z}
}

func newCanonHarness(t *testing.T, cfg *Config) *canonHarness {
	h := &canonHarness{t: t, nonces: map[int]uint64{}, fwd: types.Address{0xf1}, payee: types.Address{0xee},
		payTo: []types.Address{{0xa}, {0xb}, {0xc}}}
	h.g = &Genesis{Config: cfg, GasLimit: 30_000_000, Alloc: Alloc{}}
	h.g.Difficulty.SetUint64(1_000_000)
	var bal U256
	bal.SetUint64(1e18)
	for i := 0; i < 2; i++ {
		key, _ := crypto.GenerateKey()
		h.keys = append(h.keys, key)
		a := types.Address(crypto.PubkeyToAddress(key.PubKey()))
		h.g.Alloc[a] = Account{Balance: bal}
		h.addrs = append(h.addrs, a)
	}
	h.g.Alloc[h.fwd] = Account{Code: forwarder(h.payee, false)}
	h.created = types.CreateAddress(h.addrs[0], 0)
	h.addrs = append(h.addrs, h.fwd, h.payee, h.created)
	h.addrs = append(h.addrs, h.payTo...)
	h.kv = &flakyKV{KV: store.NewMem()}
	c, err := Open(h.g, h.kv, nil)
	if err != nil {
		t.Fatal(err)
	}
	h.c = c
	return h
}

// flakyKV counts batches and, while fail is set, refuses them.
type flakyKV struct {
	store.KV
	fail   bool
	writes int
}

var errDiskFull = errors.New("disk full")

func (f *flakyKV) Write(b *store.Batch) error {
	if f.fail {
		return errDiskFull
	}
	f.writes++
	return f.KV.Write(b)
}

// tx signs a transaction of key k with the given nonce: to nil creates
// a contract, value goes with it.
func (h *canonHarness) tx(k int, nonce uint64, to *types.Address) *types.Transaction {
	gas := uint64(100_000)
	tx := types.MustSignNewTx(h.keys[k], h.c.Config.Signer(1, 1), &types.DynamicFeeTx{ChainID: *uint256.NewInt(8118),
		Nonce: nonce, GasTipCap: *uint256.NewInt(1), GasFeeCap: *uint256.NewInt(4e9), Gas: gas, To: to, Value: *uint256.NewInt(7)})
	h.txs = append(h.txs, tx.Hash())
	return tx
}

// powBlock executes txs on parent's state into a proof-of-work block
// stamped gap seconds after it (a smaller gap: a heavier block).
func (h *canonHarness) powBlock(parent *types.Block, gap uint64, txs ...*types.Transaction) *types.Block {
	h.t.Helper()
	ph := parent.HeaderRef()
	cfg := h.c.Config
	hd := &types.Header{ParentHash: parent.Hash(), UncleHash: types.EmptyUncleHash, Number: ph.Number + 1,
		GasLimit: ph.GasLimit, Time: ph.Time + gap, Coinbase: types.Address{0xc0, 0x1b}, BaseFee: cfg.CalcBaseFee(ph)}
	hd.Difficulty = *cfg.CalcDifficulty(hd.Time, ph)
	st, err := h.c.StateAt(parent.Root())
	if err != nil {
		h.t.Fatal(err)
	}
	x, err := EthereumRules(cfg).Open(hd, st, h.c.ancestorHashes(parent), nil)
	if err != nil {
		h.t.Fatal(err)
	}
	for _, tx := range txs {
		if _, _, err := x.ApplyTx(tx); err != nil {
			h.t.Fatalf("tx %s in block %d: %v", tx.Hash(), hd.Number, err)
		}
	}
	res, err := x.Finish(nil, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	return x.Seal(res)
}

func (h *canonHarness) insert(blocks ...*types.Block) {
	h.t.Helper()
	for _, b := range blocks {
		if _, err := h.c.InsertBlock(b); err != nil {
			h.t.Fatalf("insert block %d: %v", b.Number(), err)
		}
	}
}

// posBlock builds and commits a block of txs on the head, with its
// certificate, as a validator does.
func (h *canonHarness) posBlock(txs ...*types.Transaction) *types.Block {
	h.t.Helper()
	built, err := h.c.BuildBlock(BuildParams{Time: h.c.Head().Time() + 12}, txs)
	if err != nil {
		h.t.Fatal(err)
	}
	if len(built.Block.Transactions()) != len(txs) {
		h.t.Fatalf("block %d holds %d of %d transactions", built.Block.Number(), len(built.Block.Transactions()), len(txs))
	}
	// An opaque certificate naming the block: a rewind must drop it
	// with the block.
	bh := built.Block.Hash()
	if err := h.c.CommitCertified(built, append([]byte("cert of "), bh[:]...)); err != nil {
		h.t.Fatal(err)
	}
	return built.Block
}

func (h *canonHarness) wantHead(b *types.Block) {
	h.t.Helper()
	if got := h.c.Head(); got.Hash() != b.Hash() {
		h.t.Fatalf("head is block %d %s, want %d %s", got.Number(), got.Hash(), b.Number(), b.Hash())
	}
}

// indexPrefixes are the store tables that describe the canonical chain.
var indexPrefixes = [][]byte{prefixCanonical, prefixTxLookup, prefixBloom, prefixBloomGroup, prefixCert,
	prefixTxOrdinal, prefixTxCumul, prefixAddrTx, prefixAddrTxCount, prefixBlockAddrs, keyTxIndexFrom, keyHead}

func dumpIndexes(t *testing.T, c *Chain) map[string]string {
	out := map[string]string{}
	for _, p := range indexPrefixes {
		err := c.db.kv.Iterate(p, func(k, v []byte) bool {
			out[fmt.Sprintf("%q", k)] = fmt.Sprintf("%x", v)
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// compare builds a node that only ever saw the final canonical chain and
// checks that every index of the harness's chain equals its own: the
// whole store tables, and what the explorer reads through the chain's
// API (address lists, ordinals, counts, lookups).
func (h *canonHarness) compare() {
	t := h.t
	t.Helper()
	fresh, err := Open(h.g, store.NewMem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	head := h.c.Head().Number()
	for n := uint64(1); n <= head; n++ {
		b, err := h.c.BlockByNumber(n)
		if err != nil {
			t.Fatal(err)
		}
		insert := func() (types.Receipts, error) { return fresh.InsertBlock(b) }
		if cert, cerr := h.c.Certificate(n); cerr == nil {
			insert = func() (types.Receipts, error) { return fresh.InsertCertified(b, cert) }
		}
		if _, err := insert(); err != nil {
			t.Fatalf("fresh node, block %d: %v", n, err)
		}
		if h.wipedAt != nil && *h.wipedAt == n {
			wipeHistory(t, fresh)
		}
	}
	got, want := dumpIndexes(t, h.c), dumpIndexes(t, fresh)
	var diffs []string
	for k, v := range want {
		if got[k] != v {
			diffs = append(diffs, fmt.Sprintf("%s: have %q, want %q", k, got[k], v))
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: have %q, want none", k, v))
		}
	}
	sort.Strings(diffs)
	for i, d := range diffs {
		if i == 20 {
			t.Errorf("... %d more", len(diffs)-20)
			break
		}
		t.Errorf("index entry %s", d)
	}
	for _, a := range h.addrs {
		if g, w := addressList(t, h.c, a), addressList(t, fresh, a); g != w {
			t.Errorf("address %s lists\n%s\nwant\n%s", a, g, w)
		}
	}
	for _, tx := range h.txs {
		gb, gi, gok := h.c.DB().TxLookup(tx)
		wb, wi, wok := fresh.DB().TxLookup(tx)
		if gb != wb || gi != wi || gok != wok {
			t.Errorf("lookup of tx %s = %s %d %v, want %s %d %v", tx, gb, gi, gok, wb, wi, wok)
		}
	}
	for n := uint64(0); n <= head+3; n++ {
		g, gerr := h.c.DB().TxCountThrough(n)
		w, werr := fresh.DB().TxCountThrough(n)
		if g != w || !errors.Is(gerr, werr) {
			t.Errorf("TxCountThrough(%d) = %d, %v; want %d, %v", n, g, gerr, w, werr)
		}
	}
	for o := uint64(0); o < uint64(len(h.txs))+2; o++ {
		g, gerr := h.c.DB().TxAt(o)
		w, werr := fresh.DB().TxAt(o)
		if g != w || !errors.Is(gerr, werr) {
			t.Errorf("TxAt(%d) = %+v, %v; want %+v, %v", o, g, gerr, w, werr)
		}
	}
}

// addressList renders what the explorer's address page reads: the count,
// every entry, and the per-block split of the list.
func addressList(t *testing.T, c *Chain, a types.Address) string {
	var buf bytes.Buffer
	db := c.DB()
	n, err := db.AddressTxCount(a)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&buf, "count %d\n", n)
	for i := uint64(0); i <= n; i++ {
		ref, err := db.AddressTxAt(a, i)
		fmt.Fprintf(&buf, "%d: %d/%d %s %v\n", i, ref.Block, ref.Index, ref.Hash, err)
	}
	for blk := uint64(0); blk <= c.Head().Number()+1; blk++ {
		before, err := db.AddressTxCountBefore(a, blk)
		fmt.Fprintf(&buf, "before %d: %d %v\n", blk, before, err)
	}
	return buf.String()
}

// TestCanonicalChangeRewritesIndexes: after a proof-of-work
// reorganisation, a development rewind or a reset, every index of the
// chain — number to hash, transaction lookups, blooms, certificates, the
// history index behind the explorer's address pages — equals that of a
// node that only ever saw the final canonical chain.
func TestCanonicalChangeRewritesIndexes(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  func() *Config
		run  func(h *canonHarness)
	}{
		{"reorg depth 1", powConfig, func(h *canonHarness) {
			a, b, c := h.payTo[0], h.payTo[1], h.payTo[2]
			gen := h.c.Genesis()
			a1 := h.powBlock(gen, 20, h.tx(0, 0, &a), h.tx(1, 0, &h.fwd))
			h.insert(a1)
			// B1 is lighter than A1 and stays a side block; B2 makes its
			// branch the heavier one.
			b1 := h.powBlock(gen, 30, h.tx(0, 0, &b))
			h.insert(b1)
			h.wantHead(a1)
			b2 := h.powBlock(b1, 1, h.tx(1, 0, &a), h.tx(0, 1, &h.fwd), h.tx(0, 2, &c))
			h.insert(b2)
			h.wantHead(b2)
		}},
		{"reorg depth 3", powConfig, func(h *canonHarness) {
			a, b, c := h.payTo[0], h.payTo[1], h.payTo[2]
			gen := h.c.Genesis()
			shared := h.tx(0, 0, &a) // in both branches, at other places
			a1 := h.powBlock(gen, 20, shared, h.tx(1, 0, &h.fwd))
			h.insert(a1)
			a2 := h.powBlock(a1, 20, h.tx(0, 1, nil))
			h.insert(a2)
			a3 := h.powBlock(a2, 20, h.tx(1, 1, &b), h.tx(0, 2, &a))
			h.insert(a3)
			// B1 and B2 are lighter than A1..A3 and stay side blocks; B3
			// makes their branch the heavier one.
			b1 := h.powBlock(gen, 1, h.tx(1, 0, &c))
			h.insert(b1)
			b2 := h.powBlock(b1, 1, h.tx(1, 1, &h.fwd), shared)
			h.insert(b2)
			h.wantHead(a3)
			b3 := h.powBlock(b2, 1, h.tx(0, 1, &a), h.tx(1, 2, &b))
			h.insert(b3)
			h.wantHead(b3)
			// The chain goes on from the new branch.
			h.insert(h.powBlock(b3, 1, h.tx(0, 2, &h.fwd)))
		}},
		{"rewind then new blocks", func() *Config { return AllForks(8118) }, func(h *canonHarness) {
			a, b, c := h.payTo[0], h.payTo[1], h.payTo[2]
			h.posBlock(h.tx(0, 0, &a), h.tx(1, 0, &b))
			h.posBlock(h.tx(0, 1, &h.fwd))
			dropped := h.tx(1, 1, &c)
			h.posBlock(dropped, h.tx(0, 2, nil))
			h.posBlock(h.tx(0, 3, &a))
			if err := h.c.Rewind(2); err != nil {
				h.t.Fatal(err)
			}
			h.posBlock(h.tx(0, 2, &b), dropped)
			h.posBlock(h.tx(1, 2, &h.fwd))
		}},
		{"reorg onto a side block stored without its transfers", powConfig, func(h *canonHarness) {
			a, b := h.payTo[0], h.payTo[1]
			gen := h.c.Genesis()
			a1 := h.powBlock(gen, 20, h.tx(0, 0, &a))
			h.insert(a1)
			b1 := h.powBlock(gen, 30, h.tx(0, 0, &h.fwd), h.tx(1, 0, &b))
			h.insert(b1)
			// As a block stored by an earlier version: its transfers
			// (to the payee, inside the forwarder) come from executing
			// it again.
			var del store.Batch
			bh := b1.Hash()
			del.Delete(key(prefixTransfers, bh[:]))
			if err := h.c.db.kv.Write(&del); err != nil {
				h.t.Fatal(err)
			}
			b2 := h.powBlock(b1, 1, h.tx(1, 1, &a))
			h.insert(b2)
			h.wantHead(b2)
		}},
		{"rewind below where the index began", func() *Config { return AllForks(8118) }, func(h *canonHarness) {
			a, b, c := h.payTo[0], h.payTo[1], h.payTo[2]
			h.posBlock(h.tx(0, 0, &a))
			h.posBlock(h.tx(1, 0, &h.fwd))
			h.wipe() // the index begins with block 3
			h.posBlock(h.tx(0, 1, &b), h.tx(1, 1, &a))
			h.posBlock(h.tx(0, 2, &h.fwd))
			if err := h.c.Rewind(1); err != nil {
				h.t.Fatal(err)
			}
			h.wipedAt = new(uint64)
			*h.wipedAt = 1
			h.posBlock(h.tx(1, 0, &c))
			h.posBlock(h.tx(0, 1, &a), h.tx(1, 1, &h.fwd))
		}},
		{"reset to genesis", func() *Config { return AllForks(8118) }, func(h *canonHarness) {
			a, b := h.payTo[0], h.payTo[1]
			first := h.tx(0, 0, &a)
			h.posBlock(first, h.tx(1, 0, &h.fwd))
			h.posBlock(h.tx(0, 1, nil), h.tx(1, 1, &b))
			h.posBlock(h.tx(0, 2, &h.fwd))
			if err := h.c.Reset(nil); err != nil {
				h.t.Fatal(err)
			}
			h.wantHead(h.c.Genesis())
			h.compare()
			h.posBlock(h.tx(1, 0, &b), first)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newCanonHarness(t, tc.cfg())
			tc.run(h)
			h.compare()
		})
	}
}

// TestCanonicalChangeIsOneBatch: a reorganisation and a rewind each reach
// the store as one batch, head and indexes together; a batch that fails
// leaves the store and the chain as they were, and the same change then
// goes through.
func TestCanonicalChangeIsOneBatch(t *testing.T) {
	h := newCanonHarness(t, powConfig())
	a := h.payTo[0]
	gen := h.c.Genesis()
	a1 := h.powBlock(gen, 20, h.tx(0, 0, &a))
	h.insert(a1)
	a2 := h.powBlock(a1, 20, h.tx(1, 0, &h.fwd))
	h.insert(a2)
	b1 := h.powBlock(gen, 1, h.tx(1, 0, &a))
	h.insert(b1)
	b2 := h.powBlock(b1, 1, h.tx(0, 0, &h.fwd))
	before := dumpIndexes(t, h.c)
	h.kv.fail = true
	if _, err := h.c.InsertBlock(b2); !errors.Is(err, errDiskFull) {
		t.Fatalf("reorganisation on a failing store: %v", err)
	}
	h.kv.fail = false
	h.wantHead(a2)
	if after := dumpIndexes(t, h.c); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatal("a failed reorganisation changed the indexes")
	}
	h.compare()
	writes := h.kv.writes
	h.insert(b2)
	h.wantHead(b2)
	if n := h.kv.writes - writes; n != 1 {
		t.Fatalf("the reorganisation took %d batches, want 1", n)
	}
	h.compare()

	before = dumpIndexes(t, h.c)
	h.kv.fail = true
	if err := h.c.Rewind(1); !errors.Is(err, errDiskFull) {
		t.Fatalf("rewind on a failing store: %v", err)
	}
	h.kv.fail = false
	h.wantHead(b2)
	if after := dumpIndexes(t, h.c); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatal("a failed rewind changed the indexes")
	}
	writes = h.kv.writes
	if err := h.c.Rewind(1); err != nil {
		t.Fatal(err)
	}
	h.wantHead(b1)
	if n := h.kv.writes - writes; n != 1 {
		t.Fatalf("the rewind took %d batches, want 1", n)
	}
	h.compare()
}
