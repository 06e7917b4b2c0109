package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/consensus/cycle"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/crypto/hd"
	"github.com/chaind/chaind/internal/node"
	"github.com/chaind/chaind/internal/node/bft"
	"github.com/chaind/chaind/internal/txpool"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rlp"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

func init() {
	register(command{"devnet", "run N BFT validators in one process: devnet --validators N [--block-time D]", runDevnet})
}

// devValidatorKey derives validator i's consensus key of a devnet: fixed,
// so a devnet restarted with the same N has the same validator set.
func devValidatorKey(i int) []byte {
	k := crypto.Keccak256([]byte("chaind devnet validator"), []byte{byte(i >> 8), byte(i)})
	return k[:]
}

func runDevnet(args []string) int {
	fs := flag.NewFlagSet("devnet", flag.ContinueOnError)
	validators := fs.Int("validators", 4, "number of validators (equal stake)")
	blockTime := fs.Duration("block-time", time.Second, "minimum time between blocks")
	host := fs.String("host", "127.0.0.1", "address the JSON-RPC port binds to")
	httpPort := fs.Int("http.port", 8545, "JSON-RPC port of the first validator's node (0 any free port)")
	chainID := fs.Uint64("chain-id", chain.MainChainID, "chain ID")
	stopAfter := fs.Duration("stop-one-after", 0, "stop the last validator after this long (shows the others carry on)")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *validators < 1 || *validators > 100 {
		fmt.Fprintln(os.Stderr, "chaind devnet: --validators must be 1..100")
		return 2
	}
	log, err := newLogger(*logLevel)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaind devnet:", err)
		return 2
	}
	dn, err := startDevnet(devnetConfig{validators: *validators, blockTime: *blockTime, host: *host,
		httpPort: *httpPort, chainID: *chainID}, log)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaind devnet:", err)
		return 1
	}
	defer dn.close()
	log.Info("devnet", "validators", *validators, "chainId", *chainID, "blockTime", *blockTime, "http", dn.nodes[0].Addr("http"))
	printDevAccounts(dn.keys)
	if *stopAfter > 0 && *validators > 1 {
		time.AfterFunc(*stopAfter, func() {
			log.Warn("stopping a validator", "validator", *validators-1)
			dn.stop(*validators - 1)
		})
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	log.Info("shutting down")
	return 0
}

type devnetConfig struct {
	validators int
	blockTime  time.Duration
	host       string
	httpPort   int
	chainID    uint64
}

// devnet is N validators, each with its own node (chain, pool; only the
// first serves JSON-RPC), deciding blocks over the in-memory transport.
type devnet struct {
	keys    []*secp256k1.PrivateKey
	signers []*consensus.Signer
	nodes   []*node.Node
	net     *bft.MemNetwork
	cancels []context.CancelFunc
	wg      sync.WaitGroup
}

