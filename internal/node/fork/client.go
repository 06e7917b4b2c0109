// Package fork reads another chain over Ethereum JSON-RPC as the source of
// a forked chain's state: accounts and storage with eth_getProof, checked
// against the fork block's state root, and code with eth_getCode, checked
// against the account's code hash. It implements state.Remote; the state
// layer decides when to ask. Genesis makes the local genesis that continues
// the fork block, and Forward sends the JSON-RPC reads of blocks before it
// to the upstream.
package fork

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rlp"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

// Block is what a fork needs to know of the upstream's fork block.
type Block struct {
	Number    uint64
	Hash      types.Hash
	Parent    types.Hash
	StateRoot types.Hash
	Time      uint64
	BaseFee   *uint256.Int // nil before London
	GasLimit  uint64
	// Header is the block's whole header, when the fields the upstream
	// reported hash to its hash (nil otherwise: a chain whose headers carry
	// fields Ethereum's do not). With it the fork continues on the block
	// itself, as anvil does, rather than on a local block above it.
	Header *types.Header
}

// Client is an upstream pinned at one block. It is safe for concurrent use.
type Client struct {
	url     string
	http    *http.Client
	ChainID uint64
	Block   Block

	trips atomic.Int64

	mu     sync.Mutex
	proved map[types.Address][][]byte // account proofs fetched ahead (Prefetch), served once

	contents contents // see BlockContents
}

// ErrBeyondHead is returned when the fork block is newer than the
// upstream's head.
var ErrBeyondHead = errors.New("fork block is beyond the upstream's head")

// Timeout bounds one upstream round trip.
const Timeout = 30 * time.Second

// Dial connects to url and pins the client at block (nil: the upstream's
// latest block now).
func Dial(ctx context.Context, url string, block *uint64) (*Client, error) {
	c := &Client{url: url, http: &http.Client{Timeout: Timeout}}
	var id, head types.HexUint64
	if err := c.batch(ctx, []call{
		{method: "eth_chainId", out: &id},
		{method: "eth_blockNumber", out: &head},
	}); err != nil {
		return nil, err
	}
	c.ChainID = uint64(id)
	n := uint64(head)
	if block != nil {
		if *block > n {
			return nil, fmt.Errorf("%w: block %d asked, head of %s is %d", ErrBeyondHead, *block, url, n)
		}
		n = *block
	}
	b, err := c.header(ctx, n)
	if err != nil {
		return nil, err
	}
	c.Block = *b
	return c, nil
}

// Pinned returns a client of url pinned at a block known from before (a
// fork restarted on its data directory) without asking the upstream
// anything: a node starts with its upstream down, and every proof is still
// checked against the block's state root.
func Pinned(url string, b Block) *Client {
	return &Client{url: url, http: &http.Client{Timeout: Timeout}, Block: b}
}

// URL returns the upstream's address.
func (c *Client) URL() string { return c.url }

// RoundTrips returns how many requests (a batch counts once) the client
// has sent.
func (c *Client) RoundTrips() int64 { return c.trips.Load() }

type rpcHeader struct {
	Number           types.HexUint64  `json:"number"`
	Hash             types.Hash       `json:"hash"`
	ParentHash       types.Hash       `json:"parentHash"`
	UncleHash        types.Hash       `json:"sha3Uncles"`
	Coinbase         types.Address    `json:"miner"`
	StateRoot        types.Hash       `json:"stateRoot"`
	TxHash           types.Hash       `json:"transactionsRoot"`
	ReceiptHash      types.Hash       `json:"receiptsRoot"`
	Bloom            types.Bloom      `json:"logsBloom"`
	Difficulty       types.HexU256    `json:"difficulty"`
	GasLimit         types.HexUint64  `json:"gasLimit"`
	GasUsed          types.HexUint64  `json:"gasUsed"`
	Timestamp        types.HexUint64  `json:"timestamp"`
	Extra            types.HexBytes   `json:"extraData"`
	MixDigest        types.Hash       `json:"mixHash"`
	Nonce            types.BlockNonce `json:"nonce"`
	BaseFee          *types.HexU256   `json:"baseFeePerGas"`
	WithdrawalsHash  *types.Hash      `json:"withdrawalsRoot"`
	BlobGasUsed      *types.HexUint64 `json:"blobGasUsed"`
	ExcessBlobGas    *types.HexUint64 `json:"excessBlobGas"`
	ParentBeaconRoot *types.Hash      `json:"parentBeaconBlockRoot"`
	RequestsHash     *types.Hash      `json:"requestsHash"`
}

