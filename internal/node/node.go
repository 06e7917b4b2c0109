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
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/front"
	gqleth "github.com/chaind/chaind/internal/graphql/eth"
	"github.com/chaind/chaind/internal/metrics"
	"github.com/chaind/chaind/internal/node/bft"
	"github.com/chaind/chaind/internal/node/chainview"
	"github.com/chaind/chaind/internal/node/dev"
	"github.com/chaind/chaind/internal/node/ethbackend"
	"github.com/chaind/chaind/internal/node/fork"
	"github.com/chaind/chaind/internal/node/nodemetrics"
	"github.com/chaind/chaind/internal/node/p2pnet"
	"github.com/chaind/chaind/internal/node/prune"
	"github.com/chaind/chaind/internal/node/stakebackend"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/txpool"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
	"github.com/chaind/chaind/rpc/ethapi"
	"github.com/chaind/chaind/rpc/opslog"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// Config is what a node is started with.
type Config struct {
	Genesis *chain.Genesis
	DataDir string    // empty: everything in memory
	Store   *store.DB // DataDir's store if chaind opened it (StoreOptions): opened once a start

	Host     string // listen address (127.0.0.1)
	HTTPPort int    // JSON-RPC over HTTP (+ WebSocket upgrade); -1 off, 0 any free port
	WSPort   int    // JSON-RPC over WebSocket only; -1 off
	// Explorer serves the block explorer (web page and /api/) on
	// ExplorerPort (0: any free port).
	Explorer     bool
	ExplorerPort int
	// RESTPort and GRPCPort are the Cosmos-style query ports; nil or -1
	// off, 0 any free port.
	RESTPort, GRPCPort *int
	// CometRPCPort is the read-only CometBFT RPC port; nil or -1 off, 0
	// any free port.
	CometRPCPort *int
	// GRPCServer names the HTTP/2 server of the gRPC port, a key of
	// grpcsrv.Servers ("h2" or "net/http"); "" is grpcsrv's default.
	GRPCServer string

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
	// P2P joins a network of processes (transactions, blocks and, on a
	// validator, consensus over p2p); Validators is then required.
	P2P *P2PConfig

	// Archive keeps the state of every block; otherwise only the last
	// StateHistory blocks' states stay readable (older trie nodes are
	// pruned in the background).
	Archive      bool
	StateHistory uint64 // default 128
	// HistoryKeep is how many recent blocks stay in the history index
	// (transaction lookups, address lists); 0 keeps all.
	HistoryKeep uint64
	// CacheMiB is the store's block cache and the chain's node cache
	// (chain.NodeCacheMiB of it; default 64 for the store alone): with
	// the memtables, the bound on the memory the state's storage holds.
	CacheMiB int
	GasLimit uint64 // block gas limit the proposer aims for (0: keep the parent's)

	Accounts []*secp256k1.PrivateKey // node-held keys (dev accounts)
	Public   bool                    // apply the public rate and connection limits
	// AllowUnprotectedTxs accepts transactions without EIP-155 replay
	// protection from clients. Never with Public.
	AllowUnprotectedTxs bool
	CORS                []string
	VHosts              []string // Host header values the HTTP port accepts (empty: any)

	// HTTPAPIs and WSAPIs are the JSON-RPC namespaces served on the HTTP
	// and WebSocket-only ports. nil: every namespace, or without Public
	// ones (see PublicHiddenAPIs).
	HTTPAPIs, WSAPIs []string
	// Clock is the rate limits' clock (nil: time.Now); tests inject one.
	Clock func() time.Time

	ClientVersion string
	Log           *slog.Logger

	Ops OpsConfig // debug routes, trusted proxies (ops.go)

	Fork ForkConfig // forking another chain, anvil_reset (fork.go)
	// DevTools serves the test helpers of a development node (evm_*,
	// hardhat_*, anvil_*; devtools.go) and runs consensus under their
	// mining control. Never with Public. It keeps every state, as a
	// snapshot may return to any block.
	DevTools bool
	// DevNoMining starts the test helpers with automine and interval
	// mining off (anvil's --no-mining): blocks come only from evm_mine and
	// its kin. DevAutoImpersonate starts them impersonating every address
	// (--auto-impersonate).
	DevNoMining, DevAutoImpersonate bool
	Dev                             dev.Options // --code-size-limit, --order

	faults faults // a test's injected failures (health.go)
}

