package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// chaindSide is chaind on the scale genesis, sealing with the dev
// validator's key.
func chaindSide(exe string, validator []byte, cache int) *scaleSide {
	s := &scaleSide{name: "chaind"}
	s.initialise = func(cfg *scaleConfig, dir string) (*exec.Cmd, error) {
		gpath := filepath.Join(cfg.work, "genesis-chaind.json")
		if err := writeScaleGenesis(gpath, cfg.genesis, cfg.accounts, cfg.holders); err != nil {
			return nil, err
		}
		defer os.Remove(gpath)
		cmd := exec.Command(exe, "init", "--genesis", gpath, "--datadir", dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("chaind init: %v\n%s", err, out)
		}
		return cmd, nil
	}
	s.spawn = func(cfg *scaleConfig, datadir string) (*devload.Proc, error) {
		args := []string{"--datadir", datadir, "--validator-key", hex.EncodeToString(validator),
			"--block-time", "1s", "--http.port", "0", "--ws.port", "-1", "--rest.port", "-1", "--grpc.port", "-1", "--cometrpc.port", "-1",
			"--explorer.port", "-1", "--metrics", "--metrics.port", "0", "--log-level", "info",
			// State pruning passes every 16 blocks, so a short load sees some;
			// the history index too keeps 16 (its rounds come every 64).
			"--state.history", "16", "--history.keep", "16"}
		if cfg.profile != "" {
			// Debug: the per-block timings go to the log kept beside the profiles.
			args = append(args, "--pprof", "127.0.0.1:0", "--log-level", "debug")
		}
		if cache > 0 {
			args = append(args, "--cache", strconv.Itoa(cache))
		}
		return devload.StartWithin(10*time.Minute, exe, args...)
	}
	s.pauses = func(p *devload.Proc) string {
		addr := p.Addr("metrics", 2*time.Second)
		if addr == "" {
			return "no metrics listener"
		}
		url := "http://" + addr + "/metrics"
		return prunePauses(url) + "; blocks " + blockTimes(url)
	}
	s.pprof = func(p *devload.Proc) string { return p.Addr("pprof", 2*time.Second) }
	s.caches = func(p *devload.Proc) cacheCounts {
		addr := p.Addr("metrics", 2*time.Second)
		if addr == "" {
			return nil
		}
		return readCacheCounts("http://" + addr + "/metrics")
	}
	return s
}

// gethSide is go-ethereum's `geth --dev` on a datadir that `geth init`
// wrote from the same allocation: geth --dev keeps a chain it finds in its
// datadir when that chain's genesis is merged (terminal total difficulty 0,
// difficulty 0), which its own dev genesis is, so the genesis is geth's
// (`geth --dev dumpgenesis`: its fork schedule and system contracts) with
// chaind's chain ID, gas limit, timestamp and allocation. It seals a block
// every second (--dev.period 1) as chaind does, with the same gas limit,
// and a pool large enough not to throttle the load.
func gethSide(bin string, cache int) (*scaleSide, error) {
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		return nil, fmt.Errorf("%s version: %w", bin, err)
	}
	version := ""
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "Version: "); ok {
			version = strings.TrimSuffix(strings.TrimSpace(v), "-stable")
		}
	}
	if version == "" {
		return nil, fmt.Errorf("%s version: no version in %q", bin, out)
	}
	s := &scaleSide{name: "geth-" + version}
	s.initialise = func(cfg *scaleConfig, dir string) (*exec.Cmd, error) {
		dump, err := exec.Command(bin, "--dev", "dumpgenesis").Output()
		if err != nil {
			return nil, fmt.Errorf("geth --dev dumpgenesis: %w", err)
		}
		head, err := gethScaleHead(dump, cfg.genesis)
		if err != nil {
			return nil, err
		}
		gpath := filepath.Join(cfg.work, "genesis-"+s.name+".json")
		if err := writeScaleAlloc(gpath, head, cfg.accounts, cfg.holders); err != nil {
			return nil, err
		}
		defer os.Remove(gpath)
		cmd := exec.Command(bin, "init", "--datadir", dir, gpath)
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("geth init: %v\n%s", err, tail(string(out), 2000))
		}
		return cmd, nil
	}
	s.spawn = func(cfg *scaleConfig, datadir string) (*devload.Proc, error) {
		// Ports picked here may be taken before geth binds them; a
		// benchmark run can live with that rare race.
		http, err := freePort()
		if err != nil {
			return nil, err
		}
		auth, err := freePort()
		if err != nil {
			return nil, err
		}
		args := []string{"--dev", "--dev.period", "1", "--datadir", datadir,
			"--http", "--http.addr", "127.0.0.1", "--http.port", strconv.Itoa(http), "--http.api", "eth,net,web3",
			"--authrpc.addr", "127.0.0.1", "--authrpc.port", strconv.Itoa(auth), "--port", "0", "--nodiscover", "--maxpeers", "0", "--ipcdisable",
			"--miner.gaslimit", strconv.FormatUint(uint64(cfg.genesis.GasLimit), 10),
			"--txpool.globalslots", "100000", "--txpool.accountslots", "100000", "--txpool.globalqueue", "100000", "--txpool.accountqueue", "100000",
			// A read slowed by the machine's load (or geth's snapshot
			// generation after init) is timed, not cut at geth's 5 s.
			"--rpc.evmtimeout", "2m",
			"--verbosity", "2"}
		if cache > 0 {
			args = append(args, "--cache", strconv.Itoa(cache))
		}
		return devload.StartPeer("http://127.0.0.1:"+strconv.Itoa(http), bin, args...)
	}
	return s, nil
}