func (h *rpcHeader) block() *Block {
	b := &Block{Number: uint64(h.Number), Hash: h.Hash, Parent: h.ParentHash, StateRoot: h.StateRoot,
		Time: uint64(h.Timestamp), GasLimit: uint64(h.GasLimit)}
	if h.BaseFee != nil {
		b.BaseFee = (*uint256.Int)(h.BaseFee)
	}
	if hdr := h.header(); hdr.Hash() == h.Hash {
		b.Header = hdr
	}
	return b
}

// header is the header the reported fields make.
func (h *rpcHeader) header() *types.Header {
	hdr := &types.Header{
		ParentHash: h.ParentHash, UncleHash: h.UncleHash, Coinbase: h.Coinbase, Root: h.StateRoot,
		TxHash: h.TxHash, ReceiptHash: h.ReceiptHash, Bloom: h.Bloom, Difficulty: uint256.Int(h.Difficulty),
		Number: uint64(h.Number), GasLimit: uint64(h.GasLimit), GasUsed: uint64(h.GasUsed),
		Time: uint64(h.Timestamp), Extra: []byte(h.Extra), MixDigest: h.MixDigest, Nonce: h.Nonce,
		WithdrawalsHash: h.WithdrawalsHash, ParentBeaconRoot: h.ParentBeaconRoot, RequestsHash: h.RequestsHash,
	}
	if h.BaseFee != nil {
		hdr.BaseFee = (*uint256.Int)(h.BaseFee)
	}
	if h.BlobGasUsed != nil {
		v := uint64(*h.BlobGasUsed)
		hdr.BlobGasUsed = &v
	}
	if h.ExcessBlobGas != nil {
		v := uint64(*h.ExcessBlobGas)
		hdr.ExcessBlobGas = &v
	}
	return hdr
}

func (c *Client) header(ctx context.Context, n uint64) (*Block, error) {
	var h *rpcHeader
	if err := c.batch(ctx, []call{{method: "eth_getBlockByNumber", params: []any{hexNum(n), false}, out: &h}}); err != nil {
		return nil, err
	}
	if h == nil {
		return nil, fmt.Errorf("fork: %s has no block %d", c.url, n)
	}
	if uint64(h.Number) != n {
		return nil, fmt.Errorf("fork: %s answered block %d for block %d", c.url, uint64(h.Number), n)
	}
	return h.block(), nil
}

// Hashes returns the hashes of up to count blocks ending at the fork
// block, the fork block's first, in one round trip. Each block's parent
// hash must be the hash of the one before it.
func (c *Client) Hashes(ctx context.Context, count int) ([]types.Hash, error) {
	n := c.Block.Number
	count = int(min(uint64(count), n+1))
	hs := make([]*rpcHeader, count)
	calls := make([]call, count)
	for i := range calls {
		calls[i] = call{method: "eth_getBlockByNumber", params: []any{hexNum(n - uint64(i)), false}, out: &hs[i]}
	}
	if err := c.batch(ctx, calls); err != nil {
		return nil, err
	}
	out := make([]types.Hash, count)
	for i, h := range hs {
		if h == nil || uint64(h.Number) != n-uint64(i) {
			return nil, fmt.Errorf("fork: %s has no block %d", c.url, n-uint64(i))
		}
		if i == 0 && h.Hash != c.Block.Hash {
			return nil, fmt.Errorf("fork: block %d of %s changed from %s to %s", n, c.url, c.Block.Hash, h.Hash)
		}
		if i > 0 && hs[i-1].ParentHash != h.Hash {
			return nil, fmt.Errorf("fork: block %d of %s is not the parent of block %d", n-uint64(i), c.url, n-uint64(i)+1)
		}
		out[i] = h.Hash
	}
	return out, nil
}

