package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/chaind/chaind/internal/pos"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/node/fork"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/holiman/uint256"
)

const upstreamChainID = 777

// forkUpstream is a second local chain with an ERC-20 token: X receives
// 100 tokens in a block, which is the fork block N; after N, X receives
// 50 more and Y one ether.
type forkUpstream struct {
	n       *Node
	url     string
	keys    []*secp256k1.PrivateKey
	N, head uint64
	x, y    types.Address
}

func startUpstream(t testing.TB) *forkUpstream {
	t.Helper()
	keys := devload.Keys("fork-upstream", 2)
	g := devload.GenesisWithToken(upstreamChainID, keys, 1_700_000_000)
	n, err := New(Config{Genesis: g, HTTPPort: 0, WSPort: -1, Validator: keys[0], Accounts: keys})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	u := &forkUpstream{n: n, url: "http://" + n.Addr("http"), keys: keys, x: types.Address{0xa1}, y: types.Address{0xb2}}
	s := devload.NewSigner(upstreamChainID)
	send := func(nonce uint64, to types.Address, value *uint256.Int, data []byte) {
		tx, err := s.Sign(keys[1], nonce, &to, value, 100_000, data)
		if err != nil {
			t.Fatal(err)
		}
		if err := n.backend.SendTransaction(context.Background(), tx); err != nil {
			t.Fatal(err)
		}
		waitNonce(t, n, devload.Address(keys[1]), nonce+1)
	}
	send(0, devload.TokenAddress, nil, devload.TransferData(u.x, 100))
	u.N = n.Chain.Head().Number()
	send(1, devload.TokenAddress, nil, devload.TransferData(u.x, 50))
	send(2, u.y, uint256.NewInt(1e18), nil)
	u.head = n.Chain.Head().Number()
	return u
}

// startFork starts a dev node (with the dev staking setup, as chaind
// --dev has it) forking u at block.
func startFork(t testing.TB, u *forkUpstream, block *uint64, dir string, opts ...func(*Config)) (*Node, error) {
	t.Helper()
	val, err := DevValidatorKey(0)
	if err != nil {
		t.Fatal(err)
	}
	dev := devload.Keys("fork-dev", 2)
	g := chain.DevGenesis(1, []types.Address{devload.Address(dev[0]), devload.Address(dev[1])}, uint64(time.Now().Unix()))
	if err := pos.SetDevStaking(g, []*secp256k1.PrivateKey{val}, "127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	if dir != "" {
		// As chaind does: a data directory keeps its genesis.
		if kv, err := store.OpenReadOnly(dir); err == nil {
			stored, ok, err := chain.StoredGenesis(kv)
			kv.Close()
			if err != nil {
				t.Fatal(err)
			}
			if ok {
				g = stored
			}
		}
	}
	cfg := Config{Genesis: g, DataDir: dir, HTTPPort: -1, WSPort: -1, Validator: val, Accounts: dev,
		Fork: ForkConfig{URL: u.url, Block: block, Reset: true}}
	for _, o := range opts {
		o(&cfg)
	}
	n, err := New(cfg)
	if err != nil {
		return nil, err
	}
	if err := n.Start(); err != nil {
		n.Close()
		t.Fatal(err)
	}
	return n, nil
}

// rpcCall serves one call in process and returns its result, or the
// JSON-RPC error as an error.
func rpcCall(t testing.TB, n *Node, method string, params ...any) (json.RawMessage, error) {
	t.Helper()
	if params == nil {
		params = []any{}
	}
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(n.RPC.HandleMessage(context.Background(), req), &resp); err != nil {
		t.Fatal(err)
	}
	if resp.Error != nil {
		return nil, errors.New(resp.Error.Message)
	}
	return resp.Result, nil
}

func mustCall(t testing.TB, n *Node, method string, params ...any) string {
	t.Helper()
	res, err := rpcCall(t, n, method, params...)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return string(res)
}

func tokenBalance(t testing.TB, n *Node, who types.Address, tag string) string {
	t.Helper()
	return mustCall(t, n, "eth_call", map[string]any{"from": caller, "to": devload.TokenAddress, "data": types.HexBytes(devload.BalanceOfData(who))}, tag)
}

// caller is the sender of the test's eth_calls: an account no fork touches
// otherwise.
var caller = types.Address{0xca, 0x11, 0xe4}

