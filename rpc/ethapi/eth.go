package ethapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
	"github.com/holiman/uint256"
)

// EthOptions configure the Ethereum namespaces.
type EthOptions struct {
	ClientVersion string
	LogRange      uint64 // eth_getLogs block range cap (default 10,000)
	LogLimit      int    // eth_getLogs result cap (default 10,000)
	// ReturnDataLimit caps the bytes eth_call returns (default
	// DefaultReturnDataLimit); erigon caps it at 100 kB by default, geth
	// only through its 25 MB response cap.
	ReturnDataLimit int
	// Coinbase is where the blocks this node proposes pay their fees: its
	// validator's address, which eth_coinbase reports. Nil on a node
	// without a validator key; eth_coinbase then fails as geth's does.
	Coinbase *types.Address
}

// DefaultReturnDataLimit is the default cap on eth_call's return data:
// far above what contracts' view functions return, far below what a
// call made to return megabytes can make the node encode and send.
const DefaultReturnDataLimit = 1 << 20

// withDefaults fills the limits of a node that does not say otherwise:
// generous enough for explorers and indexers, small enough that one query
// cannot hold the node for long.
func (o EthOptions) withDefaults() EthOptions {
	if o.LogRange == 0 {
		o.LogRange = 10_000
	}
	if o.LogLimit == 0 {
		o.LogLimit = 10_000
	}
	if o.ReturnDataLimit == 0 {
		o.ReturnDataLimit = DefaultReturnDataLimit
	}
	return o
}

type ethAPI struct {
	b    Backend
	opts EthOptions
}