type proofResult struct {
	AccountProof []types.HexBytes `json:"accountProof"`
	Balance      *types.HexU256   `json:"balance"`
	CodeHash     types.Hash       `json:"codeHash"`
	Nonce        types.HexUint64  `json:"nonce"`
	StorageHash  types.Hash       `json:"storageHash"`
	StorageProof []struct {
		Key   string           `json:"key"`
		Value *types.HexU256   `json:"value"`
		Proof []types.HexBytes `json:"proof"`
	} `json:"storageProof"`
}

// Prove implements state.Remote with one eth_getProof call. The account
// proof is checked against the fork block's state root and each storage
// proof against the proven storage root, and the values they prove must be
// the ones the answer states.
func (c *Client) Prove(addr types.Address, slots []types.Hash) ([][]byte, error) {
	if len(slots) == 0 {
		c.mu.Lock()
		nodes, ok := c.proved[addr]
		delete(c.proved, addr)
		c.mu.Unlock()
		if ok {
			return nodes, nil
		}
	}
	keys := make([]string, len(slots))
	for i, s := range slots {
		keys[i] = s.Hex()
	}
	var p proofResult
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	if err := c.batch(ctx, []call{{method: "eth_getProof", params: []any{addr, keys, hexNum(c.Block.Number)}, out: &p}}); err != nil {
		return nil, err
	}
	return checkProof(c.url, c.Block.StateRoot, addr, slots, &p)
}

// checkProof verifies an eth_getProof answer for addr and slots against
// root and returns its nodes.
func checkProof(url string, root types.Hash, addr types.Address, slots []types.Hash, p *proofResult) ([][]byte, error) {
	var nodes [][]byte
	ak := crypto.Keccak256(addr[:])
	proof := hexList(p.AccountProof)
	enc, err := trie.VerifyProof(root, ak[:], proof)
	if err != nil {
		return nil, fmt.Errorf("fork: account proof of %s from %s: %w", addr.Hex(), url, err)
	}
	nodes = append(nodes, proof...)
	storageRoot := types.Hash(trie.EmptyRoot)
	if len(enc) > 0 {
		acct, err := state.DecodeAccount(enc)
		if err != nil {
			return nil, fmt.Errorf("fork: account proof of %s from %s: %w", addr.Hex(), url, err)
		}
		if p.Balance == nil || acct.Nonce != uint64(p.Nonce) || acct.Balance.Cmp((*uint256.Int)(p.Balance)) != 0 ||
			acct.Root != p.StorageHash || acct.CodeHash != p.CodeHash {
			return nil, fmt.Errorf("fork: %s states an account %s its proof does not hold", url, addr.Hex())
		}
		storageRoot = acct.Root
	}
	if len(p.StorageProof) != len(slots) {
		return nil, fmt.Errorf("fork: %s proved %d slots of %s, %d asked", url, len(p.StorageProof), addr.Hex(), len(slots))
	}
	for i, sp := range p.StorageProof {
		sk := crypto.Keccak256(slots[i][:])
		proof := hexList(sp.Proof)
		enc, err := trie.VerifyProof(storageRoot, sk[:], proof)
		if err != nil {
			return nil, fmt.Errorf("fork: storage proof of %s slot %s from %s: %w", addr.Hex(), slots[i], url, err)
		}
		var v uint256.Int
		if len(enc) > 0 {
			content, _, err := rlp.SplitString(enc)
			if err != nil || len(content) > 32 {
				return nil, fmt.Errorf("fork: storage proof of %s slot %s from %s: bad value", addr.Hex(), slots[i], url)
			}
			v.SetBytes(content)
		}
		if sp.Value == nil || v.Cmp((*uint256.Int)(sp.Value)) != 0 {
			return nil, fmt.Errorf("fork: %s states a value of %s slot %s its proof does not hold", url, addr.Hex(), slots[i])
		}
		nodes = append(nodes, proof...)
	}
	return nodes, nil
}

