package chain

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/trie"
)

// FuzzParseGenesis: hostile genesis JSON gives an error, never a panic, and
// an accepted genesis commits.
func FuzzParseGenesis(f *testing.F) {
	dev, _ := json.Marshal(DevGenesis(1337, []types.Address{{1}}, 1))
	f.Add(dev)
	f.Add([]byte(`{"config":{"chainId":1},"alloc":{"0x01":{"balance":"0x1","storage":{"0x1":"0x2"}}}}`))
	f.Add([]byte(`{"config":{"chainId":1,"londonBlock":0},"baseFeePerGas":"0x7","gasLimit":"0x1"}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := ParseGenesis(data)
		if err != nil {
			return
		}
		if len(g.Alloc) > 64 {
			return // keep iterations fast
		}
		g.Commit(trie.NewMemoryDB())
	})
}

// FuzzReadBlocks: a hostile chain file gives an error, never a panic.
func FuzzReadBlocks(f *testing.F) {
	g := DevGenesis(1337, nil, 1)
	blk, err := g.Commit(trie.NewMemoryDB())
	if err != nil {
		f.Fatal(err)
	}
	enc := blk.EncodeRLP()
	f.Add(enc)
	f.Add(append(append([]byte(nil), enc...), enc[:10]...))
	f.Add([]byte{0xf9, 0xff, 0xff})
	f.Add([]byte{0xc0})
	f.Fuzz(func(t *testing.T, data []byte) {
		ReadBlocks(bytes.NewReader(data), func(*types.Block) error { return nil })
	})
}