// RegisterEth installs the eth_, net_, web3_, debug_, testing_ and
// txpool_ methods.
func RegisterEth(s *rpc.Server, b Backend, opts EthOptions) {
	api := &ethAPI{b: b, opts: opts.withDefaults()}
	constant := func(name string, v any) {
		register(s, name, 0, 0, func(context.Context, rpc.Params) (any, error) { return v, nil })
	}
	// The chain ID of the next block: a development chain may change it
	// (anvil_setChainId), and net_version follows it, as anvil's does.
	register(s, "eth_chainId", 0, 0, func(context.Context, rpc.Params) (any, error) {
		return types.HexUint64(b.ChainID()), nil
	})
	register(s, "net_version", 0, 0, func(context.Context, rpc.Params) (any, error) {
		return strconv.FormatUint(b.ChainID(), 10), nil
	})
	s.Unserved("anvil_setChainId", "a network's chain ID is fixed by its genesis; chaind changes it on a --dev node only")
	constant("net_listening", true)
	register(s, "net_peerCount", 0, 0, func(context.Context, rpc.Params) (any, error) {
		return types.HexUint64(b.PeerCount()), nil
	})
	constant("web3_clientVersion", opts.ClientVersion)
	constant("eth_mining", false)
	constant("eth_hashrate", "0x0")
	constant("eth_getWork", []string{})
	constant("eth_protocolVersion", "0x44")
	register(s, "web3_sha3", 1, 1, func(_ context.Context, p rpc.Params) (any, error) {
		var data types.HexBytes
		if err := p.Decode(0, &data); err != nil {
			return nil, err
		}
		h := crypto.Keccak256(data)
		return types.Hash(h), nil
	})
	register(s, "eth_blockNumber", 0, 0, func(context.Context, rpc.Params) (any, error) {
		return types.HexUint64(b.Head().Number()), nil
	})
	register(s, "eth_syncing", 0, 0, func(context.Context, rpc.Params) (any, error) {
		if st, ok := b.Syncing(); ok {
			return syncStatus(st), nil
		}
		return false, nil
	})

	register(s, "eth_getBlockByNumber", 1, 2, api.getBlockByNumber)
	register(s, "eth_getBlockByHash", 1, 2, api.getBlockByHash)
	register(s, "eth_getBlockTransactionCountByNumber", 1, 1, api.txCount(false))
	register(s, "eth_getBlockTransactionCountByHash", 1, 1, api.txCount(true))
	register(s, "eth_getUncleCountByBlockNumber", 1, 1, api.uncleCount(false))
	register(s, "eth_getUncleCountByBlockHash", 1, 1, api.uncleCount(true))
	register(s, "eth_getUncleByBlockNumberAndIndex", 2, 2, api.uncle(false))
	register(s, "eth_getUncleByBlockHashAndIndex", 2, 2, api.uncle(true))
	register(s, "eth_getTransactionByHash", 1, 1, api.getTransactionByHash)
	register(s, "eth_getTransactionByBlockNumberAndIndex", 2, 2, api.txByIndex(false))
	register(s, "eth_getTransactionByBlockHashAndIndex", 2, 2, api.txByIndex(true))
	register(s, "eth_getTransactionReceipt", 1, 1, api.getTransactionReceipt)
	register(s, "eth_getBlockReceipts", 1, 1, api.getBlockReceipts)

	register(s, "eth_getBalance", 1, 2, api.getBalance)
	register(s, "eth_getTransactionCount", 1, 2, api.getTransactionCount)
	register(s, "eth_getCode", 1, 2, api.getCode)
	register(s, "eth_getStorageAt", 2, 3, api.getStorageAt)
	register(s, "eth_getStorageValues", 1, 2, api.getStorageValues)
	register(s, "eth_getProof", 2, 3, api.getProof)
	register(s, "eth_sendRawTransaction", 1, 1, api.sendRawTransaction)
	register(s, "eth_sendRawTransactionSync", 1, 2, api.sendSync(api.sendRawTransaction, 1))

	register(s, "eth_call", 1, 4, api.call)
	register(s, "eth_estimateGas", 1, 4, api.estimateGas)
	register(s, "eth_createAccessList", 1, 3, api.createAccessList) // with state overrides, as go-ethereum
	register(s, "eth_simulateV1", 1, 2, api.simulate)

	register(s, "eth_gasPrice", 0, 0, api.gasPrice)
	register(s, "eth_maxPriorityFeePerGas", 0, 0, api.maxPriorityFee)
	register(s, "eth_feeHistory", 2, 3, api.feeHistory)
	register(s, "eth_blobBaseFee", 0, 0, api.blobBaseFee)
	register(s, "eth_baseFee", 0, 0, api.baseFee)
	register(s, "eth_config", 0, 0, api.config)
	register(s, "eth_capabilities", 0, 0, api.capabilities)

	register(s, "eth_getLogs", 1, 1, api.getLogs)

	register(s, "debug_getRawBlock", 1, 1, api.rawBlock)
	register(s, "debug_getRawHeader", 1, 1, api.rawHeader)
	register(s, "debug_getRawReceipts", 1, 1, api.rawReceipts)
	register(s, "debug_getRawTransaction", 1, 1, api.rawTransaction)
	register(s, "eth_getRawTransactionByHash", 1, 1, api.rawTransaction)
	register(s, "eth_getHeaderByNumber", 1, 1, api.header(false))
	register(s, "eth_getHeaderByHash", 1, 1, api.header(true))
	register(s, "testing_buildBlockV1", 2, 4, api.buildBlock)
	register(s, "debug_traceTransaction", 1, 2, api.traceTransaction)
	register(s, "debug_traceBlockByNumber", 1, 2, api.traceBlockByNumber)
	register(s, "debug_traceBlockByHash", 1, 2, api.traceBlockByHash)
	register(s, "debug_traceBlock", 1, 2, api.traceBlockRLP)
	register(s, "debug_traceCall", 1, 3, api.traceCall)
	register(s, "debug_storageRangeAt", 5, 5, api.storageRangeAt)
	registerTxPool(s, b)
}

// syncStatus is eth_syncing's object form.
func syncStatus(p backend.SyncProgress) any {
	return struct {
		StartingBlock types.HexUint64 `json:"startingBlock"`
		CurrentBlock  types.HexUint64 `json:"currentBlock"`
		HighestBlock  types.HexUint64 `json:"highestBlock"`
	}{types.HexUint64(p.StartingBlock), types.HexUint64(p.CurrentBlock), types.HexUint64(p.HighestBlock)}
}

// blockRef decodes parameter i as a block reference, "latest" when absent.
func blockRef(p rpc.Params, i int) (BlockRef, error) {
	ref := latestRef
	if _, err := p.Optional(i, &ref); err != nil {
		return ref, err
	}
	return ref, nil
}