// Node is a running chaind node.
type Node struct {
	cfg     Config
	log     *slog.Logger
	kv      store.KV
	Chain   *chain.Chain
	view    *chainview.View // the chain as every backend reads it, with the dev helpers' edits
	Pool    *txpool.Pool
	backend *ethbackend.Backend
	stake   *stakebackend.Backend // the staking, network and supply views
	RPC     *rpc.Server
	keys    *keyring
	front   *front.Front
	opslog  *opslog.Log // nil: debug routes off
	metrics *metrics.Registry
	// prunePause observes each hold of the chain by a pruning pass.
	prunePause *metrics.HistogramVec
	// http counts the listeners' requests (Start hands it to each).
	http *nodemetrics.HTTP
	// chainm reports blocks, sync and this validator's signed and missed blocks.
	chainm    *nodemetrics.Chain
	bftStats  bft.Stats
	stallWarn atomic.Int64 // when "waiting for a quorum" was last logged (unix ns)
	gql       *gqleth.Service

	httpAPIs, wsAPIs []string // nil: every namespace

	pool *chainview.PoolKeeper // keeps Pool on the head

	mu      sync.Mutex
	servers []*front.Server
	addrs   map[string]string
	stop    chan struct{}
	wg      sync.WaitGroup
	closed  bool

	validators    consensus.ValidatorSource
	stopConsensus context.CancelFunc
	consensusDone chan struct{} // closed when the driver has returned
	app           *bft.ChainApp // the validator's application; nil on a node that does not validate

	net atomic.Pointer[p2pnet.Net] // nil until the node joins a p2p network

	dev *dev.Tools // the test helpers; nil unless Config.DevTools

	health health // health.go
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
	if cfg.DevTools && cfg.Public {
		return nil, errors.New("node: the dev test helpers are never served on a public node")
	}
	if cfg.AllowUnprotectedTxs && cfg.Public {
		return nil, errors.New("node: a public node never accepts transactions without replay protection")
	}
	if cfg.DevTools {
		cfg.Archive = true
		cfg.ClientVersion = dev.ClientVersion(cfg.ClientVersion)
	}
	var kv store.KV
	switch {
	case cfg.Store != nil:
		kv = cfg.Store
	case cfg.DataDir == "":
		kv = store.NewMem()
	default:
		db, err := store.OpenWith(cfg.DataDir, cfg.StoreOptions())
		if err != nil {
			return nil, fmt.Errorf("open data directory: %w", err)
		}
		kv = db
	}
	if db, ok := kv.(*store.DB); ok && db.Recover.Migrated {
		cfg.Log.Info("converted the data directory to the sorted-table store", "batches", db.Recover.Batches)
	}
	if db, ok := kv.(*store.DB); ok && db.Recover.CutBytes > 0 {
		cfg.Log.Warn("data directory had a damaged tail; it was cut", "bytes", db.Recover.CutBytes, "reason", db.Recover.Reason)
	}
	if cfg.faults.kv != nil {
		kv = cfg.faults.kv(kv)
	}
	fs, err := fork.Open(cfg.Genesis, cfg.Fork, kv, cfg.Log) // before the chain opens: a fork moves the genesis time
	if err != nil {
		kv.Close()
		return nil, err
	}
	g := cfg.Genesis
	if cfg.DevTools {
		g = dev.Rules(g, cfg.Dev) // the chain's signer and code size limit are chosen at open
	}
	c, err := chain.OpenCached(g, kv, pos.ForGenesis(g), chain.NodeCacheMiB(cfg.CacheMiB))
	if err != nil {
		kv.Close()
		return nil, err
	}
	view := chainview.New(c)
	view.SetFork(fs)
	ph, err := view.PoolHead()
	if err != nil {
		kv.Close()
		return nil, err
	}
	n := &Node{
		cfg:   cfg,
		log:   cfg.Log,
		kv:    kv,
		Chain: c,
		view:  view,
		Pool:  txpool.New(cfg.Dev.PoolConfig(cfg.Log, cfg.Ops.Limits.TxPoolBytes), ph),
		RPC:   rpc.NewServer(cfg.Log),
		keys:  newKeyring(cfg.Accounts),
		addrs: map[string]string{},
		stop:  make(chan struct{}),
	}
	n.health.failed = make(chan struct{})
	n.pool = view.KeepPool(n.Pool, cfg.Log)
	n.stake = stakebackend.New(view, stakebackend.Config{Validator: cfg.Validator, Host: cfg.Host,
		P2PListenAddr: cfg.P2P.Listen(), BlockTime: cfg.BlockTime, ClientVersion: cfg.ClientVersion,
		Syncing:   func() map[types.Address]bool { return n.net.Load().SyncingNodes() },
		Announced: func() []backend.NodeInfo { return n.net.Load().Announced() }, Validators: n.Validators})
	lim := cfg.Ops.Limits
	n.backend = ethbackend.New(view, n.Pool, ethbackend.Options{GasCap: lim.CallGas, CallTimeout: lim.CallTimeout,
		TraceBytes: int(min(lim.ResponseBytes, 1<<40)), StateRetention: prune.Retention(cfg.Archive, cfg.StateHistory), Network: nodeNetwork{n},
		AllowUnprotected: cfg.AllowUnprotectedTxs})
	opts := ethapi.EthOptions{ClientVersion: cfg.ClientVersion, LogRange: lim.LogRange, LogLimit: lim.LogResults, ReturnDataLimit: lim.CallReturnData}
	if cfg.Validator != nil {
		cb := types.Address(crypto.PrivkeyToAddress(cfg.Validator))
		opts.Coinbase = &cb
	}
	lim.applyRPC(n.RPC)
	ethapi.RegisterEth(n.RPC, n.backend, opts)
	var accounts backend.Accounts = n.keys
	if cfg.Public {
		accounts = nil // a public node holds no unlocked account, --dev or not
	}
	ethapi.RegisterAccounts(n.RPC, n.backend, accounts, opts)
	ethapi.RegisterChain(n.RPC, n.stake.Network())
	ethapi.RegisterFilters(n.RPC, n.backend, opts)
	ethapi.RegisterOtterscan(n.RPC, n.backend, opts)
	ethapi.RegisterTrace(n.RPC, n.backend, opts)
	n.registerFork()
	if cfg.DevTools {
		n.enableDevTools()
	}
	if err := n.newGraphQL(); err != nil {
		kv.Close()
		return nil, err
	}
	var limits front.Limits
	if cfg.Public {
		limits = lim.public()
	}
	n.front = front.New(front.Config{Limits: limits, Now: cfg.Clock, Log: cfg.Log, TrustedProxies: cfg.Ops.TrustedProxies})
	if err := n.openOps(); err != nil {
		kv.Close()
		return nil, err
	}
	n.openMetrics()
	if n.httpAPIs, err = n.apis("http", cfg.HTTPAPIs); err != nil {
		kv.Close()
		return nil, err
	}
	if n.wsAPIs, err = n.apis("ws", cfg.WSAPIs); err != nil {
		kv.Close()
		return nil, err
	}
	return n, nil
}