// gethScaleHead is geth's dev genesis (dump, from `geth --dev
// dumpgenesis`) with g's chain ID, gas limit, timestamp and allocation
// added to geth's own (precompile and system contract entries; g's win
// where both have an address): the part of the scale genesis that the
// generated accounts are added to.
func gethScaleHead(dump []byte, g *chain.Genesis) ([]byte, error) {
	var gg, conf map[string]json.RawMessage
	if err := json.Unmarshal(dump, &gg); err != nil {
		return nil, fmt.Errorf("geth's dev genesis: %w", err)
	}
	if err := json.Unmarshal(gg["config"], &conf); err != nil || conf == nil {
		return nil, fmt.Errorf("geth's dev genesis has no config: %v", err)
	}
	conf["chainId"] = json.RawMessage(strconv.FormatUint(g.Config.ChainID, 10))
	var err error
	if gg["config"], err = json.Marshal(conf); err != nil {
		return nil, err
	}
	gg["gasLimit"] = json.RawMessage(strconv.Quote(devload.Hex(uint64(g.GasLimit))))
	gg["timestamp"] = json.RawMessage(strconv.Quote(devload.Hex(uint64(g.Timestamp))))
	alloc := map[string]json.RawMessage{}
	if err := json.Unmarshal(gg["alloc"], &alloc); err != nil {
		return nil, fmt.Errorf("geth's dev allocation: %w", err)
	}
	ours, err := json.Marshal(g.Alloc)
	if err != nil {
		return nil, err
	}
	var mine map[string]json.RawMessage
	if err := json.Unmarshal(ours, &mine); err != nil {
		return nil, err
	}
	merged := make(map[string]json.RawMessage, len(alloc)+len(mine))
	for _, m := range []map[string]json.RawMessage{alloc, mine} {
		for a, acc := range m {
			merged["0x"+strings.TrimPrefix(strings.ToLower(a), "0x")] = acc
		}
	}
	if gg["alloc"], err = json.Marshal(merged); err != nil {
		return nil, err
	}
	return json.Marshal(gg)
}

// writeScaleGenesis writes g to path with n generated funded accounts
// and the load's token with holders of them (writeScaleAlloc).
func writeScaleGenesis(path string, g *chain.Genesis, n, holders int) error {
	raw, err := json.Marshal(g)
	if err != nil {
		return err
	}
	return writeScaleAlloc(path, raw, n, holders)
}

// writeScaleAlloc writes the genesis JSON raw to path with n generated
// funded accounts (scaleAddress) added to its allocation, and the load's
// ERC-20 token whose first holders of them hold tokens. The file is
// written as it is generated: 10M accounts never sit in memory as a
// genesis.
func writeScaleAlloc(path string, raw []byte, n, holders int) error {
	// The generated entries go first in the allocation object.
	at := bytes.Index(raw, []byte(`"alloc":{`))
	if at < 0 {
		return errors.New("genesis JSON without an allocation")
	}
	at += len(`"alloc":{`)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.Write(raw[:at])
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, `"%s":{"balance":"0x38d7ea4c68000"},`, scaleAddress(i).Hex()) // 1e15 wei
	}
	fmt.Fprintf(w, `"%s":{"balance":"0x0","code":"0x%x","storage":{`, devload.TokenAddress.Hex(), devload.TokenRuntime())
	amount := types.Hash(uint256.NewInt(1000).Bytes32())
	for i := 0; i < holders; i++ {
		if i > 0 {
			w.WriteByte(',')
		}
		fmt.Fprintf(w, `"%s":"%s"`, devload.TokenSlot(scaleAddress(i%n)).Hex(), amount.Hex())
	}
	w.WriteString("}}")
	if raw[at] != '}' { // the genesis's own allocations follow
		w.WriteByte(',')
	}
	w.Write(raw[at:])
	return errors.Join(w.Flush(), f.Close())
}

// scaleAddress is generated account i.
func scaleAddress(i int) types.Address {
	var seed [8]byte
	for k := range seed {
		seed[k] = byte(uint64(i) >> (8 * k))
	}
	h := crypto.Keccak256(append([]byte("chaind-scale"), seed[:]...))
	return types.Address(h[12:])
}

// scaleAddrs are the generated accounts 0..n-1.
func scaleAddrs(n int) []types.Address {
	out := make([]types.Address, n)
	for i := range out {
		out[i] = scaleAddress(i)
	}
	return out
}

// maxRSS is the peak resident set of a command that has run.
func maxRSS(cmd *exec.Cmd) uint64 {
	if cmd.ProcessState == nil {
		return 0
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		return uint64(ru.Maxrss) << 10
	}
	return 0
}
