package chain

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chaind/chaind/internal/conformance"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rlp"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
)

// TestExecuteVectorChain replays the Cancun-era JSON-RPC test chain block
// by block with full validation and checks the documented head hash.
func TestExecuteVectorChain(t *testing.T) {
	replay(t, "execution-apis/tests", "0x8f64c4436f7213cfdf02cfb9f45d012f1774dfb329b8803de5e7479b11586902")
}

// TestExecuteLatestVectorChain replays the newest JSON-RPC test chain:
// proof-of-work blocks, the merge, then Shanghai through Osaka and BPO2.
func TestExecuteLatestVectorChain(t *testing.T) {
	replay(t, "execution-apis-latest/tests", "0xd226371d0b1551adb03fb52b71f08e3e11247fe9b1af994768af8cdaa8e7dcd7")
}

func replay(t *testing.T, sub, head string) {
	vec := conformance.VectorsDir("../..")
	if vec == "" {
		t.Skip("../shared/vectors absent: chain replay skipped")
	}
	dir := filepath.Join(vec, sub)
	g, err := LoadGenesis(filepath.Join(dir, "genesis.json"))
	if err != nil {
		t.Fatal(err)
	}
	db := trie.NewMemoryDB()
	genesis, err := g.Commit(db)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "chain.rlp"))
	if err != nil {
		t.Fatal(err)
	}
	hashes := map[uint64]types.Hash{0: genesis.Hash()}
	parent := genesis.Header()
	for len(data) > 0 {
		_, _, rest, err := rlp.Split(data)
		if err != nil {
			t.Fatal(err)
		}
		b, err := types.DecodeBlock(data[:len(data)-len(rest)])
		if err != nil {
			t.Fatal(err)
		}
		data = rest
		if err := EthereumRules(g.Config).ValidateHeader(parent, b.HeaderRef()); err != nil {
			t.Fatalf("block %d header: %v", b.Number(), err)
		}
		if err := g.Config.ValidateBody(b); err != nil {
			t.Fatalf("block %d body: %v", b.Number(), err)
		}
		st, err := state.New(parent.Root, db)
		if err != nil {
			t.Fatal(err)
		}
		res, err := EthereumRules(g.Config).Process(b, st, func(n uint64) types.Hash { return hashes[n] })
		if err != nil {
			t.Fatalf("block %d: %v", b.Number(), err)
		}
		if err := g.Config.ValidateResult(b, res); err != nil {
			t.Fatalf("block %d: %v", b.Number(), err)
		}
		if _, err := st.Commit(true); err != nil {
			t.Fatal(err)
		}
		hashes[b.Number()] = b.Hash()
		parent = b.Header()
	}
	if got, want := parent.Hash().Hex(), head; got != want {
		t.Fatalf("head %d is %s, want %s", parent.Number, got, want)
	}
}