func word(v uint64) string { return fmt.Sprintf(`"0x%064x"`, v) }

func TestForkReadsUpstreamAtBlockAndResets(t *testing.T) {
	u := startUpstream(t)
	n, err := startFork(t, u, &u.N, "")
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	k1 := devload.Address(u.keys[1])
	atN := devload.Hex(u.N)

	if g := n.Chain.Genesis(); g.Number() != u.N || g.Hash() != u.n.Chain.GetHash(u.N) {
		t.Fatalf("fork genesis is block %d %s, want the upstream's %d %s", g.Number(), g.Hash(), u.N, u.n.Chain.GetHash(u.N))
	}
	if got := mustCall(t, n, "eth_chainId"); got != fmt.Sprintf(`"0x%x"`, upstreamChainID) {
		t.Fatalf("chain ID %s, want the upstream's", got)
	}
	// Balances, code and storage as of N, not as of the upstream's head.
	if got, want := mustCall(t, n, "eth_getBalance", k1, "latest"), mustCall(t, u.n, "eth_getBalance", k1, atN); got != want {
		t.Fatalf("balance of %s on the fork %s, upstream at N %s", k1.Hex(), got, want)
	}
	if got := mustCall(t, n, "eth_getBalance", u.y, "latest"); got != `"0x0"` {
		t.Fatalf("balance of Y (paid after N) on the fork: %s", got)
	}
	if got := tokenBalance(t, n, u.x, "latest"); got != word(100) {
		t.Fatalf("token balance of X on the fork %s, want 100", got)
	}
	if got := mustCall(t, n, "eth_getStorageAt", devload.TokenAddress, devload.TokenSlot(u.x), "latest"); got != word(100) {
		t.Fatalf("storage of X's balance on the fork %s", got)
	}
	if got, want := mustCall(t, n, "eth_getCode", devload.TokenAddress, "latest"), mustCall(t, u.n, "eth_getCode", devload.TokenAddress, "latest"); got != want || len(got) < 10 {
		t.Fatalf("code on the fork %.40s, upstream %.40s", got, want)
	}
	if got, want := mustCall(t, n, "eth_getTransactionCount", k1, "latest"), `"0x1"`; got != want {
		t.Fatalf("nonce on the fork %s, want %s", got, want)
	}
	// Blocks up to N are the upstream's.
	var blk struct {
		Hash types.Hash `json:"hash"`
	}
	json.Unmarshal([]byte(mustCall(t, n, "eth_getBlockByNumber", atN, false)), &blk)
	if blk.Hash != u.n.Chain.GetHash(u.N) {
		t.Fatalf("block N on the fork is %s, upstream %s", blk.Hash, u.n.Chain.GetHash(u.N))
	}
	if n.Chain.GetHash(u.N) != u.n.Chain.GetHash(u.N) || n.Chain.GetHash(u.N-1) != u.n.Chain.GetHash(u.N-1) {
		t.Fatal("BLOCKHASH of upstream blocks differs on the fork")
	}
	// Calls naming an upstream block by number are the upstream's.
	before := devload.Hex(u.N - 1)
	if got, want := mustCall(t, n, "eth_getBalance", k1, before), mustCall(t, u.n, "eth_getBalance", k1, before); got != want {
		t.Fatalf("balance at block N-1 on the fork %s, upstream %s", got, want)
	}
	if got := tokenBalance(t, n, u.x, before); got != word(0) {
		t.Fatalf("X at block N-1 on the fork: %s", got)
	}
	if got, want := mustCall(t, n, "eth_getBlockTransactionCountByNumber", atN), mustCall(t, u.n, "eth_getBlockTransactionCountByNumber", atN); got != want || got != `"0x1"` {
		t.Fatalf("transactions of block N on the fork %s, upstream %s", got, want)
	}
	var byHash struct {
		Number types.HexUint64 `json:"number"`
	}
	json.Unmarshal([]byte(mustCall(t, n, "eth_getBlockByHash", u.n.Chain.GetHash(u.N), false)), &byHash)
	if uint64(byHash.Number) != u.N {
		t.Fatalf("block N by hash on the fork: number %d", byHash.Number)
	}
	if got := mustCall(t, n, "eth_getBlockByHash", u.n.Chain.GetHash(u.head), false); got != "null" {
		t.Fatalf("an upstream block after the fork point is served by hash: %.60s", got)
	}
	// Upstream transactions up to N are found by hash; later ones are not.
	upTxs := func(num uint64) types.Hash {
		blk, err := u.n.Chain.BlockByNumber(num)
		if err != nil || len(blk.Transactions()) == 0 {
			t.Fatalf("upstream block %d: %v", num, err)
		}
		return blk.Transactions()[0].Hash()
	}
	var rc struct {
		BlockNumber types.HexUint64 `json:"blockNumber"`
	}
	json.Unmarshal([]byte(mustCall(t, n, "eth_getTransactionReceipt", upTxs(u.N))), &rc)
	if uint64(rc.BlockNumber) != u.N {
		t.Fatalf("receipt of the upstream transaction in block N: block %d", rc.BlockNumber)
	}
	if got := mustCall(t, n, "eth_getTransactionByHash", upTxs(u.head)); got != "null" {
		t.Fatalf("an upstream transaction after the fork point is served: %.80s", got)
	}
	// Proofs of upstream state work on the fork (the reads fetch the nodes).
	var proof struct {
		StorageProof []struct {
			Value types.HexU256 `json:"value"`
		} `json:"storageProof"`
	}
	json.Unmarshal([]byte(mustCall(t, n, "eth_getProof", devload.TokenAddress, []types.Hash{devload.TokenSlot(u.x)}, "latest")), &proof)
	if len(proof.StorageProof) != 1 || (*uint256.Int)(&proof.StorageProof[0].Value).Uint64() != 100 {
		t.Fatalf("eth_getProof on the fork: %+v", proof)
	}
	if _, err := rpcCall(t, n, "eth_getLogs", map[string]any{"fromBlock": "0x0", "toBlock": "latest"}); err != nil {
		t.Fatalf("eth_getLogs from block 0 on a fork: %v", err)
	}

	// A transaction on the fork changes the fork only.
	z := types.Address{0xc3}
	upHead := u.n.Chain.Head().Hash()
	tx, err := devload.NewSigner(upstreamChainID).Sign(u.keys[1], 1, &devload.TokenAddress, nil, 100_000, devload.TransferData(z, 7))
	if err != nil {
		t.Fatal(err)
	}
	if err := n.backend.SendTransaction(context.Background(), tx); err != nil {
		t.Fatal(err)
	}
	waitNonce(t, n, k1, 2)
	if got := tokenBalance(t, n, z, "latest"); got != word(7) {
		t.Fatalf("Z on the fork after the transfer: %s", got)
	}
	if got := tokenBalance(t, n, u.x, "latest"); got != word(100) {
		t.Fatalf("X on the fork after the transfer: %s", got)
	}
	if got := tokenBalance(t, u.n, z, "latest"); got != word(0) || u.n.Chain.Head().Hash() != upHead {
		t.Fatalf("the upstream changed: Z has %s", got)
	}
	// Pruning keeps what the kept states use and skips upstream nodes
	// never fetched.
	if _, err := n.Chain.Prune(1); err != nil {
		t.Fatalf("pruning a fork: %v", err)
	}
	if got := tokenBalance(t, n, u.x, "latest"); got != word(100) {
		t.Fatalf("X after pruning: %s", got)
	}

	// anvil_reset goes back to the fork point, and blocks follow again.
	mustCall(t, n, "anvil_reset")
	if h := n.Chain.Head(); h.Number() != u.N {
		t.Fatalf("head after anvil_reset is %d, want the fork block %d", h.Number(), u.N)
	}
	if got := tokenBalance(t, n, z, "latest"); got != word(0) {
		t.Fatalf("Z after anvil_reset: %s", got)
	}
	if err := n.backend.SendTransaction(context.Background(), tx); err != nil {
		t.Fatal(err)
	}
	waitNonce(t, n, k1, 2)
	if got := tokenBalance(t, n, z, "latest"); got != word(7) {
		t.Fatalf("Z after replaying the transfer: %s", got)
	}

	// hardhat_reset with forking parameters forks again, at the head.
	if got := mustCall(t, n, "hardhat_reset", map[string]any{"forking": map[string]any{"jsonRpcUrl": u.url, "blockNumber": u.head}}); got != "true" {
		t.Fatalf("hardhat_reset answered %s", got)
	}
	if g := n.Chain.Genesis(); g.Number() != u.head || n.Chain.Head().Hash() != g.Hash() {
		t.Fatalf("after re-fork genesis %d head %d, want %d", g.Number(), n.Chain.Head().Number(), u.head)
	}
	if got := tokenBalance(t, n, u.x, "latest"); got != word(150) {
		t.Fatalf("X after re-forking at the head: %s", got)
	}
	if got := tokenBalance(t, n, z, "latest"); got != word(0) {
		t.Fatalf("Z after re-forking: %s", got)
	}
	if got, want := mustCall(t, n, "eth_getBalance", u.y, "latest"), mustCall(t, u.n, "eth_getBalance", u.y, "latest"); got != want {
		t.Fatalf("Y after re-forking %s, upstream %s", got, want)
	}
	// Bad reset parameters are refused and change nothing.
	if _, err := rpcCall(t, n, "anvil_reset", map[string]any{"forking": map[string]any{"blockNumber": u.head + 1000}}); err == nil || !strings.Contains(err.Error(), "beyond") {
		t.Fatalf("reset beyond the upstream's head: %v", err)
	}
	if g := n.Chain.Genesis(); g.Number() != u.head {
		t.Fatalf("a refused reset moved the genesis to %d", g.Number())
	}
}