// renderBlock is the block object of a stored block, or of the pending
// block (hash, nonce and miner null, as go-ethereum serves it). A stored
// block carries its totalDifficulty: 0x0 from genesis on a proof-of-stake
// chain, the real sum on imported proof-of-work history.
func (api *ethAPI) renderBlock(blk *types.Block, full, pending bool) json.RawMessage {
	signer := api.b.Signer(blk.Number(), blk.Time())
	opts := types.BlockJSONOptions{FullTx: full, Signer: &signer, Pending: pending}
	if !pending {
		if td, ok := api.b.TotalDifficulty(blk.Hash()); ok {
			opts.TotalDifficulty = td
		}
	}
	return types.BlockJSON(blk, opts)
}

// blockAt resolves a block reference for the methods that return a block
// or its parts: the "pending" tag names the block the pool would build
// next (pending reports it), or the head when the node can build none.
func (api *ethAPI) blockAt(ref BlockRef) (blk *types.Block, pending bool, err error) {
	if ref.Hash == nil && ref.Tag == "pending" {
		blk, err := api.b.PendingBlock()
		if err == nil {
			return blk, true, nil
		}
		if !errors.Is(err, backend.ErrNotFound) {
			return nil, false, err
		}
	}
	blk, err = resolve(api.b, ref)
	return blk, false, err
}

func (api *ethAPI) getBlockByNumber(_ context.Context, p rpc.Params) (any, error) {
	var ref BlockRef
	if err := p.Decode(0, &ref); err != nil {
		return nil, err
	}
	var full bool
	if _, err := p.Optional(1, &full); err != nil {
		return nil, err
	}
	blk, pending, err := api.blockAt(ref)
	if err != nil || blk == nil {
		return nil, err
	}
	return api.renderBlock(blk, full, pending), nil
}

func (api *ethAPI) getBlockByHash(_ context.Context, p rpc.Params) (any, error) {
	var h types.Hash
	if err := p.Decode(0, &h); err != nil {
		return nil, err
	}
	var full bool
	if _, err := p.Optional(1, &full); err != nil {
		return nil, err
	}
	blk, err := orNil(api.b.BlockByHash(h))
	if err != nil || blk == nil {
		return nil, err
	}
	return api.renderBlock(blk, full, false), nil
}

// blockParam decodes parameter 0 as a hash (byHash) or a number/tag;
// pending reports the pending block.
func (api *ethAPI) blockParam(p rpc.Params, byHash bool) (blk *types.Block, pending bool, err error) {
	if byHash {
		var h types.Hash
		if err := p.Decode(0, &h); err != nil {
			return nil, false, err
		}
		blk, err := orNil(api.b.BlockByHash(h))
		return blk, false, err
	}
	var ref BlockRef
	if err := p.Decode(0, &ref); err != nil {
		return nil, false, err
	}
	return api.blockAt(ref)
}

// header is eth_getHeaderBy*: the block object's header fields, null for
// an unknown block.
func (api *ethAPI) header(byHash bool) rpc.Handler {
	return func(_ context.Context, p rpc.Params) (any, error) {
		blk, pending, err := api.blockParam(p, byHash)
		if err != nil || blk == nil {
			return nil, err
		}
		h := blk.Header()
		return json.RawMessage(types.AppendHeaderJSON(nil, h, h.Hash(), pending)), nil
	}
}

func (api *ethAPI) txCount(byHash bool) rpc.Handler {
	return func(_ context.Context, p rpc.Params) (any, error) {
		blk, _, err := api.blockParam(p, byHash)
		if err != nil || blk == nil {
			return nil, err
		}
		return types.HexUint64(len(blk.Transactions())), nil
	}
}

func (api *ethAPI) uncleCount(byHash bool) rpc.Handler {
	return func(_ context.Context, p rpc.Params) (any, error) {
		blk, _, err := api.blockParam(p, byHash)
		if err != nil || blk == nil {
			return nil, err
		}
		return types.HexUint64(len(blk.Uncles())), nil
	}
}

