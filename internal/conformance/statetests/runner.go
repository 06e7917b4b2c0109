// Package statetests runs the GeneralStateTests of ethereum/tests: one
// transaction applied to a given pre-state in a one-block environment,
// checked against the expected state root and logs hash for every fork and
// every (data, gas, value) variant in the test's post section.
package statetests

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/conformance"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rlp"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

// chainID is the chain id every state test is signed for.
const chainID = 1

// Options select what Run executes.
type Options struct {
	Fork    string         // only this fork ("" = every fork in post the EVM knows)
	Filter  *regexp.Regexp // only cases whose name matches
	Exclude *regexp.Regexp // leave out cases whose name matches
	Workers int            // files run in parallel (0 = GOMAXPROCS)
}

// Main is the entry point of "chaind conformance state DIR [--fork NAME]
// [--run REGEX]".
func Main(dir string, args []string, r *conformance.Report) error {
	fs := flag.NewFlagSet("conformance state", flag.ContinueOnError)
	forkName := fs.String("fork", "", "run only this fork (vector spelling, e.g. Cancun)")
	run := fs.String("run", "", "run only cases whose name matches this regular expression")
	exclude := fs.String("skip", "", "leave out (do not count) cases whose name matches this regular expression")
	workers := fs.Int("workers", 0, "files run in parallel (default: number of CPUs)")
	if err := conformance.ParseFlags(fs, args); err != nil {
		return err
	}
	opts := Options{Fork: *forkName, Workers: *workers}
	if *run != "" {
		re, err := regexp.Compile(*run)
		if err != nil {
			return fmt.Errorf("--run: %w", err)
		}
		opts.Filter = re
	}
	if *exclude != "" {
		re, err := regexp.Compile(*exclude)
		if err != nil {
			return fmt.Errorf("--skip: %w", err)
		}
		opts.Exclude = re
	}
	if opts.Fork != "" {
		if _, ok := forks.ByName(opts.Fork); !ok {
			return fmt.Errorf("--fork: unknown fork %q", opts.Fork)
		}
	}
	return Run(dir, opts, r)
}

// Run executes every state test below dir and records each case in r.
func Run(dir string, opts Options, r *conformance.Report) error {
	files, err := conformance.JSONFiles(dir)
	if err != nil {
		return err
	}
	conformance.RunFiles(files, opts.Workers, dispatchOrder(files), func(path string) []conformance.Outcome {
		return runFile(dir, path, &opts, r.Verbose)
	}, r)
	return nil
}

// dispatchOrder returns the order in which files are handed to workers:
// the categories known to hold single very long cases (a BLAKE2 call of
// 2^32-1 rounds, interpreter loops) first, so they overlap everything
// else instead of running alone at the end, then the rest largest first.
func dispatchOrder(files []string) []int {
	order := make([]int, len(files))
	size := make([]int64, len(files))
	for i, f := range files {
		order[i] = i
		if st, err := os.Stat(f); err == nil {
			size[i] = st.Size()
		}
		if strings.Contains(f, "TimeConsuming") || strings.Contains(f, "vmPerformance") {
			size[i] += 1 << 40
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return size[order[a]] > size[order[b]] })
	return order
}

// outcome is one case's result.
type outcome = conformance.Outcome

