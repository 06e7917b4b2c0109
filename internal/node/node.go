// Package node wires chaind's parts into a running node: the chain store,
// the transaction pool, consensus (the BFT driver of internal/node/bft with
// the chain as its application) and the network interfaces.
package node

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/node/bft"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/txpool"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// Config is what a node is started with.
type Config struct {
	Genesis *chain.Genesis
	DataDir string // empty: everything in memory

	Host     string // listen address (127.0.0.1)
	HTTPPort int    // JSON-RPC over HTTP (+ WebSocket upgrade); -1 off, 0 any free port
	WSPort   int    // JSON-RPC over WebSocket only; -1 off

	// Validator is the key that signs blocks; nil makes a node that only
	// serves what it has and pools transactions.
	Validator *secp256k1.PrivateKey
	BlockTime time.Duration // minimum time between blocks; 0: seal as soon as transactions are pending
	// Validators and Transport make the validator one of a set (a devnet);
	// without them it is the only validator of its chain, over an
	// in-process transport.
	Validators consensus.ValidatorSource
	Transport  bft.Transport
	Timeouts   consensus.Timeouts // zero: defaults for BlockTime

	// Archive keeps the state of every block; otherwise only the last
	// StateHistory blocks' states stay readable (older trie nodes are
	// pruned in the background).
	Archive      bool
	StateHistory uint64 // default 128
	GasLimit     uint64 // block gas limit the proposer aims for (0: keep the parent's)

	Accounts []*secp256k1.PrivateKey // node-held keys (dev accounts)
	Public   bool                    // apply the public rate and connection limits
	CORS     []string
	VHosts   []string // Host header values the HTTP port accepts (empty: any)

	ClientVersion string
	Log           *slog.Logger
}

// Node is a running chaind node.
type Node struct {
	cfg     Config
	log     *slog.Logger
	kv      store.KV
	Chain   *chain.Chain
	Pool    *txpool.Pool
	backend *backend
	RPC     *rpc.Server
	keys    *keyring

	resetMu sync.Mutex
	poolAt  types.Hash // head the pool was last reset to

	mu        sync.Mutex
	listeners []net.Listener
	servers   []*http.Server
	addrs     map[string]string
	stop      chan struct{}
	wg        sync.WaitGroup
	closed    bool

	validators    consensus.ValidatorSource
	stopConsensus context.CancelFunc
}