func (api *ethAPI) uncle(byHash bool) rpc.Handler {
	return func(_ context.Context, p rpc.Params) (any, error) {
		blk, _, err := api.blockParam(p, byHash)
		if err != nil || blk == nil {
			return nil, err
		}
		var idx Quantity
		if err := p.Decode(1, &idx); err != nil {
			return nil, err
		}
		if uint64(idx) >= uint64(len(blk.Uncles())) {
			return nil, nil
		}
		u := blk.Uncles()[idx]
		return types.BlockJSON(types.NewBlockWithHeader(u), types.BlockJSONOptions{}), nil
	}
}

func (api *ethAPI) txAt(blk *types.Block, i int) json.RawMessage {
	tx := blk.Transactions()[i]
	signer := api.b.Signer(blk.Number(), blk.Time())
	from, _ := signer.Sender(tx)
	return types.TxJSON(tx, from, &types.TxLocation{
		BlockHash: blk.Hash(), BlockNumber: blk.Number(), BlockTime: blk.Time(), Index: uint64(i), BaseFee: blk.BaseFee(),
	})
}

func (api *ethAPI) getTransactionByHash(_ context.Context, p rpc.Params) (any, error) {
	var h types.Hash
	if err := p.Decode(0, &h); err != nil {
		return nil, err
	}
	if bh, idx, ok := api.b.TxLookup(h); ok {
		blk, err := api.b.BlockByHash(bh)
		if err != nil {
			return nil, err
		}
		return api.txAt(blk, idx), nil
	}
	if tx, from, ok := api.b.PoolTransaction(h); ok {
		return types.TxJSON(tx, from, nil), nil
	}
	return nil, nil
}

func (api *ethAPI) txByIndex(byHash bool) rpc.Handler {
	return func(_ context.Context, p rpc.Params) (any, error) {
		blk, pending, err := api.blockParam(p, byHash)
		if err != nil || blk == nil {
			return nil, err
		}
		var idx Quantity
		if err := p.Decode(1, &idx); err != nil {
			return nil, err
		}
		if uint64(idx) >= uint64(len(blk.Transactions())) {
			return nil, nil
		}
		if pending {
			// A pending transaction has no block yet: its block fields are null.
			tx := blk.Transactions()[idx]
			from, _ := api.b.Signer(blk.Number(), blk.Time()).Sender(tx)
			return types.TxJSON(tx, from, nil), nil
		}
		return api.txAt(blk, int(idx)), nil
	}
}

func (api *ethAPI) getTransactionReceipt(_ context.Context, p rpc.Params) (any, error) {
	var h types.Hash
	if err := p.Decode(0, &h); err != nil {
		return nil, err
	}
	bh, idx, ok := api.b.TxLookup(h)
	if !ok {
		return nil, nil
	}
	blk, err := api.b.BlockByHash(bh)
	if err != nil {
		return nil, err
	}
	rs, err := api.b.Receipts(blk)
	if err != nil {
		return nil, err
	}
	if idx >= len(rs) {
		return nil, fmt.Errorf("receipt %d of block %s missing", idx, bh)
	}
	return rs[idx], nil
}

func (api *ethAPI) getBlockReceipts(_ context.Context, p rpc.Params) (any, error) {
	var ref BlockRef
	if err := p.Decode(0, &ref); err != nil {
		return nil, err
	}
	if ref.Hash == nil && ref.Tag == "pending" {
		// The receipts of the block the pool would build next, as its
		// block objects are (blockAt); the head's when none can be built.
		_, rs, err := api.b.PendingReceipts()
		if err == nil {
			return rs, nil
		}
		if !errors.Is(err, backend.ErrNotFound) {
			return nil, err
		}
	}
	blk, err := resolve(api.b, ref)
	if err != nil || blk == nil {
		return nil, err
	}
	rs, err := api.b.Receipts(blk)
	if err != nil {
		return nil, err
	}
	if rs == nil {
		rs = types.Receipts{}
	}
	return rs, nil
}

// stateAt opens the state of the block named by parameter refPos
// ("latest" when absent); an unknown block is an error.
func (api *ethAPI) stateAt(p rpc.Params, refPos int) (*types.Block, backend.State, error) {
	ref, err := blockRef(p, refPos)
	if err != nil {
		return nil, nil, err
	}
	blk, err := resolveState(api.b, ref)
	if err != nil {
		return nil, nil, err
	}
	st, err := api.b.StateAt(blk.HeaderRef())
	return blk, st, err
}

