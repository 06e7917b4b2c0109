package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/node"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/store"
)

func init() {
	register(command{"init", "write a genesis block into a data directory: init --genesis FILE --datadir DIR", runInit})
	register(command{"import", "import a file of RLP blocks: import --genesis FILE [--datadir DIR] CHAIN.rlp", runImport})
	register(command{"export", "write the canonical chain as RLP blocks: export --datadir DIR [--from N] [--to N] OUT.rlp", runExport})
}

func runInit(args []string) int {
	fs := flag.NewFlagSet("chaind init", flag.ContinueOnError)
	genesis := fs.String("genesis", "", "genesis.json to initialise with (required)")
	datadir := fs.String("datadir", "", "data directory (required)")
	if code, ok := parseFlags(fs, fs.Name()+" [flags]", args); !ok {
		return code
	}
	if *genesis == "" || *datadir == "" || fs.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: chaind init --genesis FILE --datadir DIR")
		return 2
	}
	if _, ok, err := readStoredGenesis(*datadir); err != nil {
		fmt.Fprintln(os.Stderr, "chaind init:", err)
		return 1
	} else if !ok {
		// An empty directory: the genesis is streamed in, so that its
		// allocation need not fit in memory.
		g, err := streamInit(*genesis, *datadir)
		if err == nil {
			h, _ := g.StoredHash()
			fmt.Printf("initialised %s: chain ID %d, genesis %s, head 0\n", *datadir, g.Config.ChainID, h)
			return 0
		}
		if !errors.Is(err, chain.ErrStreamFork) {
			fmt.Fprintln(os.Stderr, "chaind init:", err)
			return 1
		}
	}
	g, err := chain.LoadGenesis(*genesis)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaind init:", err)
		return 1
	}
	c, code, ok := openChainCmd(fs.Name(), *datadir, g)
	if !ok {
		return code
	}
	defer c.Close()
	fmt.Printf("initialised %s: chain ID %d, genesis %s, head %d\n", *datadir, g.Config.ChainID, c.Genesis().Hash(), c.Head().Number())
	return 0
}

// streamInit writes the genesis file path into the empty data directory
// dir (chain.InitGenesis), its sort runs in dir.
func streamInit(path, dir string) (*chain.Genesis, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Flushed and compacted on close: the first start then replays no
	// log and finds no backlog of merges to run beside its first blocks.
	kv, err := store.OpenWith(dir, store.Options{FlushOnClose: true, CompactOnClose: true})
	if err != nil {
		return nil, err
	}
	g, err := chain.InitGenesis(f, kv, func(g *chain.Genesis) chain.Engine { return pos.ForGenesis(g) }, dir)
	return g, errors.Join(err, kv.Close())
}

func runImport(args []string) int {
	fs := flag.NewFlagSet("chaind import", flag.ContinueOnError)
	genesis := fs.String("genesis", "", "genesis.json of the chain (required unless the data directory has one)")
	datadir := fs.String("datadir", "", "data directory (default: in memory, for a dry run)")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	logFormat := fs.String("log.format", "text", "log line format: text or json")
	every := fs.Duration("progress", 2*time.Second, "time between progress lines")
	if code, ok := parseFlags(fs, fs.Name()+" [flags] CHAIN.rlp", args); !ok {
		return code
	}
	if fs.NArg() != 1 {
		return usageError(fs.Name(), "want one chain file: chaind import --genesis FILE [--datadir DIR] CHAIN.rlp")
	}
	if *every <= 0 {
		return usageError(fs.Name(), "--progress must be positive")
	}
	log, err := newLogger(*logLevel, *logFormat)
	if err != nil {
		return usageError(fs.Name(), err.Error())
	}
	var g *chain.Genesis
	if *genesis != "" {
		if g, err = chain.LoadGenesis(*genesis); err != nil {
			fmt.Fprintln(os.Stderr, "chaind import:", err)
			return 1
		}
	} else if stored, ok, err := readStoredGenesis(*datadir); err != nil {
		fmt.Fprintln(os.Stderr, "chaind import:", err)
		return 1
	} else if ok {
		g = stored
	} else {
		fmt.Fprintln(os.Stderr, "chaind import: --genesis is required for an empty data directory")
		return 2
	}
	total, err := countFileBlocks(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaind import:", err)
		return 1
	}
	n, err := node.New(node.Config{Genesis: g, DataDir: *datadir, HTTPPort: -1, WSPort: -1, Log: log})
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaind import:", err)
		return 1
	}
	defer n.Close()
	log.Warn("proof-of-work seals of imported blocks are trusted, not verified; every other block rule is checked")
	log.Info("importing", "file", fs.Arg(0), "blocks", total)
	start := time.Now()
	p := importProgress{total: uint64(total), start: start, last: start}
	var gas uint64
	count, err := n.ImportFile(fs.Arg(0), func(imported, g uint64) {
		gas += g
		if now := time.Now(); now.Sub(p.last) >= *every {
			p.report(log, imported, gas, now, n.Chain.Head().Number())
		}
	})
	elapsed := time.Since(start)
	head := n.Chain.Head()
	if err != nil {
		fmt.Fprintf(os.Stderr, "chaind import: %v (imported %d blocks before it; head %d %s)\n", err, count, head.Number(), head.Hash())
		return 1
	}
	secs := elapsed.Seconds()
	fmt.Printf("imported %d blocks in %s (%.0f blocks/s, %.1f Mgas/s); head %d %s\n",
		count, elapsed.Round(time.Millisecond), float64(count)/secs, float64(gas)/secs/1e6, head.Number(), head.Hash())
	return 0
}

