package node

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/consensus/cycle"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/p2p"
)

var (
	syncBlocks = flag.Int("sync.blocks", 10_000, "blocks of BenchmarkSyncVsImport")
	syncTxs    = flag.Int("sync.txs", 10, "ERC-20 transfers per block of BenchmarkSyncVsImport")
	syncProf   = flag.String("sync.cpuprofile", "", "write a CPU profile of the sync phase of BenchmarkSyncVsImport to this file")
)

// BenchmarkSyncVsImport builds a certified chain of ERC-20 transfer blocks
// (4 validators sign every certificate), then measures a fresh full node
// syncing it over p2p from a node that serves it (every certificate
// checked against the validator set, every block executed and stored), and
// a node importing the same blocks from memory without the network or
// the certificates. Both on disk. It reports Mgas/s of each and their
// ratio (the goal is sync ≥ 0.8 × import).
func BenchmarkSyncVsImport(b *testing.B) {
	for range b.N {
		syncVsImport(b, *syncBlocks, *syncTxs)
	}
}

func syncVsImport(b *testing.B, blocks, perBlock int) {
	senders := devload.Keys("syncbench", 16)
	genesis := devload.GenesisWithToken(8119, senders, 1_700_000_000)
	var keys []*consensus.Signer
	var members []consensus.Validator
	for i := range 4 {
		k, err := DevValidatorKey(300 + i)
		if err != nil {
			b.Fatal(err)
		}
		s, err := consensus.NewSigner(8119, k.Serialize())
		if err != nil {
			b.Fatal(err)
		}
		keys = append(keys, s)
		members = append(members, consensus.Validator{Address: types.Address(crypto.PrivkeyToAddress(k)), Power: 1})
	}
	set, err := consensus.NewValidatorSet(members)
	if err != nil {
		b.Fatal(err)
	}
	vals := cycle.NewSchedule(set)
	dir := b.TempDir()
	srcAddr := freePortB(b)
	src, err := New(Config{Genesis: genesis, DataDir: filepath.Join(dir, "source"), HTTPPort: -1, WSPort: -1, Validators: vals,
		P2P: &P2PConfig{ListenAddr: srcAddr}, Log: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()

	start := time.Now()
	signer := devload.NewSigner(8119)
	nonces := make([]uint64, len(senders))
	var gas uint64
	for h := uint64(1); h <= uint64(blocks); h++ {
		var txs []*types.Transaction
		for i := range perBlock {
			s := (int(h)*perBlock + i) % len(senders)
			tx, err := signer.Workload(devload.KindERC20, senders[s], nonces[s], 1, devload.TokenAddress)
			if err != nil {
				b.Fatal(err)
			}
			nonces[s]++
			txs = append(txs, tx...)
		}
		if err := commitCertified(src.Chain, set, keys, h, txs); err != nil {
			b.Fatalf("block %d: %v", h, err)
		}
		gas += src.Chain.Head().GasUsed()
	}
	b.Logf("built %d certified blocks of %d ERC-20 transfers (%.1f Mgas) in %v", blocks, perBlock, float64(gas)/1e6, time.Since(start).Round(time.Millisecond))
	if err := src.Start(); err != nil {
		b.Fatal(err)
	}

	// A fresh full node syncs it over p2p.
	b.ResetTimer()
	if *syncProf != "" {
		f, err := os.Create(*syncProf)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			b.Fatal(err)
		}
	}
	t0 := time.Now()
	full, err := New(Config{Genesis: genesis, DataDir: filepath.Join(dir, "full"), HTTPPort: -1, WSPort: -1, Validators: vals,
		P2P: &P2PConfig{StaticPeers: []p2p.PeerAddr{{ID: src.net.Load().Host().ID(), Addr: srcAddr}}}, Log: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	defer full.Close()
	if err := full.Start(); err != nil {
		b.Fatal(err)
	}
	for full.Chain.Head().Number() < uint64(blocks) {
		if time.Since(t0) > 30*time.Minute {
			b.Fatalf("sync reached %d of %d blocks in 30 minutes", full.Chain.Head().Number(), blocks)
		}
		time.Sleep(5 * time.Millisecond)
	}
	syncTime := time.Since(t0)
	if *syncProf != "" {
		pprof.StopCPUProfile()
	}
	if full.Chain.Head().Hash() != src.Chain.Head().Hash() {
		b.Fatal("the synced head differs from the source's")
	}
	full.Close()

	// One node imports the same blocks (read from the source first).
	var all []*types.Block
	for h := uint64(1); h <= uint64(blocks); h++ {
		blk, err := src.Chain.BlockByNumber(h)
		if err != nil {
			b.Fatal(err)
		}
		all = append(all, blk)
	}
	imp, err := New(Config{Genesis: genesis, DataDir: filepath.Join(dir, "import"), HTTPPort: -1, WSPort: -1, Log: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	defer imp.Close()
	t1 := time.Now()
	for _, blk := range all {
		if _, err := imp.Chain.InsertBlock(blk); err != nil {
			b.Fatal(err)
		}
	}
	importTime := time.Since(t1)
	b.StopTimer()

	syncRate := float64(gas) / 1e6 / syncTime.Seconds()
	importRate := float64(gas) / 1e6 / importTime.Seconds()
	b.ReportMetric(syncRate, "sync-Mgas/s")
	b.ReportMetric(importRate, "import-Mgas/s")
	b.ReportMetric(syncRate/importRate, "sync/import")
	b.Logf("%d blocks, %.1f Mgas: sync over p2p %v (%.1f Mgas/s, %.0f blocks/s), import %v (%.1f Mgas/s); sync/import %.2f",
		blocks, float64(gas)/1e6, syncTime.Round(time.Millisecond), syncRate, float64(blocks)/syncTime.Seconds(),
		importTime.Round(time.Millisecond), importRate, syncRate/importRate)
}

// commitCertified builds block h from txs on c and stores it with a
// certificate all validators signed, as consensus would have.
func commitCertified(c *chain.Chain, set *consensus.ValidatorSet, signers []*consensus.Signer, h uint64, txs []*types.Transaction) error {
	var parentCert []byte
	if h > 1 {
		var err error
		if parentCert, err = c.Certificate(h - 1); err != nil {
			return err
		}
	}
	built, err := c.BuildBlock(chain.BuildParams{Coinbase: types.Address(signers[0].Address()), Time: 1_700_000_000 + h,
		ParentBeaconRoot: pos.CertRoot(parentCert)}, txs)
	if err != nil {
		return err
	}
	if len(built.Block.Transactions()) != len(txs) {
		return fmt.Errorf("%d of %d transactions included", len(built.Block.Transactions()), len(txs))
	}
	var votes []consensus.Vote
	for _, s := range signers {
		v := consensus.Vote{Type: consensus.Precommit, Height: h, ID: built.Block.Hash(), Validator: s.Address()}
		s.SignVote(&v)
		votes = append(votes, v)
	}
	cert, err := consensus.NewCertificate(set, h, 0, built.Block.Hash(), votes)
	if err != nil {
		return err
	}
	return c.CommitCertified(built, cert.Encode())
}

func freePortB(b *testing.B) string {
	ps, err := devload.FreePorts("127.0.0.1", 1)
	if err != nil {
		b.Fatal(err)
	}
	return fmt.Sprintf("127.0.0.1:%d", ps[0])
}

func quietLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}