// PublicHiddenAPIs are the namespaces a --public node leaves out unless
// its API lists name them: they expose node internals or keys, or cost
// far more than a query (trace and ots replay transactions).
var PublicHiddenAPIs = []string{"debug", "testing", "txpool", "personal", "trace", "ots"}

// apis resolves a port's namespace list: the given one, checked against
// the registered namespaces, or the default.
func (n *Node) apis(port string, given []string) ([]string, error) {
	have := n.RPC.Namespaces()
	if given == nil {
		if !n.cfg.Public {
			return nil, nil
		}
		return slices.DeleteFunc(have, func(ns string) bool { return slices.Contains(PublicHiddenAPIs, ns) }), nil
	}
	for _, ns := range given {
		if ns == "personal" && n.cfg.Public && !slices.Contains(have, ns) {
			// It exists, for a node's unlocked accounts, which a public
			// node never holds: "unknown" would send the operator looking
			// for a typo.
			return nil, fmt.Errorf("--%s.api: a --public node holds no unlocked accounts, so it serves no personal namespace", port)
		}
		if !slices.Contains(have, ns) {
			return nil, fmt.Errorf("--%s.api: unknown namespace %q (have %s)", port, ns, strings.Join(have, ", "))
		}
	}
	return given, nil
}

// listeners declares the node's ports. Every one is built through the
// front, which applies the node's limits to all of them.
func (n *Node) listeners() []front.Listener {
	var ls []front.Listener
	addr := func(port int) string { return net.JoinHostPort(n.cfg.Host, strconv.Itoa(port)) }
	if n.cfg.HTTPPort >= 0 {
		ls = append(ls, n.httpListener(addr(n.cfg.HTTPPort)))
	}
	ls = append(ls, n.metricsListener()...)
	if n.cfg.WSPort >= 0 {
		// The WebSocket port answers POST too, under the same front.
		ls = append(ls, n.RPC.Listener("ws", addr(n.cfg.WSPort),
			rpc.HTTPConfig{WebSocket: true, APIs: n.wsAPIs, WS: n.cfg.Ops.Limits.ws()}, front.Options{BodyLimit: n.cfg.Ops.Limits.BodyBytes}))
	}
	if n.cfg.Explorer {
		ls = append(ls, n.explorerListener(addr(n.cfg.ExplorerPort)))
	}
	ls = append(ls, n.cosmosListeners(addr)...)
	return ls
}