// New opens the node's store and chain and registers its interfaces; Start
// opens the listeners and starts consensus.
func New(cfg Config) (*Node, error) {
	if cfg.Genesis == nil {
		return nil, errors.New("node: no genesis")
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	if cfg.StateHistory == 0 {
		cfg.StateHistory = 128
	}
	var kv store.KV
	if cfg.DataDir == "" {
		kv = store.NewMem()
	} else {
		db, err := store.Open(cfg.DataDir)
		if err != nil {
			return nil, fmt.Errorf("open data directory: %w", err)
		}
		if db.Recover.CutBytes > 0 {
			cfg.Log.Warn("data directory had a damaged tail; it was cut", "bytes", db.Recover.CutBytes, "reason", db.Recover.Reason)
		}
		kv = db
	}
	c, err := chain.Open(cfg.Genesis, kv)
	if err != nil {
		kv.Close()
		return nil, err
	}
	ph, err := poolHead(c)
	if err != nil {
		kv.Close()
		return nil, err
	}
	n := &Node{
		cfg:    cfg,
		log:    cfg.Log,
		kv:     kv,
		Chain:  c,
		Pool:   txpool.New(txpool.DefaultConfig, ph),
		RPC:    rpc.NewServer(cfg.Log),
		keys:   newKeyring(cfg.Accounts),
		addrs:  map[string]string{},
		stop:   make(chan struct{}),
		poolAt: c.Head().Hash(),
	}
	n.backend = newBackend(c, n.Pool)
	opts := rpc.EthOptions{ClientVersion: cfg.ClientVersion}
	rpc.RegisterEth(n.RPC, n.backend, opts)
	rpc.RegisterAccounts(n.RPC, n.backend, n.keys, opts)
	rpc.RegisterChain(n.RPC, &network{n: n})
	rpc.RegisterFilters(n.RPC, n.backend, n.Chain, n.Pool, opts)
	return n, nil
}

// Handler is the HTTP handler of the JSON-RPC port (POST and WebSocket).
func (n *Node) Handler() http.Handler {
	cfg := rpc.HTTPConfig{WebSocket: true, CORSOrigins: n.cfg.CORS, VirtualHosts: n.cfg.VHosts}
	if n.cfg.Public {
		cfg.Limiter = rpc.NewLimiter(rpc.PublicLimits)
	}
	return n.RPC.HTTPHandler(cfg)
}

// Start opens the listeners and, on a validator, starts consensus.
func (n *Node) Start() error {
	if n.cfg.HTTPPort >= 0 {
		if err := n.listen("http", n.cfg.HTTPPort, n.Handler()); err != nil {
			return err
		}
	}
	if n.cfg.WSPort >= 0 {
		ws := n.RPC.HTTPHandler(rpc.HTTPConfig{WebSocket: true})
		if err := n.listen("ws", n.cfg.WSPort, ws); err != nil {
			return err
		}
	}
	n.wg.Add(1)
	go n.followHeads()
	if !n.cfg.Archive {
		n.wg.Add(1)
		go n.pruneStates()
	}
	if n.cfg.Validator != nil {
		if err := n.startConsensus(); err != nil {
			return fmt.Errorf("consensus: %w", err)
		}
	}
	return nil
}

func (n *Node) listen(kind string, port int, h http.Handler) error {
	ln, err := net.Listen("tcp", net.JoinHostPort(n.cfg.Host, fmt.Sprint(port)))
	if err != nil {
		return fmt.Errorf("listen %s: %w", kind, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	n.mu.Lock()
	n.listeners = append(n.listeners, ln)
	n.servers = append(n.servers, srv)
	n.addrs[kind] = ln.Addr().String()
	n.mu.Unlock()
	n.log.Info("listening", "kind", kind, "addr", ln.Addr().String())
	go srv.Serve(ln)
	return nil
}

// Addr returns the address a listener of the given kind is bound to.
func (n *Node) Addr(kind string) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.addrs[kind]
}

// followHeads keeps the pool in step with the chain.
func (n *Node) followHeads() {
	defer n.wg.Done()
	heads, cancel := n.Chain.Subscribe(64)
	defer cancel()
	for {
		select {
		case <-n.stop:
			return
		case _, ok := <-heads:
			if !ok {
				return
			}
			n.resetPool()
		}
	}
}

// resetPool moves the pool to the chain's head, once per head: the
// consensus application calls it right after committing (so the next block
// is built from a pool that knows what the last one took) and followHeads
// for blocks from elsewhere.
func (n *Node) resetPool() {
	n.resetMu.Lock()
	defer n.resetMu.Unlock()
	head := n.Chain.Head().Hash()
	if head == n.poolAt {
		return
	}
	ph, err := poolHead(n.Chain)
	if err != nil {
		n.log.Error("pool reset", "err", err)
		return
	}
	n.Pool.Reset(ph)
	n.poolAt = head
}

// ImportFile imports a file of concatenated RLP blocks, validating each
// fully, and reports progress to the log.
func (n *Node) ImportFile(path string, progress func(imported uint64, gas uint64)) (uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var count uint64
	err = chain.ReadBlocks(f, func(b *types.Block) error {
		if _, err := n.Chain.InsertBlock(b); err != nil {
			if errors.Is(err, chain.ErrKnownBlock) {
				return nil
			}
			return fmt.Errorf("block %d (%s): %w", b.Number(), b.Hash(), err)
		}
		count++
		if progress != nil {
			progress(count, b.GasUsed())
		}
		return nil
	})
	if err == nil {
		n.resetPool()
	}
	return count, err
}

// Close stops consensus and the listeners and closes the store, flushing
// what it holds. It is safe to call more than once.
func (n *Node) Close() error {
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil
	}
	n.closed = true
	close(n.stop)
	servers := n.servers
	stopConsensus := n.stopConsensus
	n.mu.Unlock()
	if stopConsensus != nil {
		stopConsensus()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	for _, s := range servers {
		s.Shutdown(ctx)
	}
	n.wg.Wait()
	return n.kv.Close()
}

// keyring holds node-held keys.
type keyring struct {
	order []types.Address
	keys  map[types.Address]*secp256k1.PrivateKey
}

func newKeyring(keys []*secp256k1.PrivateKey) *keyring {
	kr := &keyring{keys: map[types.Address]*secp256k1.PrivateKey{}}
	for _, k := range keys {
		a := types.Address(crypto.PrivkeyToAddress(k))
		kr.order = append(kr.order, a)
		kr.keys[a] = k
	}
	return kr
}

func (k *keyring) Accounts() []types.Address { return append([]types.Address{}, k.order...) }

func (k *keyring) SignHash(addr types.Address, digest types.Hash) ([]byte, error) {
	key, ok := k.keys[addr]
	if !ok {
		return nil, fmt.Errorf("%w %s", rpc.ErrUnknownAccount, addr.Hex())
	}
	sig := crypto.Sign(digest, key)
	return sig[:], nil
}