// countFileBlocks counts the blocks of a chain file before importing it.
func countFileBlocks(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return chain.CountBlocks(f)
}

// importProgress makes the import's progress lines: blocks done of the
// file's total, the rate since the last line and the time left at that
// rate.
type importProgress struct {
	total               uint64
	start, last         time.Time
	lastBlocks, lastGas uint64
}

func (p *importProgress) report(log *slog.Logger, imported, gas uint64, now time.Time, head uint64) {
	dt := now.Sub(p.last).Seconds()
	rate := float64(imported-p.lastBlocks) / dt
	log.Info("importing", progressAttrs(imported, p.total, rate, float64(gas-p.lastGas)/dt, head)...)
	p.last, p.lastBlocks, p.lastGas = now, imported, gas
}

// progressAttrs are the fields of one progress line; eta is "unknown"
// while nothing moves.
func progressAttrs(imported, total uint64, blocksPerSec, gasPerSec float64, head uint64) []any {
	pct := 100.0
	if total > 0 {
		pct = 100 * float64(imported) / float64(total)
	}
	eta := "unknown"
	if blocksPerSec > 0 && total >= imported {
		eta = (time.Duration(float64(total-imported) / blocksPerSec * float64(time.Second))).Round(time.Second).String()
	}
	return []any{"blocks", imported, "total", total, "percent", fmt.Sprintf("%.1f", pct),
		"blocks/s", fmt.Sprintf("%.0f", blocksPerSec), "Mgas/s", fmt.Sprintf("%.1f", gasPerSec/1e6), "eta", eta, "head", head}
}

func runExport(args []string) int {
	fs := flag.NewFlagSet("chaind export", flag.ContinueOnError)
	datadir := fs.String("datadir", "", "data directory (required)")
	from := fs.Uint64("from", 1, "first block")
	to := fs.Uint64("to", 0, "last block (default: head)")
	if code, ok := parseFlags(fs, fs.Name()+" [flags]", args); !ok {
		return code
	}
	if code, ok := checkArgs(fs.Name(),
		check{*to != 0 && *to < *from, "--to must not be below --from"},
	); !ok {
		return code
	}
	if *datadir == "" || fs.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: chaind export --datadir DIR [--from N] [--to N] OUT.rlp")
		return 2
	}
	c, code, ok := openChainCmd(fs.Name(), *datadir, nil)
	if !ok {
		return code
	}
	defer c.Close()
	last := c.Head().Number()
	if *to != 0 && *to < last {
		last = *to
	}
	if *from > last {
		fmt.Fprintf(os.Stderr, "chaind export: --from %d is past the last block %d\n", *from, last)
		return 2
	}
	f, err := os.Create(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaind export:", err)
		return 1
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := *from; i <= last; i++ {
		b, err := c.BlockByNumber(i)
		if err == nil {
			_, err = w.Write(b.EncodeRLP())
		}
		if err != nil {
			f.Close()
			fmt.Fprintf(os.Stderr, "chaind export: block %d: %v\n", i, err)
			return 1
		}
	}
	if err := errors.Join(w.Flush(), f.Sync(), f.Close()); err != nil {
		fmt.Fprintln(os.Stderr, "chaind export:", err)
		return 1
	}
	fmt.Printf("exported blocks %d..%d to %s\n", *from, last, fs.Arg(0))
	return 0
}
