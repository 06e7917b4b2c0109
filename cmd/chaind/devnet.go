package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto/hd"
	"github.com/chaind/chaind/internal/node"
)

func init() {
	register(command{"devnet", "run a network on loopback, one process per node: devnet --validators N [--full M] [--block-time D]", runDevnet})
}

func runDevnet(args []string) int {
	fs := flag.NewFlagSet("chaind devnet", flag.ContinueOnError)
	validators := fs.Int("validators", 4, "number of validators (equal stake)")
	blockTime := fs.Duration("block-time", time.Second, "minimum time between blocks")
	host := fs.String("host", "127.0.0.1", "address the JSON-RPC port binds to")
	httpPort := fs.Int("http.port", 8545, "JSON-RPC port of the first validator's node (0 any free port)")
	explorerPort := fs.Int("explorer.port", 8080, "block explorer port of the first validator's node (-1 off, 0 any free port)")
	chainID := fs.Uint64("chain-id", chain.MainChainID, "chain ID")
	stopAfter := fs.Duration("stop-one-after", 0, "stop the last validator after this long (shows the others carry on)")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	full := fs.Int("full", 0, "full nodes (no key; serve every API) besides the validators")
	out := fs.String("out", "", "directory for the network's genesis, keys, data and logs (default: a temporary one, removed at exit)")
	inProcess := fs.Bool("in-process", false, "run every validator in this process over an in-memory network instead (a validator that fails is named in the log and taken off the network; the others keep running)")
	sentry := fs.Bool("sentry", false, "sentry-node layout: validators peer only with the full nodes, which keep their addresses private")
	if code, ok := parseFlags(fs, fs.Name()+" [flags]\n\n"+devnetHelp, args); !ok {
		return code
	}
	if code, ok := checkArgs(fs.Name(),
		check{*blockTime < 0, "--block-time must not be negative"},
		check{!portOK(*httpPort), "--http.port must be -1..65535"},
		check{!portOK(*explorerPort), "--explorer.port must be -1..65535"},
		check{*chainID == 0, "--chain-id must not be 0"},
		check{*stopAfter < 0, "--stop-one-after must not be negative"},
		check{*sentry && *full < 1, "--sentry needs at least one full node (--full)"},
		check{*sentry && *inProcess, "--sentry needs processes; it does not apply to --in-process"},
		noArgs(fs),
	); !ok {
		return code
	}
	if *validators < 1 || *validators > 100 {
		fmt.Fprintln(os.Stderr, "chaind devnet: --validators must be 1..100")
		return 2
	}
	if *full < 0 || *full > 100 {
		fmt.Fprintln(os.Stderr, "chaind devnet: --full must be 0..100")
		return 2
	}
	log, err := newLogger(*logLevel, "text")
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaind devnet:", err)
		return 2
	}
	if !*inProcess {
		return runProcessDevnet(processDevnet{validators: *validators, full: *full, blockTime: *blockTime,
			host: *host, chainID: *chainID, out: *out, logLevel: *logLevel, sentry: *sentry,
			httpPort: *httpPort, explorerPort: *explorerPort})
	}
	dn, err := startDevnet(devnetConfig{validators: *validators, blockTime: *blockTime, host: *host,
		httpPort: *httpPort, explorerPort: *explorerPort, chainID: *chainID}, log)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaind devnet:", err)
		return 1
	}
	defer dn.Close()
	log.Info("devnet", "validators", *validators, "chainId", *chainID, "blockTime", *blockTime, "http", dn.Nodes[0].Addr("http"), "explorer", dn.Nodes[0].Addr("explorer"))
	printDevAccounts(os.Stdout, dn.Keys, chain.DevBalance, hd.DevMnemonic, hd.DevPath, *chainID)
	if *stopAfter > 0 && *validators > 1 {
		time.AfterFunc(*stopAfter, func() {
			log.Warn("stopping a validator", "validator", *validators-1)
			dn.Stop(*validators - 1)
		})
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	members := make([]failingNode, len(dn.Nodes))
	for i, n := range dn.Nodes {
		members[i] = n
	}
	return watchValidators(members, dn.Stop, sig, log)
}

// failingNode is what watchValidators needs of a validator's node.
type failingNode interface {
	Failed() <-chan struct{}
	Failure() error
}

// watchValidators runs an in-process devnet until a signal: a validator
// that fails is reported (which one, and why) and taken off the network
// with stop, and the others keep running, as a devnet of processes does
// when one exits. Only when every validator has failed does it give up.
func watchValidators(nodes []failingNode, stop func(i int), sig <-chan os.Signal, log *slog.Logger) int {
	failed := make(chan int, len(nodes))
	for i, n := range nodes {
		go func() {
			<-n.Failed()
			failed <- i
		}()
	}
	for live := len(nodes); ; {
		select {
		case <-sig:
			log.Info("shutting down")
			return 0
		case i := <-failed:
			live--
			stop(i)
			if live == 0 {
				log.Error("exiting: every validator failed", "last", i, "err", nodes[i].Failure())
				return exitFailed
			}
			log.Error("a validator failed and left the network; the others keep running (restart the devnet to bring it back)",
				"validator", i, "err", nodes[i].Failure(), "running", live, "of", len(nodes))
		}
	}
}

// devnetHelp is what `chaind devnet --help` says beyond the flags: how a
// node of the devnet is killed and brought back, a first fault experiment.
const devnetHelp = `Runs a network on loopback, one process per node (the validators, then
--full full nodes), each with its own data directory, log file and ports
under --out, and prints every node's endpoints.

A node that exits or is killed (kill -9 PID) leaves the others running:
the devnet prints which node exited and with what (its exit status or
signal), then the command that restarts that node alone, for example

  chaind --config OUT/validator3/config.json --log-level info

Run it in another terminal while the devnet runs: the node reopens its
data directory, catches up from its peers and signs again. Meanwhile
chain_getNodeList on any node shows the validator standby within a cycle
of going down, syncing once it signs again, then active; a validator
down for more than half of the 100-block liveness window is jailed.
Pass --out DIR to keep the directory after the devnet exits (the default
one is temporary). Ctrl-C stops the nodes the devnet started; a node you
restarted by hand is yours to stop.`

type devnetConfig struct {
	validators int
	blockTime  time.Duration
	host       string
	httpPort   int
	// explorerPort is the first node's explorer port; -1 off, 0 any free
	// port.
	explorerPort int
	chainID      uint64
}

func startDevnet(cfg devnetConfig, log *slog.Logger) (*node.Devnet, error) {
	return node.StartDevnet(node.DevnetConfig{Validators: cfg.validators, BlockTime: cfg.blockTime, Host: cfg.host,
		HTTPPort: cfg.httpPort, Explorer: cfg.explorerPort >= 0, ExplorerPort: cfg.explorerPort,
		ChainID: cfg.chainID, ClientVersion: clientVersion(), Log: log})
}