func startDevnet(cfg devnetConfig, log *slog.Logger) (*devnet, error) {
	dn := &devnet{net: bft.NewMemNetwork()}
	keys, err := hd.DevAccounts(hd.DevMnemonic, 10)
	if err != nil {
		return nil, fmt.Errorf("dev accounts: %w", err)
	}
	dn.keys = keys
	var devAddrs []types.Address
	for _, k := range keys {
		devAddrs = append(devAddrs, types.Address(crypto.PubkeyToAddress(k.PubKey())))
	}
	genesis := chain.DevGenesis(cfg.chainID, devAddrs, uint64(time.Now().Unix()))
	var members []consensus.Validator
	for i := range cfg.validators {
		s, err := consensus.NewSigner(cfg.chainID, devValidatorKey(i))
		if err != nil {
			return nil, err
		}
		dn.signers = append(dn.signers, s)
		members = append(members, consensus.Validator{Address: s.Address(), Power: 1})
	}
	set, err := consensus.NewValidatorSet(members)
	if err != nil {
		return nil, err
	}
	schedule := cycle.NewSchedule(set)
	timeouts := consensus.Timeouts{
		Propose: cfg.blockTime + 2*time.Second, ProposeDelta: 500 * time.Millisecond,
		Prevote: 500 * time.Millisecond, PrevoteDelta: 500 * time.Millisecond,
		Precommit: 500 * time.Millisecond, PrecommitDelta: 500 * time.Millisecond,
		Retransmit: time.Second,
	}
	for i, s := range dn.signers {
		port := -1
		if i == 0 {
			port = cfg.httpPort
		}
		n, err := node.New(node.Config{Genesis: genesis, Host: cfg.host, HTTPPort: port, WSPort: -1,
			Accounts: keys, ClientVersion: clientVersion(), Log: log.With("validator", i)})
		if err != nil {
			dn.close()
			return nil, err
		}
		dn.nodes = append(dn.nodes, n)
		if err := n.Start(); err != nil {
			dn.close()
			return nil, err
		}
		app := &chainApp{n: n, chainID: cfg.chainID, coinbase: s.Address(), blockTime: cfg.blockTime, vals: schedule,
			pending: make(map[types.Hash]*chain.Built)}
		d, err := bft.New(bft.Config{Signer: s, Validators: schedule, Timeouts: timeouts,
			Transport: dn.net.Join(s.Address()), App: app, Height: n.Chain.Head().Number() + 1,
			Logf: func(format string, args ...any) { log.Debug(fmt.Sprintf(format, args...), "validator", i) }})
		if err != nil {
			dn.close()
			return nil, err
		}
		ctx, cancel := context.WithCancel(context.Background())
		dn.cancels = append(dn.cancels, cancel)
		dn.wg.Add(1)
		go func() {
			defer dn.wg.Done()
			if err := d.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
				log.Error("validator stopped", "validator", i, "err", err)
			}
		}()
	}
	dn.relayTransactions()
	return dn, nil
}

// relayTransactions copies every transaction the first node's pool accepts
// (it is the one serving JSON-RPC) into the other validators' pools, so
// whoever proposes next includes it: a stand-in for transaction gossip.
func (dn *devnet) relayTransactions() {
	txs, cancel := dn.nodes[0].Pool.Subscribe(1024)
	dn.cancels = append(dn.cancels, cancel)
	dn.wg.Add(1)
	go func() {
		defer dn.wg.Done()
		for tx := range txs {
			for _, n := range dn.nodes[1:] {
				n.Pool.Add(tx) // a pool that already has it or rejects it is fine
			}
		}
	}()
}

// stop crashes validator i: it leaves the network and its driver stops.
func (dn *devnet) stop(i int) {
	dn.net.Leave(dn.signers[i].Address())
	dn.cancels[i]()
}

func (dn *devnet) close() {
	for _, c := range dn.cancels {
		c()
	}
	dn.wg.Wait()
	for _, n := range dn.nodes {
		n.Close()
	}
}

// chainApp is the consensus application of one validator: blocks of its
// chain. A value is rlp([block, certificate of the parent]); the block's
// ParentBeaconRoot is keccak256 of that certificate, so block h+1 commits
// to the proof that block h was decided.
type chainApp struct {
	n         *node.Node
	chainID   uint64
	coinbase  types.Address
	blockTime time.Duration
	vals      consensus.ValidatorSource

	mu         sync.Mutex
	pending    map[types.Hash]*chain.Built // built or validated, not yet committed
	parentCert []byte                      // certificate of the head, as we assembled it
	lastCommit time.Time
}

func (a *chainApp) Propose(_ context.Context, height uint64) (consensus.Value, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	head := a.n.Chain.Head()
	if head.Number()+1 != height {
		return consensus.Value{}, fmt.Errorf("devnet: asked for block %d on head %d", height, head.Number())
	}
	if wait := time.Until(a.lastCommit.Add(a.blockTime)); wait > 0 {
		time.Sleep(wait)
	}
	ordered := txpool.ByPrice(a.n.Pool.Pending(), a.n.Chain.Config.CalcBaseFee(head.HeaderRef()))
	built, err := a.n.Chain.BuildBlock(chain.BuildParams{
		Coinbase:         a.coinbase,
		Time:             uint64(time.Now().Unix()),
		Random:           types.Hash(crypto.Keccak256(head.Hash().Bytes())),
		ParentBeaconRoot: certRoot(a.parentCert),
	}, ordered)
	if err != nil {
		return consensus.Value{}, err
	}
	if len(built.Dropped) > 0 {
		a.n.Pool.Remove(built.Dropped...)
	}
	a.pending[built.Block.Hash()] = built
	return consensus.Value{ID: built.Block.Hash(), Data: encodeDevValue(built.Block, a.parentCert)}, nil
}