// Prefetch proves the accounts in one batch round trip and keeps the
// checked proofs for the Prove calls that will ask for them (a fork's
// genesis writes a known list of accounts over the upstream state).
func (c *Client) Prefetch(ctx context.Context, addrs []types.Address) error {
	if len(addrs) == 0 {
		return nil
	}
	res := make([]proofResult, len(addrs))
	calls := make([]call, len(addrs))
	for i, a := range addrs {
		calls[i] = call{method: "eth_getProof", params: []any{a, []string{}, hexNum(c.Block.Number)}, out: &res[i]}
	}
	if err := c.batch(ctx, calls); err != nil {
		return err
	}
	proved := make(map[types.Address][][]byte, len(addrs))
	for i, a := range addrs {
		nodes, err := checkProof(c.url, c.Block.StateRoot, a, nil, &res[i])
		if err != nil {
			return err
		}
		proved[a] = nodes
	}
	c.mu.Lock()
	c.proved = proved
	c.mu.Unlock()
	return nil
}

// Code implements state.Remote with eth_getCode at the fork block; the
// state checks the hash.
func (c *Client) Code(addr types.Address, _ types.Hash) ([]byte, error) {
	var code types.HexBytes
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	if err := c.batch(ctx, []call{{method: "eth_getCode", params: []any{addr, hexNum(c.Block.Number)}, out: &code}}); err != nil {
		return nil, err
	}
	return code, nil
}

// Forward sends one call as it came and returns the upstream's result.
func (c *Client) Forward(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	var out json.RawMessage
	err := c.batch(ctx, []call{{method: method, params: params, out: &out}})
	return out, err
}

func hexNum(n uint64) string { return "0x" + strconv.FormatUint(n, 16) }

func hexList(l []types.HexBytes) [][]byte {
	out := make([][]byte, len(l))
	for i, b := range l {
		out[i] = b
	}
	return out
}

// call is one request of a batch.
type call struct {
	method string
	params any // a list, or json.RawMessage of one
	out    any
}

type request struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int    `json:"id"`
	Method  string `json:"method"`
	Params  any    `json:"params"`
}

type response struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// RPCError is an error answer of the upstream.
type RPCError struct {
	Method  string
	Code    int
	Message string
}

func (e *RPCError) Error() string {
	return fmt.Sprintf("fork upstream %s: %s (code %d)", e.Method, e.Message, e.Code)
}

// batch sends calls in one HTTP request (a JSON-RPC batch when there are
// several) and decodes each result into its out.
func (c *Client) batch(ctx context.Context, calls []call) error {
	reqs := make([]request, len(calls))
	for i, cl := range calls {
		params := cl.params
		if params == nil {
			params = []any{}
		}
		reqs[i] = request{JSONRPC: "2.0", ID: i + 1, Method: cl.method, Params: params}
	}
	var body []byte
	var err error
	if len(reqs) == 1 {
		body, err = json.Marshal(reqs[0])
	} else {
		body, err = json.Marshal(reqs)
	}
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("fork upstream %s: %w", c.url, err)
	}
	req.Header.Set("Content-Type", "application/json")
	c.trips.Add(1)
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("fork upstream %s unreachable: %w", c.url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return fmt.Errorf("fork upstream %s: %w", c.url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("fork upstream %s: HTTP %s: %.200s", c.url, resp.Status, data)
	}
	return decodeAnswer(c.url, data, calls)
}

// decodeAnswer decodes the answer to calls (a batch when there are
// several) into their outs.
func decodeAnswer(url string, data []byte, calls []call) error {
	var resps []response
	if len(calls) == 1 {
		var r response
		if err := json.Unmarshal(data, &r); err != nil {
			return fmt.Errorf("fork upstream %s: not a JSON-RPC answer: %w", url, err)
		}
		resps = []response{r}
	} else if err := json.Unmarshal(data, &resps); err != nil {
		return fmt.Errorf("fork upstream %s: not a JSON-RPC batch answer: %w", url, err)
	}
	byID := make(map[int]*response, len(resps))
	for i := range resps {
		byID[resps[i].ID] = &resps[i]
	}
	for i, cl := range calls {
		r, ok := byID[i+1]
		if !ok {
			return fmt.Errorf("fork upstream %s: no answer to %s", url, cl.method)
		}
		if r.Error != nil {
			return &RPCError{Method: cl.method, Code: r.Error.Code, Message: r.Error.Message}
		}
		if err := json.Unmarshal(r.Result, cl.out); err != nil {
			return fmt.Errorf("fork upstream %s: %s result: %w", url, cl.method, err)
		}
	}
	return nil
}
