package chain

import (
	"testing"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// synthetic returns a block with a bloom naming tag and one transaction
// unique to (branch, number).
func synthetic(parent types.Hash, number uint64, branch byte) *types.Block {
	h := &types.Header{ParentHash: parent, Number: number, Extra: []byte{branch}}
	h.Bloom.Add([]byte{branch, byte(number)})
	tx := types.NewTx(&types.LegacyTx{Nonce: number, Data: []byte{branch}, V: *uint256.NewInt(27), R: *uint256.NewInt(1), S: *uint256.NewInt(1)})
	return types.NewBlock(h, &types.Body{Transactions: []*types.Transaction{tx}})
}

// A reorganisation rewrites the canonical index, the transaction lookups
// and the blooms of every height it touches, also inside a bloom group
// that was already packed, and forgets the heights above a shorter new
// head.
func TestReorgIndexes(t *testing.T) {
	db := NewDB(store.NewMem())
	var old []*types.Block
	parent := types.Hash{}
	for n := uint64(0); n < 70; n++ { // group 0 (blocks 0..63) gets packed
		b := synthetic(parent, n, 'a')
		if err := db.WriteBlock(b, nil); err != nil {
			t.Fatal(err)
		}
		old, parent = append(old, b), b.Hash()
	}
	// A branch from block 59 to 65: five blocks replace 60..69.
	var branch []*types.Block
	parent = old[59].Hash()
	for n := uint64(60); n <= 65; n++ {
		b := synthetic(parent, n, 'b')
		if n < 65 {
			if err := db.WriteSideBlock(b, nil, nil); err != nil {
				t.Fatal(err)
			}
		}
		branch, parent = append(branch, b), b.Hash()
	}
	s := &canonSwitch{base: old[59], oldHead: 69, branch: branch[:len(branch)-1], tip: branch[len(branch)-1]}
	if err := db.switchCanonical(s); err != nil {
		t.Fatal(err)
	}
	if h, _ := db.HeadHash(); h != branch[len(branch)-1].Hash() {
		t.Fatalf("head %s, want the branch's last block", h)
	}
	reader := db.NewBloomReader()
	for n := uint64(55); n <= 69; n++ {
		h, ok := db.CanonicalHash(n)
		oldTx := old[n].Transactions()[0].Hash()
		_, _, oldIndexed := db.TxLookup(oldTx)
		bloom, hasBloom, err := reader.Bloom(n)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case n < 60:
			if !ok || h != old[n].Hash() || !oldIndexed || !hasBloom || !bloom.Test([]byte{'a', byte(n)}) {
				t.Errorf("block %d below the fork point changed", n)
			}
		case n <= 65:
			b := branch[n-60]
			bh, _, newIndexed := db.TxLookup(b.Transactions()[0].Hash())
			if !ok || h != b.Hash() || oldIndexed || !newIndexed || bh != b.Hash() || !hasBloom || !bloom.Test([]byte{'b', byte(n)}) || bloom.Test([]byte{'a', byte(n)}) {
				t.Errorf("block %d: canonical %v %s, old tx indexed %v, new tx indexed %v, bloom %v", n, ok, h, oldIndexed, newIndexed, hasBloom)
			}
		default:
			if ok || oldIndexed || hasBloom {
				t.Errorf("height %d above the new head: canonical %v, old tx indexed %v, bloom %v", n, ok, oldIndexed, hasBloom)
			}
		}
	}
	// Writing on past the new head keeps the bloom index whole, across the
	// group that was unpacked.
	parent = branch[len(branch)-1].Hash()
	for n := uint64(66); n < 130; n++ {
		b := synthetic(parent, n, 'c')
		if err := db.WriteBlock(b, nil); err != nil {
			t.Fatal(err)
		}
		parent = b.Hash()
	}
	reader = db.NewBloomReader()
	for n := uint64(0); n < 130; n++ {
		bloom, ok, err := reader.Bloom(n)
		var want byte = 'a'
		switch {
		case n >= 66:
			want = 'c'
		case n >= 60:
			want = 'b'
		}
		if err != nil || !ok || !bloom.Test([]byte{want, byte(n)}) {
			t.Fatalf("bloom of block %d after the reorganisation: ok %v err %v", n, ok, err)
		}
	}
}
