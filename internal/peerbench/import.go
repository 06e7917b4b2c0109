package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/consensus/beacon"
	"github.com/ethereum/go-ethereum/consensus/ethash"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/rawdb"
	gtypes "github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	grlp "github.com/ethereum/go-ethereum/rlp"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
)

// Block import: the same chain of ERC-20 transfer blocks, built by chaind's
// proposer path, fully validated and executed by chaind (chain.InsertChain
// on an in-memory store) and by go-ethereum (core.BlockChain.InsertChain on
// an in-memory database with its default cache config). Blocks are decoded
// from RLP outside the timer on every iteration, so neither side starts
// with senders already recovered.

const (
	importBlocks   = 40
	importPerBlock = 250
	importSenders  = 16
)

type importFixture struct {
	genesis *chain.Genesis
	raw     [][]byte
	gas     uint64
	err     error
}

var (
	importOnce sync.Once
	importFix  importFixture
)

func importData() *importFixture {
	importOnce.Do(func() {
		f := &importFix
		keys := devload.Keys("peerbench-import", importSenders)
		f.genesis = devload.GenesisWithToken(1337, keys, 1_700_000_000)
		blocks, err := devload.GenerateChain(f.genesis, keys, devload.KindERC20, importBlocks, importPerBlock)
		if err != nil {
			f.err = err
			return
		}
		for _, b := range blocks {
			f.raw = append(f.raw, b.EncodeRLP())
			f.gas += b.GasUsed()
		}
		// ns/op of the case covers f.gas: Mgas/s = gas*1000/ns.
		fmt.Fprintf(os.Stderr, "import fixture: %d blocks, %d gas (Mgas/s = %d / ns/op * 1000)\n", len(blocks), f.gas, f.gas)
	})
	return &importFix
}

func gethGenesis(g *chain.Genesis) (*core.Genesis, error) {
	js, err := json.Marshal(g)
	if err != nil {
		return nil, err
	}
	var gg core.Genesis
	if err := json.Unmarshal(js, &gg); err != nil {
		return nil, err
	}
	// chaind's genesis JSON carries no blob schedule; go-ethereum refuses a
	// config whose active forks lack one, so each fork the genesis turns on
	// gets go-ethereum's default entry (the same targets chaind applies).
	bs := gg.Config.BlobScheduleConfig
	if bs == nil {
		bs = new(params.BlobScheduleConfig)
		gg.Config.BlobScheduleConfig = bs
	}
	if bs.Cancun == nil && gg.Config.CancunTime != nil {
		bs.Cancun = params.DefaultCancunBlobConfig
	}
	if bs.Prague == nil && gg.Config.PragueTime != nil {
		bs.Prague = params.DefaultPragueBlobConfig
	}
	if bs.Osaka == nil && gg.Config.OsakaTime != nil {
		bs.Osaka = params.DefaultOsakaBlobConfig
	}
	return &gg, nil
}

func importOurs(b *testing.B) {
	b.StopTimer() // the first call builds the fixture
	f := importData()
	if f.err != nil {
		b.Fatal(f.err)
	}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		blocks := make([]*types.Block, len(f.raw))
		for j, r := range f.raw {
			blk, err := types.DecodeBlock(r)
			if err != nil {
				b.Fatal(err)
			}
			blocks[j] = blk
		}
		c, err := chain.Open(f.genesis, store.NewMem(), nil)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if n, err := c.InsertChain(blocks, nil); err != nil {
			b.Fatalf("chaind: block %d: %v", blocks[n].Number(), err)
		}
	}
}

func importGeth(b *testing.B) {
	b.StopTimer()
	f := importData()
	if f.err != nil {
		b.Fatal(f.err)
	}
	gg, err := gethGenesis(f.genesis)
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		blocks := make(gtypes.Blocks, len(f.raw))
		for j, r := range f.raw {
			blk := new(gtypes.Block)
			if err := grlp.DecodeBytes(r, blk); err != nil {
				b.Fatal(err)
			}
			blocks[j] = blk
		}
		bc, err := core.NewBlockChain(rawdb.NewMemoryDatabase(), gg, beacon.New(ethash.NewFaker()), core.DefaultConfig())
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if n, err := bc.InsertChain(blocks); err != nil {
			b.Fatalf("geth: block %d: %v", blocks[n].NumberU64(), err)
		}
		b.StopTimer()
		bc.Stop()
		b.StartTimer()
	}
}

func init() {
	register(Case{
		Area: "import",
		Name: fmt.Sprintf("erc20 %dx%d-tx blocks", importBlocks, importPerBlock),
		Ours: importOurs,
		Geth: importGeth,
	})
}