func (n *Node) httpListener(addr string) front.Listener {
	l := n.RPC.Listener("http", addr, rpc.HTTPConfig{WebSocket: true, APIs: n.httpAPIs, WS: n.cfg.Ops.Limits.ws()},
		front.Options{CORSOrigins: n.cfg.CORS, VirtualHosts: n.cfg.VHosts, BodyLimit: n.cfg.Ops.Limits.BodyBytes})
	return n.withHealth(n.withGraphQL(n.withOpsRoutes(l)))
}

// Handler is the HTTP handler of the JSON-RPC port (POST and WebSocket)
// behind the front, as Start serves it but for the connection cap.
func (n *Node) Handler() http.Handler {
	l := n.httpListener("")
	return n.front.Handler(l.Options, l.Handler)
}

// Start opens the listeners and, on a validator, starts consensus.
func (n *Node) Start() error {
	if err := pos.HeadUpgradeNeeded(n.Chain); err != nil {
		return err
	}
	ls := n.listeners()
	n.capListeners(ls)
	n.http.Observe(ls, nodemetrics.Routes{IsGraphQL: isGraphQL, Health: healthPaths, OpsPaths: []string{"/authenticate"}, OpsPrefix: opslog.Prefix})
	for _, l := range ls {
		s, err := n.front.Listen(l)
		if err != nil {
			return err
		}
		n.mu.Lock()
		n.servers = append(n.servers, s)
		n.addrs[s.Kind()] = s.Addr()
		n.mu.Unlock()
	}
	n.wg.Add(2)
	go func() {
		defer n.wg.Done()
		n.pool.Follow(n.stop)
	}()
	go func() {
		defer n.wg.Done()
		n.chainm.FollowSigning(n.stop)
	}()
	n.startPruning()
	if n.cfg.P2P != nil {
		return n.startNetwork() // starts consensus once caught up
	}
	if n.cfg.Validator != nil {
		if err := n.startConsensus(); err != nil {
			return fmt.Errorf("consensus: %w", err)
		}
	}
	return nil
}

// Addr returns the address a listener of the given kind is bound to.
func (n *Node) Addr(kind string) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.addrs[kind]
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
	inserted := func(b *types.Block) {
		count++
		if progress != nil {
			progress(count, b.GasUsed())
		}
	}
	err = n.Chain.ImportBlocks(f, inserted)
	if err == nil {
		n.pool.Reset()
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
	n.closeNetwork()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	for _, s := range servers {
		s.Shutdown(ctx)
	}
	n.wg.Wait()
	return errors.Join(n.closeOps(), n.kv.Close()) // the chain holds no unwritten block (chain.DB.pending); its committers stopped above
}

// keyring holds node-held keys.
type keyring struct {
	order []types.Address
	keys  map[types.Address]*secp256k1.PrivateKey
	imp   backend.Impersonator // dev: addresses sent from without a key; nil none
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

// Impersonating implements backend.Impersonator.
func (k *keyring) Impersonating(a types.Address) bool { return k.imp != nil && k.imp.Impersonating(a) }

func (k *keyring) SignHash(addr types.Address, digest types.Hash) ([]byte, error) {
	key, ok := k.keys[addr]
	if !ok {
		return nil, fmt.Errorf("%w %s", backend.ErrUnknownAccount, addr.Hex())
	}
	sig := crypto.Sign(digest, key)
	return sig[:], nil
}