// addrAndState decodes an address at position 0 and opens the state of
// the block at refPos.
func (api *ethAPI) addrAndState(p rpc.Params, refPos int) (types.Address, backend.State, error) {
	var addr types.Address
	if err := p.Decode(0, &addr); err != nil {
		return addr, nil, err
	}
	_, st, err := api.stateAt(p, refPos)
	return addr, st, err
}

func (api *ethAPI) getBalance(_ context.Context, p rpc.Params) (any, error) {
	addr, st, err := api.addrAndState(p, 1)
	if err != nil {
		return nil, err
	}
	bal := new(uint256.Int).Set(st.Balance(addr))
	if err := backend.ReadErr(st); err != nil {
		return nil, err
	}
	return (*types.HexU256)(bal), nil
}

func (api *ethAPI) getTransactionCount(_ context.Context, p rpc.Params) (any, error) {
	ref, err := blockRef(p, 1)
	if err != nil {
		return nil, err
	}
	if ref.Tag == "pending" {
		var addr types.Address
		if err := p.Decode(0, &addr); err != nil {
			return nil, err
		}
		n, err := api.b.PendingNonce(addr)
		if err != nil {
			return nil, err
		}
		return types.HexUint64(n), nil
	}
	addr, st, err := api.addrAndState(p, 1)
	if err != nil {
		return nil, err
	}
	nonce := st.Nonce(addr)
	if err := backend.ReadErr(st); err != nil {
		return nil, err
	}
	return types.HexUint64(nonce), nil
}

func (api *ethAPI) getCode(_ context.Context, p rpc.Params) (any, error) {
	addr, st, err := api.addrAndState(p, 1)
	if err != nil {
		return nil, err
	}
	code := st.Code(addr)
	if err := backend.ReadErr(st); err != nil {
		return nil, err
	}
	return types.HexBytes(code), nil
}

// storageKey parses a storage slot, argument arg of the call, the way
// go-ethereum does: any hex of up to 32 bytes, left-padded. A key that is
// not that is invalid params (-32602, the newest execution-apis), in every
// method that takes storage keys.
func storageKey(arg int, raw json.RawMessage) (types.Hash, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return types.Hash{}, rpc.InvalidParams(arg, fmt.Errorf("storage key is not a string: %s", raw))
	}
	b, err := types.ParseBytes(evenHex(s))
	switch {
	case err != nil:
		return types.Hash{}, rpc.InvalidParams(arg, fmt.Errorf("invalid hex in storage key: %q", s))
	case len(b) > 32:
		return types.Hash{}, rpc.InvalidParams(arg, fmt.Errorf("storage key too long: %d bytes, at most 32", len(b)))
	}
	return types.BytesToHash(b), nil
}

func evenHex(s string) string {
	if len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X") && len(s)%2 == 1 {
		return "0x0" + s[2:]
	}
	return s
}

func (api *ethAPI) getStorageAt(_ context.Context, p rpc.Params) (any, error) {
	var addr types.Address
	if err := p.Decode(0, &addr); err != nil {
		return nil, err
	}
	key, err := storageKey(1, p[1])
	if err != nil {
		return nil, err
	}
	_, st, err := api.stateAt(p, 2)
	if err != nil {
		return nil, err
	}
	v := st.Storage(addr, key)
	if err := backend.ReadErr(st); err != nil {
		return nil, err
	}
	return v, nil
}

func (api *ethAPI) sendRawTransaction(ctx context.Context, p rpc.Params) (any, error) {
	var raw types.HexBytes
	if err := p.Decode(0, &raw); err != nil {
		return nil, err
	}
	// A blob transaction comes in its network form, with its blobs; every
	// other transaction in its canonical form.
	tx, sc, err := types.DecodePooledTx(raw)
	if err != nil {
		return nil, rpc.InvalidParams(0, fmt.Errorf("invalid transaction: %v", err))
	}
	if err := api.b.SendPooledTransaction(ctx, tx, sc); err != nil {
		return nil, err
	}
	return tx.Hash(), nil
}