func certRoot(cert []byte) types.Hash {
	if cert == nil {
		return types.Hash{}
	}
	return crypto.Keccak256(cert)
}

func encodeDevValue(b *types.Block, cert []byte) []byte {
	var buf rlp.Buffer
	l := buf.List()
	buf.WriteRaw(b.EncodeRLP())
	buf.WriteBytes(cert)
	buf.ListEnd(l)
	return buf.Bytes()
}

func decodeDevValue(data []byte) (*types.Block, []byte, error) {
	content, rest, err := rlp.SplitList(data)
	if err != nil || len(rest) != 0 {
		return nil, nil, errors.New("devnet: malformed value")
	}
	_, _, after, err := rlp.Split(content)
	if err != nil {
		return nil, nil, err
	}
	b, err := types.DecodeBlock(content[:len(content)-len(after)])
	if err != nil {
		return nil, nil, err
	}
	cert, rest, err := rlp.SplitString(after)
	if err != nil || len(rest) != 0 {
		return nil, nil, errors.New("devnet: malformed certificate")
	}
	return b, cert, nil
}

func (a *chainApp) Validate(_ context.Context, _ uint64, v consensus.Value) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.pending[v.ID]; ok {
		return nil
	}
	b, certBytes, err := decodeDevValue(v.Data)
	if err != nil {
		return err
	}
	if b.Hash() != v.ID {
		return errors.New("devnet: value id is not the block hash")
	}
	c := a.n.Chain
	head := c.Head()
	if b.ParentHash() != head.Hash() {
		return fmt.Errorf("devnet: block %d does not build on head %d", b.Number(), head.Number())
	}
	if head.Number() > 0 {
		cert, err := consensus.DecodeCertificate(certBytes)
		if err != nil {
			return err
		}
		vals, err := a.vals.ValidatorSet(head.Number())
		if err != nil {
			return err
		}
		if err := consensus.VerifyCertificate(a.chainID, vals, head.Number(), head.Hash(), cert); err != nil {
			return err
		}
	}
	if r := b.HeaderRef().ParentBeaconRoot; r != nil && *r != certRoot(nilIfEmpty(certBytes)) {
		return errors.New("devnet: block does not commit to the parent's certificate")
	}
	if err := c.Config.ValidateHeader(head.HeaderRef(), b.HeaderRef()); err != nil {
		return err
	}
	if err := c.Config.ValidateBody(b); err != nil {
		return err
	}
	st, err := c.StateAt(head.Root())
	if err != nil {
		return err
	}
	res, err := c.Config.Process(b, st, c.GetHash)
	if err != nil {
		return err
	}
	if err := c.Config.ValidateResult(b, res); err != nil {
		return err
	}
	a.pending[v.ID] = &chain.Built{Block: b, State: st, Receipts: res.Receipts}
	return nil
}

func nilIfEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

func (a *chainApp) Commit(v consensus.Value, cert *consensus.Certificate) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	built, ok := a.pending[v.ID]
	if ok {
		if err := a.n.Chain.CommitBuilt(built.Block, built.State, built.Receipts); err != nil {
			return err
		}
	} else {
		b, _, err := decodeDevValue(v.Data)
		if err != nil {
			return err
		}
		if _, err := a.n.Chain.InsertBlock(b); err != nil {
			return err
		}
	}
	clear(a.pending)
	a.parentCert = cert.Encode()
	a.lastCommit = time.Now()
	return nil
}