func runFile(root, path string, opts *Options, verbose bool) []outcome {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == "." {
		rel = filepath.Base(path)
	}
	rel = strings.TrimSuffix(filepath.ToSlash(rel), ".json")
	data, err := os.ReadFile(path)
	if err != nil {
		return []outcome{{Name: rel, Kind: conformance.Fail, Why: err.Error()}}
	}
	var tests map[string]*stTest
	if err := json.Unmarshal(data, &tests); err != nil {
		return []outcome{{Name: rel, Kind: conformance.Fail, Why: "parse: " + err.Error()}}
	}
	names := make([]string, 0, len(tests))
	for n := range tests {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []outcome
	for _, n := range names {
		out = runTest(out, rel+"/"+n, tests[n], opts, verbose)
	}
	return out
}

// prepared is a test's pre-state committed once; every case opens a fresh
// StateDB on preRoot.
type prepared struct {
	db      *trie.MemoryDB
	preRoot types.Hash
}

func runTest(out []outcome, name string, t *stTest, opts *Options, verbose bool) []outcome {
	names := make([]string, 0, len(t.Post))
	for f := range t.Post {
		names = append(names, f)
	}
	sort.Strings(names)
	var pre *prepared
	var preErr error
	for _, fname := range names {
		if !forkSelected(fname, opts.Fork) {
			continue
		}
		fork, known := forks.ByName(fname)
		for _, p := range t.Post[fname] {
			cname := fmt.Sprintf("%s/%s/d%dg%dv%d", name, fname, p.Indexes.Data, p.Indexes.Gas, p.Indexes.Value)
			if opts.Filter != nil && !opts.Filter.MatchString(cname) {
				continue
			}
			if opts.Exclude != nil && opts.Exclude.MatchString(cname) {
				continue
			}
			if !known {
				out = append(out, outcome{Name: cname, Kind: conformance.Skip, Why: "fork " + fname + " not supported by the EVM"})
				continue
			}
			if pre == nil && preErr == nil {
				pre, preErr = loadPre(t)
			}
			if preErr != nil {
				out = append(out, outcome{Name: cname, Kind: conformance.Fail, Why: "pre-state: " + preErr.Error()})
				continue
			}
			out = append(out, runCase(cname, t, fork, &p, pre, verbose))
		}
	}
	return out
}

// forkSelected reports whether the post section named fname runs under
// --fork want ("" selects all). Aliases (EIP158 = SpuriousDragon, Merge =
// Paris, ...) select each other.
func forkSelected(fname, want string) bool {
	if want == "" || strings.EqualFold(fname, want) {
		return true
	}
	f1, ok1 := forks.ByName(fname)
	f2, ok2 := forks.ByName(want)
	return ok1 && ok2 && f1 == f2
}

// loadPre writes the pre-state into a fresh in-memory database.
func loadPre(t *stTest) (*prepared, error) {
	db := trie.NewMemoryDB()
	st, err := state.New(state.EmptyRoot, db)
	if err != nil {
		return nil, err
	}
	for as, acct := range t.Pre {
		addr, err := parseAddress(as)
		if err != nil {
			return nil, err
		}
		bal, err := parseU256(acct.Balance)
		if err != nil {
			return nil, fmt.Errorf("%s balance: %w", as, err)
		}
		nonce, err := parseU64(acct.Nonce)
		if err != nil {
			return nil, fmt.Errorf("%s nonce: %w", as, err)
		}
		code, err := parseBytes(acct.Code)
		if err != nil {
			return nil, fmt.Errorf("%s code: %w", as, err)
		}
		st.CreateAccount(addr)
		st.SetBalance(addr, bal)
		st.SetNonce(addr, nonce)
		if len(code) > 0 {
			st.SetCode(addr, code)
		}
		for ks, vs := range acct.Storage {
			k, err := parseHash(ks)
			if err != nil {
				return nil, fmt.Errorf("%s storage key: %w", as, err)
			}
			v, err := parseHash(vs)
			if err != nil {
				return nil, fmt.Errorf("%s storage value: %w", as, err)
			}
			st.SetState(addr, k, v)
		}
	}
	root, err := st.Commit(false)
	if err != nil {
		return nil, err
	}
	return &prepared{db: db, preRoot: root}, nil
}

func runCase(name string, t *stTest, fork forks.Fork, p *stPost, pre *prepared, verbose bool) (o outcome) {
	// A panic in the code under test is one failed case, not a dead run.
	defer func() {
		if e := recover(); e != nil {
			o = outcome{Name: name, Kind: conformance.Fail, Why: fmt.Sprintf("panic: %v\n%s", e, firstFrames(debug.Stack()))}
		}
	}()
	wantRoot, err := parseHash(p.Hash)
	if err != nil {
		return outcome{Name: name, Kind: conformance.Fail, Why: "bad expected hash: " + err.Error()}
	}
	wantLogs, err := parseHash(p.Logs)
	if err != nil {
		return outcome{Name: name, Kind: conformance.Fail, Why: "bad expected logs hash: " + err.Error()}
	}
	block, err := blockContext(t, fork)
	if err != nil {
		return outcome{Name: name, Kind: conformance.Fail, Why: "env: " + err.Error()}
	}
	st, err := state.New(pre.preRoot, pre.db)
	if err != nil {
		return outcome{Name: name, Kind: conformance.Fail, Why: "open pre-state: " + err.Error()}
	}

	msg, msgErr := buildMessage(&t.Transaction, p, fork)
	var res *evm.Result
	execErr := msgErr
	if msgErr == nil {
		e := evm.NewEVM(block, st, chainID, fork)
		st.BeginTx(types.Hash{}, 0)
		snap := st.Snapshot()
		gp := evm.GasPool(block.GasLimit)
		res, execErr = evm.ApplyMessage(e, msg, &gp)
		if execErr != nil {
			// ApplyMessage validates before it changes anything; the
			// revert only guards against a regression there.
			st.RevertToSnapshot(snap)
		}
	}
	if res != nil && len(res.MissingPrecompiles) > 0 {
		return outcome{Name: name, Kind: conformance.Skip, Why: fmt.Sprintf("precompile %#x not implemented", res.MissingPrecompiles[0][:])}
	}
	// The reference runners credit the coinbase with nothing, which touches
	// it, so a coinbase left empty is deleted under EIP-161.
	st.AddBalance(block.Coinbase, new(uint256.Int))
	root := st.IntermediateRoot(fork >= forks.SpuriousDragon)
	if err := st.Error(); err != nil {
		return outcome{Name: name, Kind: conformance.Fail, Why: "state: " + err.Error()}
	}
	logsHash := LogsHash(st.Logs())

	switch {
	case p.ExpectException != "" && execErr == nil:
		return outcome{Name: name, Kind: conformance.Fail, Why: fmt.Sprintf("expected exception %s, but the transaction was accepted", p.ExpectException)}
	case p.ExpectException == "" && execErr != nil:
		return outcome{Name: name, Kind: conformance.Fail, Why: fmt.Sprintf("transaction rejected: %v", execErr)}
	}
	var why []string
	if root != wantRoot {
		why = append(why, fmt.Sprintf("state root: want %s, got %s", wantRoot, root))
	}
	if logsHash != wantLogs {
		why = append(why, fmt.Sprintf("logs hash: want %s, got %s (%d logs)", wantLogs, logsHash, len(st.Logs())))
	}
	if len(why) == 0 {
		return outcome{Name: name, Kind: conformance.Pass}
	}
	if res != nil {
		why = append(why, fmt.Sprintf("gas used %d, err %v", res.UsedGas, res.Err))
	}
	if p.ExpectException != "" {
		why = append(why, "expected exception "+p.ExpectException)
	}
	msgText := strings.Join(why, "; ")
	if verbose {
		msgText += "\n" + diffState(t, st)
	}
	return outcome{Name: name, Kind: conformance.Fail, Why: msgText}
}

// errTypeNotSupported rejects typed transactions before the fork that
// introduced their type (the EVM checks blob and set-code types itself).
var errTypeNotSupported = errors.New("transaction type not supported")

// buildMessage assembles the transaction variant of p from the shared
// fields. A field that does not fit its type makes the transaction invalid.
func buildMessage(tx *stTx, p *stPost, fork forks.Fork) (*evm.Message, error) {
	di, gi, vi := p.Indexes.Data, p.Indexes.Gas, p.Indexes.Value
	if di >= len(tx.Data) || gi >= len(tx.GasLimit) || vi >= len(tx.Value) {
		return nil, errors.New("post indexes out of range")
	}
	var (
		msg evm.Message
		err error
	)
	if tx.Sender != "" {
		msg.From, err = parseAddress(tx.Sender)
	} else {
		msg.From, err = senderOf(tx.SecretKey)
	}
	if err != nil {
		return nil, fmt.Errorf("sender: %w", err)
	}
	if tx.To != "" {
		to, err := parseAddress(tx.To)
		if err != nil {
			return nil, fmt.Errorf("to: %w", err)
		}
		msg.To = &to
	}
	if msg.Nonce, err = parseU64(tx.Nonce); err != nil {
		return nil, fmt.Errorf("nonce: %w", err)
	}
	if msg.Data, err = parseBytes(tx.Data[di]); err != nil {
		return nil, fmt.Errorf("data: %w", err)
	}
	if msg.GasLimit, err = parseU64(tx.GasLimit[gi]); err != nil {
		return nil, fmt.Errorf("gas limit: %w", err)
	}
	if msg.Value, err = parseU256(tx.Value[vi]); err != nil {
		return nil, fmt.Errorf("value: %w", err)
	}
	if tx.GasPrice != "" {
		if msg.GasPrice, err = parseU256(tx.GasPrice); err != nil {
			return nil, fmt.Errorf("gas price: %w", err)
		}
	} else {
		if fork < forks.London {
			return nil, errTypeNotSupported
		}
		if msg.GasFeeCap, err = parseU256(tx.MaxFeePerGas); err != nil {
			return nil, fmt.Errorf("max fee: %w", err)
		}
		if msg.GasTipCap, err = parseU256(tx.MaxPriorityFeePerGas); err != nil {
			return nil, fmt.Errorf("max priority fee: %w", err)
		}
	}
	if di < len(tx.AccessLists) && tx.AccessLists[di] != nil {
		if fork < forks.Berlin {
			return nil, errTypeNotSupported
		}
		for _, tup := range *tx.AccessLists[di] {
			a, err := parseAddress(tup.Address)
			if err != nil {
				return nil, fmt.Errorf("access list: %w", err)
			}
			keys := make([]types.Hash, len(tup.StorageKeys))
			for i, k := range tup.StorageKeys {
				if keys[i], err = parseHash(k); err != nil {
					return nil, fmt.Errorf("access list key: %w", err)
				}
			}
			msg.AccessList = append(msg.AccessList, types.AccessTuple{Address: a, StorageKeys: keys})
		}
		if msg.AccessList == nil {
			msg.AccessList = types.AccessList{}
		}
	}
	if tx.HasBlobHashes {
		msg.BlobHashes = make([]types.Hash, len(tx.BlobVersionedHashes))
		for i, h := range tx.BlobVersionedHashes {
			if msg.BlobHashes[i], err = parseHash(h); err != nil {
				return nil, fmt.Errorf("blob hash: %w", err)
			}
		}
		if msg.BlobGasFeeCap, err = parseU256(tx.MaxFeePerBlobGas); err != nil {
			return nil, fmt.Errorf("max fee per blob gas: %w", err)
		}
	}
	return &msg, nil
}

func senderOf(secretKey string) (types.Address, error) {
	key, err := parseBytes(secretKey)
	if err != nil {
		return types.Address{}, err
	}
	priv, err := crypto.ToPrivateKey(key)
	if err != nil {
		return types.Address{}, err
	}
	return types.Address(crypto.PubkeyToAddress(priv.PubKey())), nil
}

func blockContext(t *stTest, fork forks.Fork) (evm.BlockContext, error) {
	var (
		b   evm.BlockContext
		err error
	)
	e := &t.Env
	if b.Coinbase, err = parseAddress(e.Coinbase); err != nil {
		return b, fmt.Errorf("coinbase: %w", err)
	}
	if b.Number, err = parseU64(e.Number); err != nil {
		return b, fmt.Errorf("number: %w", err)
	}
	if b.Time, err = parseU64(e.Timestamp); err != nil {
		return b, fmt.Errorf("timestamp: %w", err)
	}
	if b.GasLimit, err = parseU64(e.GasLimit); err != nil {
		return b, fmt.Errorf("gas limit: %w", err)
	}
	if e.Difficulty != "" {
		if b.Difficulty, err = parseU256(e.Difficulty); err != nil {
			return b, fmt.Errorf("difficulty: %w", err)
		}
	}
	if fork >= forks.Paris && e.Random != "" {
		r, err := parseHash(e.Random)
		if err != nil {
			return b, fmt.Errorf("random: %w", err)
		}
		b.Random = &r
	}
	if fork >= forks.London {
		if b.BaseFee, err = parseU256(e.BaseFee); err != nil {
			return b, fmt.Errorf("base fee: %w", err)
		}
	}
	if fork >= forks.Cancun {
		excess, err := parseU64(e.ExcessBlobGas)
		if err != nil {
			return b, fmt.Errorf("excess blob gas: %w", err)
		}
		b.BlobBaseFee = evm.CalcBlobBaseFee(fork, excess)
	}
	b.GetHash = testBlockHash
	return b, nil
}

// testBlockHash is what the reference runners answer for BLOCKHASH(n):
// keccak256 of n written in decimal.
func testBlockHash(n uint64) types.Hash {
	return types.Hash(crypto.Keccak256([]byte(strconv.FormatUint(n, 10))))
}

// LogsHash is keccak256(rlp([[address, [topics...], data], ...])).
func LogsHash(logs []*types.Log) types.Hash {
	var b rlp.Buffer
	outer := b.List()
	for _, l := range logs {
		li := b.List()
		b.WriteBytes(l.Address[:])
		ti := b.List()
		for _, t := range l.Topics {
			b.WriteBytes(t[:])
		}
		b.ListEnd(ti)
		b.WriteBytes(l.Data)
		b.ListEnd(li)
	}
	b.ListEnd(outer)
	return types.Hash(crypto.Keccak256(b.Bytes()))
}

// diffState describes how the accounts the case touched differ from the
// pre-state: "+" a new account, "-" a deleted one, "~" a changed one with
// only the changed fields and slots listed.
func diffState(t *stTest, st *state.StateDB) string {
	pre := map[types.Address]stAccount{}
	for as, a := range t.Pre {
		if addr, err := parseAddress(as); err == nil {
			pre[addr] = a
		}
	}
	var sb strings.Builder
	seen := map[types.Address]bool{}
	for _, a := range st.DumpLoaded() {
		seen[a.Address] = true
		p, existed := pre[a.Address]
		var fields []string
		preBal, _ := parseU256(p.Balance)
		preNonce, _ := parseU64(p.Nonce)
		preCode, _ := parseBytes(p.Code)
		if !existed || !preBal.Eq(&a.Balance) {
			fields = append(fields, "balance="+a.Balance.Dec())
		}
		if !existed || preNonce != a.Nonce {
			fields = append(fields, fmt.Sprintf("nonce=%d", a.Nonce))
		}
		if !existed || string(preCode) != string(a.Code) {
			fields = append(fields, fmt.Sprintf("code=%d bytes", len(a.Code)))
		}
		preStore := map[types.Hash]types.Hash{}
		for ks, vs := range p.Storage {
			k, _ := parseHash(ks)
			v, _ := parseHash(vs)
			preStore[k] = v
		}
		keys := make([]types.Hash, 0, len(a.Storage))
		for k := range a.Storage {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return string(keys[i][:]) < string(keys[j][:]) })
		for _, k := range keys {
			if v := a.Storage[k]; v != preStore[k] {
				fields = append(fields, fmt.Sprintf("[%s]=%s", shortHex(k), shortHex(v)))
			}
		}
		switch {
		case !existed:
			fmt.Fprintf(&sb, "  + %x %s\n", a.Address[:], strings.Join(fields, " "))
		case len(fields) > 0:
			fmt.Fprintf(&sb, "  ~ %x %s\n", a.Address[:], strings.Join(fields, " "))
		}
	}
	for addr := range pre {
		if !seen[addr] && !st.Exist(addr) {
			fmt.Fprintf(&sb, "  - %x\n", addr[:])
		}
	}
	return strings.TrimRight(sb.String(), "\n")
}

func shortHex(h types.Hash) string {
	s := strings.TrimLeft(fmt.Sprintf("%x", h[:]), "0")
	if s == "" {
		s = "0"
	}
	return "0x" + s
}

// firstFrames keeps the part of a stack trace that names where a panic
// happened, so one FAIL line stays readable.
func firstFrames(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	var keep []string
	for i := 0; i < len(lines); i++ {
		if strings.Contains(lines[i], "panic") || strings.HasPrefix(lines[i], "goroutine") || strings.Contains(lines[i], "runtime/debug") {
			continue
		}
		keep = append(keep, strings.TrimSpace(lines[i]))
		if len(keep) >= 6 {
			break
		}
	}
	return "    " + strings.Join(keep, "\n    ")
}