// The first eth_call to a contract the fork has not touched costs one
// eth_getProof per account and slot plus one eth_getCode per contract; a
// second costs nothing, and neither does one after a restart on the same
// data directory.
func TestForkUpstreamRoundTrips(t *testing.T) {
	u := startUpstream(t)
	dir := t.TempDir()
	n, err := startFork(t, u, &u.N, dir)
	if err != nil {
		t.Fatal(err)
	}
	up := n.Upstream()
	// Start-up: chain ID and head, the fork block, its ancestors' hashes,
	// the genesis accounts' proofs in one batch.
	t.Logf("fork start-up: %d upstream round trips", up.RoundTrips())
	if up.RoundTrips() > 5 {
		t.Errorf("fork start-up took %d round trips, want at most 5", up.RoundTrips())
	}
	before := up.RoundTrips()
	tokenBalance(t, n, u.x, "latest")
	// Touched: the caller and the token, X's balance slot. The token
	// costs a proof and its code, the slot a proof; the caller a proof
	// unless the nodes already fetched show it absent (in a trie this
	// small they usually do).
	const touched = 3 // two accounts, one slot
	trips := up.RoundTrips() - before
	t.Logf("first eth_call to an untouched contract: %d upstream round trips for %d accounts and slots", trips, touched)
	if trips < 3 || trips > 4 {
		t.Fatalf("first eth_call took %d round trips, want 3 or 4 (≤ 3 per account or slot)", trips)
	}
	before = up.RoundTrips()
	tokenBalance(t, n, u.x, "latest")
	if d := up.RoundTrips() - before; d != 0 {
		t.Fatalf("second eth_call took %d round trips", d)
	}
	// Kept in the store: a restart reads it back.
	mustCall(t, n, "eth_getBalance", u.y, "latest") // something to commit with the next block
	k1 := devload.Address(u.keys[1])
	tx, _ := devload.NewSigner(upstreamChainID).Sign(u.keys[1], 1, &u.y, uint256.NewInt(1), 21_000, nil)
	if err := n.backend.SendTransaction(context.Background(), tx); err != nil {
		t.Fatal(err)
	}
	waitNonce(t, n, k1, 2)
	n.Close()
	// The restart does not even need the upstream.
	u.n.Close()
	n, err = startFork(t, u, nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	up = n.Upstream()
	before = up.RoundTrips()
	if got := tokenBalance(t, n, u.x, "latest"); got != word(100) {
		t.Fatalf("after restart X has %s", got)
	}
	if d := up.RoundTrips() - before; d != 0 {
		t.Fatalf("after restart the eth_call took %d round trips", d)
	}
}

func TestForkErrors(t *testing.T) {
	u := startUpstream(t)
	beyond := u.head + 10
	if _, err := startFork(t, u, &beyond, ""); !errors.Is(err, fork.ErrBeyondHead) {
		t.Fatalf("fork beyond the head: %v", err)
	}
	bad := &forkUpstream{url: "http://127.0.0.1:1"}
	if _, err := startFork(t, bad, nil, ""); err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("unreachable upstream: %v", err)
	}
	n, err := startFork(t, u, &u.N, "")
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	k1 := devload.Address(u.keys[1])
	want := mustCall(t, n, "eth_getBalance", k1, "latest")
	head := n.Chain.Head().Hash()
	u.n.Close() // the upstream goes away mid-session
	for _, c := range []struct {
		method string
		params []any
	}{
		// Upstream accounts and slots this fork has not read yet.
		{"eth_getCode", []any{devload.TokenAddress, "latest"}},
		{"eth_getStorageAt", []any{devload.TokenAddress, devload.TokenSlot(devload.Address(u.keys[0])), "latest"}},
		{"eth_call", []any{map[string]any{"to": devload.TokenAddress, "data": types.HexBytes(devload.BalanceOfData(u.x))}, "latest"}},
	} {
		if _, err := rpcCall(t, n, c.method, c.params...); err == nil || !strings.Contains(err.Error(), "fork upstream") {
			t.Errorf("%s with the upstream gone: %v, want a fork upstream error", c.method, err)
		}
	}
	// A transaction that reads storage never fetched (the token's: this
	// fork has not touched it) cannot be executed: no block is made of
	// it, and nothing local changes.
	dev := devload.Keys("fork-dev", 1)[0]
	tx, err := devload.NewSigner(upstreamChainID).Sign(dev, 0, &devload.TokenAddress, nil, 100_000, devload.TransferData(u.y, 1))
	if err != nil {
		t.Fatal(err)
	}
	if err := n.backend.SendTransaction(context.Background(), tx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if n.Chain.Head().Hash() != head {
		t.Fatalf("a block was made with the upstream gone: head %d", n.Chain.Head().Number())
	}
	// GraphQL reads the same state: a failed read is an error there too.
	q := `{"query":"{ block { account(address: \"` + devload.TokenAddress.Hex() + `\") { code } } }"}`
	rec := httptest.NewRecorder()
	n.Handler().ServeHTTP(rec, httptest.NewRequest("POST", "/graphql", strings.NewReader(q)))
	if body := rec.Body.String(); !strings.Contains(body, `"errors"`) || !strings.Contains(body, "fork upstream") {
		t.Errorf("GraphQL code of an unfetched contract with the upstream gone: %d %s", rec.Code, body)
	}
	if got := mustCall(t, n, "eth_getBalance", k1, "latest"); got != want || n.Chain.Head().Hash() != head {
		t.Fatalf("after upstream failures: balance %s (was %s), head moved %v", got, want, n.Chain.Head().Hash() != head)
	}
}

// anvil_reset on a chain that is no fork goes back to its genesis;
// hardhat_reset with forking parameters makes it a fork.
func TestResetDevChain(t *testing.T) {
	val, err := DevValidatorKey(0)
	if err != nil {
		t.Fatal(err)
	}
	dev := devload.Keys("reset-dev", 1)
	a := devload.Address(dev[0])
	g := chain.DevGenesis(chain.MainChainID, []types.Address{a}, 1_700_000_000)
	if err := pos.SetDevStaking(g, []*secp256k1.PrivateKey{val}, "127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	n, err := New(Config{Genesis: g, HTTPPort: -1, WSPort: -1, Validator: val, Accounts: dev, Fork: ForkConfig{Reset: true}})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	before := mustCall(t, n, "eth_getBalance", a, "latest")
	to := types.Address{0x77}
	tx, err := devload.NewSigner(chain.MainChainID).Sign(dev[0], 0, &to, uint256.NewInt(5), 21_000, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.backend.SendTransaction(context.Background(), tx); err != nil {
		t.Fatal(err)
	}
	waitNonce(t, n, a, 1)
	if got := mustCall(t, n, "anvil_reset"); got != "null" {
		t.Fatalf("anvil_reset answered %s", got)
	}
	if h := n.Chain.Head().Number(); h != 0 {
		t.Fatalf("head after anvil_reset: %d", h)
	}
	if got := mustCall(t, n, "eth_getBalance", a, "latest"); got != before {
		t.Fatalf("balance after anvil_reset %s, want %s", got, before)
	}
	if got := mustCall(t, n, "eth_getBalance", to, "latest"); got != `"0x0"` {
		t.Fatalf("recipient after anvil_reset: %s", got)
	}
	if _, err := rpcCall(t, n, "hardhat_reset", map[string]any{"forking": map[string]any{"blockNumber": 1}}); err == nil {
		t.Fatal("re-forking without a URL on a chain that is no fork succeeded")
	}
	u := startUpstream(t)
	mustCall(t, n, "hardhat_reset", map[string]any{"forking": map[string]any{"jsonRpcUrl": u.url, "blockNumber": devload.Hex(u.N)}})
	if g := n.Chain.Genesis(); g.Number() != u.N || g.Hash() != u.n.Chain.GetHash(u.N) {
		t.Fatalf("genesis after forking by reset: %d", g.Number())
	}
	if got := tokenBalance(t, n, u.x, "latest"); got != word(100) {
		t.Fatalf("X after forking by reset: %s", got)
	}
	if got := tokenBalance(t, n, u.x, devload.Hex(u.N-1)); got != word(0) {
		t.Fatalf("X at block N-1 after forking by reset: %s", got)
	}
	if got := mustCall(t, n, "eth_chainId"); got != fmt.Sprintf(`"0x%x"`, chain.MainChainID) {
		t.Fatalf("a reset changed the chain ID to %s", got)
	}
	// The chain goes on producing blocks on the fork.
	if err := n.backend.SendTransaction(context.Background(), tx); err != nil {
		t.Fatal(err)
	}
	waitNonce(t, n, a, 1)
	if h := n.Chain.Head().Number(); h != u.N+1 {
		t.Fatalf("head after a block on the new fork: %d, want %d", h, u.N+1)
	}
}

// BenchmarkForkFirstCall measures the first eth_call to a contract a fork
// has not touched, against an upstream node in the same process, and
// reports its upstream round trips.
func BenchmarkForkFirstCall(b *testing.B) {
	u := startUpstream(b)
	b.ResetTimer()
	var trips int64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		n, err := startFork(b, u, &u.N, "")
		if err != nil {
			b.Fatal(err)
		}
		up := n.Upstream()
		before := up.RoundTrips()
		b.StartTimer()
		tokenBalance(b, n, u.x, "latest")
		b.StopTimer()
		trips += up.RoundTrips() - before
		n.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(trips)/float64(b.N), "trips/op")
}

// --chain-id overrides the upstream's chain ID on a new fork.
func TestForkChainID(t *testing.T) {
	u := startUpstream(t)
	val, err := DevValidatorKey(0)
	if err != nil {
		t.Fatal(err)
	}
	g := chain.DevGenesis(1, nil, uint64(time.Now().Unix()))
	if err := pos.SetDevStaking(g, []*secp256k1.PrivateKey{val}, "127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	n, err := New(Config{Genesis: g, HTTPPort: -1, WSPort: -1, Validator: val, Fork: ForkConfig{URL: u.url, ChainID: 31337}})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if got := mustCall(t, n, "eth_chainId"); got != `"0x7a69"` {
		t.Fatalf("chain ID %s, want 31337", got)
	}
	if g := n.Chain.Genesis(); g.Number() != u.head {
		t.Fatalf("a fork without a block starts on the upstream's head %d: genesis %d", u.head, g.Number())
	}
}

// On a forked dev node with the test helpers, hardhat_metadata names the
// fork point, and a reset drops the snapshots: their blocks are gone.
func TestForkWithDevTools(t *testing.T) {
	u := startUpstream(t)
	n, err := startFork(t, u, &u.N, "", func(c *Config) { c.DevTools = true })
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	var meta struct {
		ForkedNetwork *struct {
			ChainID         uint64     `json:"chainId"`
			ForkBlockNumber uint64     `json:"forkBlockNumber"`
			ForkBlockHash   types.Hash `json:"forkBlockHash"`
		} `json:"forkedNetwork"`
	}
	if err := json.Unmarshal([]byte(mustCall(t, n, "hardhat_metadata")), &meta); err != nil {
		t.Fatal(err)
	}
	if f := meta.ForkedNetwork; f == nil || f.ChainID != upstreamChainID || f.ForkBlockNumber != u.N || f.ForkBlockHash != u.n.Chain.GetHash(u.N) {
		t.Fatalf("hardhat_metadata forkedNetwork %+v, want chain %d block %d %s", f, upstreamChainID, u.N, u.n.Chain.GetHash(u.N))
	}
	id := mustCall(t, n, "evm_snapshot")
	mustCall(t, n, "anvil_reset")
	var idv any
	json.Unmarshal([]byte(id), &idv)
	if got := mustCall(t, n, "evm_revert", idv); got != "false" {
		t.Fatalf("evm_revert of a snapshot taken before anvil_reset answered %s, want false", got)
	}
}
