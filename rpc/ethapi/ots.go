package ethapi

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
	"github.com/holiman/uint256"
)

// OtsAPILevel is the Otterscan API level served: the level Otterscan 2
// asks for before it shows anything.
const OtsAPILevel = 8

// otsMaxPage bounds the page sizes a client may ask for, so one request
// cannot make the node render the whole history of an address.
const otsMaxPage = 1000

// OtsBackend is what the ots_ namespace reads: the Ethereum backend and
// the history index the node keeps.
type OtsBackend interface {
	Backend
	backend.History
}

type otsAPI struct {
	*ethAPI
	h backend.History
}

// RegisterOtterscan installs the ots_ methods Otterscan uses (API level
// 8), erigon_getHeaderByNumber and eth_getTransactionBySenderAndNonce,
// served from the history index and by replaying transactions with the
// callTracer.
func RegisterOtterscan(s *rpc.Server, b OtsBackend, opts EthOptions) {
	api := &otsAPI{ethAPI: &ethAPI{b: b, opts: opts.withDefaults()}, h: b}
	register(s, "ots_getApiLevel", 0, 0, func(context.Context, rpc.Params) (any, error) { return OtsAPILevel, nil })
	register(s, "ots_hasCode", 1, 2, api.hasCode)
	register(s, "ots_getInternalOperations", 1, 1, api.internalOperations)
	register(s, "ots_getTransactionError", 1, 1, api.transactionError)
	register(s, "ots_traceTransaction", 1, 1, api.traceTransactionOts)
	register(s, "ots_getBlockDetails", 1, 1, api.blockDetails(false))
	register(s, "ots_getBlockDetailsByHash", 1, 1, api.blockDetails(true))
	register(s, "ots_getBlockTransactions", 3, 3, api.blockTransactions)
	register(s, "ots_searchTransactionsBefore", 3, 3, api.search(true))
	register(s, "ots_searchTransactionsAfter", 3, 3, api.search(false))
	register(s, "ots_getTransactionBySenderAndNonce", 2, 2, api.txBySenderAndNonce)
	register(s, "eth_getTransactionBySenderAndNonce", 2, 2, api.txObjectBySenderAndNonce)
	register(s, "ots_getContractCreator", 1, 1, api.contractCreator)
	register(s, "erigon_getHeaderByNumber", 1, 1, api.headerByNumber)
}

func (api *otsAPI) hasCode(_ context.Context, p rpc.Params) (any, error) {
	addr, st, err := api.addrAndState(p, 1)
	if err != nil {
		return nil, err
	}
	return len(st.Code(addr)) > 0, nil
}

// otsFrame is a callTracer frame as the ots_ methods read it.
type otsFrame struct {
	Type   string         `json:"type"`
	From   types.Address  `json:"from"`
	To     *types.Address `json:"to"`
	Value  *types.HexU256 `json:"value"`
	Input  types.HexBytes `json:"input"`
	Output types.HexBytes `json:"output"`
	Error  string         `json:"error"`
	Calls  []*otsFrame    `json:"calls"`
}

// callTree replays the transaction h with the callTracer.
func (api *otsAPI) callTree(ctx context.Context, h types.Hash, onlyTop bool) (*otsFrame, error) {
	bh, idx, ok := api.b.TxLookup(h)
	if !ok {
		return nil, fmt.Errorf("transaction %s not found", h)
	}
	blk, err := api.b.BlockByHash(bh)
	if err != nil {
		return nil, err
	}
	cfg := &backend.TraceConfig{Tracer: "callTracer"}
	if onlyTop {
		cfg.TracerConfig = json.RawMessage(`{"onlyTopCall":true}`)
	}
	raw, err := api.b.TraceTransaction(ctx, blk, idx, cfg)
	if err != nil {
		return nil, err
	}
	var f otsFrame
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, err
	}
	return &f, nil
}

// Internal operation types of ots_getInternalOperations.
const (
	otsTransfer = iota
	otsSelfDestruct
	otsCreate
	otsCreate2
)

type otsOperation struct {
	Type  int            `json:"type"`
	From  types.Address  `json:"from"`
	To    types.Address  `json:"to"`
	Value *types.HexU256 `json:"value"`
}

// internalOperations lists the value transfers, creations and
// self-destructs of the transaction, its own call included (as anvil
// answers), in execution order; a failed frame's operations (and those
// under it) did not happen.
func (api *otsAPI) internalOperations(ctx context.Context, p rpc.Params) (any, error) {
	var h types.Hash
	if err := p.Decode(0, &h); err != nil {
		return nil, err
	}
	root, err := api.callTree(ctx, h, false)
	if err != nil {
		return nil, err
	}
	ops := []otsOperation{}
	var walk func(f *otsFrame)
	walk = func(f *otsFrame) {
		if f.Error != "" {
			return
		}
		value := f.Value
		if value == nil {
			value = new(types.HexU256)
		}
		to := types.Address{}
		if f.To != nil {
			to = *f.To
		}
		switch f.Type {
		case "CALL":
			if !(*uint256.Int)(value).IsZero() {
				ops = append(ops, otsOperation{otsTransfer, f.From, to, value})
			}
		case "CREATE":
			ops = append(ops, otsOperation{otsCreate, f.From, to, value})
		case "CREATE2":
			ops = append(ops, otsOperation{otsCreate2, f.From, to, value})
		case "SELFDESTRUCT":
			ops = append(ops, otsOperation{otsSelfDestruct, f.From, to, value})
		}
		for _, c := range f.Calls {
			walk(c)
		}
	}
	walk(root)
	return ops, nil
}

// transactionError is the revert data of a reverted transaction, "0x"
// for any other.
func (api *otsAPI) transactionError(ctx context.Context, p rpc.Params) (any, error) {
	var h types.Hash
	if err := p.Decode(0, &h); err != nil {
		return nil, err
	}
	root, err := api.callTree(ctx, h, true)
	if err != nil {
		return nil, err
	}
	if root.Error == "" {
		return types.HexBytes{}, nil
	}
	return root.Output, nil
}

type otsTraceEntry struct {
	Type   string         `json:"type"`
	Depth  int            `json:"depth"`
	From   types.Address  `json:"from"`
	To     types.Address  `json:"to"`
	Value  *types.HexU256 `json:"value"`
	Input  types.HexBytes `json:"input"`
	Output types.HexBytes `json:"output"`
}

// traceTransactionOts lists every frame depth first with its depth:
// Otterscan's trace view. Creations and self-destructs are listed too, as
// Erigon lists them (anvil leaves them out).
func (api *otsAPI) traceTransactionOts(ctx context.Context, p rpc.Params) (any, error) {
	var h types.Hash
	if err := p.Decode(0, &h); err != nil {
		return nil, err
	}
	root, err := api.callTree(ctx, h, false)
	if err != nil {
		return nil, err
	}
	out := []otsTraceEntry{}
	var walk func(f *otsFrame, depth int)
	walk = func(f *otsFrame, depth int) {
		e := otsTraceEntry{Type: f.Type, Depth: depth, From: f.From, Input: f.Input, Output: f.Output}
		if f.To != nil {
			e.To = *f.To
		}
		// A static call moves nothing; a delegate call shows the value
		// of the frame it runs in (as anvil answers).
		e.Value = f.Value
		if e.Value == nil {
			e.Value = new(types.HexU256)
		}
		out = append(out, e)
		for _, c := range f.Calls {
			walk(c, depth+1)
		}
	}
	walk(root, 0)
	return out, nil
}

// blockObject renders blk as ots_ methods show it: the block object
// without its transactions list (or with the given page of them), with
// transactionCount.
func (api *otsAPI) blockObject(blk *types.Block, txs []json.RawMessage) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(api.renderBlock(blk, false, false), &m); err != nil {
		return nil, err
	}
	delete(m, "transactions")
	if txs != nil {
		m["transactions"] = txs
	}
	m["transactionCount"] = len(blk.Transactions())
	return m, nil
}

func (api *otsAPI) blockDetails(byHash bool) rpc.Handler {
	return func(_ context.Context, p rpc.Params) (any, error) {
		blk, err := api.otsBlock(p, byHash)
		if err != nil || blk == nil {
			return nil, err
		}
		m, err := api.blockObject(blk, nil)
		if err != nil {
			return nil, err
		}
		rs, err := api.b.Receipts(blk)
		if err != nil {
			return nil, err
		}
		fees := new(uint256.Int)
		for _, r := range rs {
			if r.EffectiveGasPrice != nil {
				var f uint256.Int
				f.Mul(r.EffectiveGasPrice, uint256.NewInt(r.GasUsed))
				fees.Add(fees, &f)
			}
		}
		// A proof-of-stake block issues nothing in its header: rewards
		// are the staking module's, not a block reward.
		zero := new(types.HexU256)
		return map[string]any{
			"block":     m,
			"issuance":  map[string]any{"blockReward": zero, "uncleReward": zero, "issuance": zero},
			"totalFees": (*types.HexU256)(fees),
		}, nil
	}
}

// page is a page of n items counted from the end (page 0 is the last
// items), as Otterscan pages a block's transactions.
func page(total, number, size int) (lo, hi int) {
	hi = max(total-number*size, 0)
	return max(hi-size, 0), hi
}

// otsNumber is a number parameter of the ots_ methods: Otterscan sends
// JSON numbers (Erigon's methods take them so), other clients hex
// quantities; both are read.
type otsNumber uint64

// UnmarshalJSON implements json.Unmarshaler.
func (n *otsNumber) UnmarshalJSON(input []byte) error {
	if len(input) > 0 && input[0] == '"' {
		var q Quantity
		err := q.UnmarshalJSON(input)
		*n = otsNumber(q)
		return err
	}
	var v uint64
	if err := json.Unmarshal(input, &v); err != nil {
		return err
	}
	*n = otsNumber(v)
	return nil
}

// otsBlock reads the block parameter of an ots_ method: a number (as
// Otterscan sends it), a hash (byHash) or any block reference.
func (api *otsAPI) otsBlock(p rpc.Params, byHash bool) (*types.Block, error) {
	var n otsNumber
	if !byHash && p.Decode(0, &n) == nil {
		return orNil(api.b.BlockByNumber(uint64(n)))
	}
	blk, _, err := api.blockParam(p, byHash)
	return blk, err
}

func decodePage(p rpc.Params, i int) (int, error) {
	var q otsNumber
	if err := p.Decode(i, &q); err != nil {
		return 0, err
	}
	if q > otsMaxPage {
		return 0, rpc.InvalidParams(i, fmt.Errorf("page size %d over the node's limit of %d", q, otsMaxPage))
	}
	return int(q), nil
}

func (api *otsAPI) blockTransactions(_ context.Context, p rpc.Params) (any, error) {
	blk, err := api.otsBlock(p, false)
	if err != nil || blk == nil {
		return nil, err
	}
	var number otsNumber
	if err := p.Decode(1, &number); err != nil {
		return nil, err
	}
	size, err := decodePage(p, 2)
	if err != nil {
		return nil, err
	}
	rs, err := api.b.Receipts(blk)
	if err != nil {
		return nil, err
	}
	lo, hi := page(len(blk.Transactions()), int(min(number, otsMaxPage*otsMaxPage)), size)
	txs := make([]json.RawMessage, 0, hi-lo)
	receipts := make([]map[string]any, 0, hi-lo)
	for i := lo; i < hi; i++ {
		var tx map[string]any
		if err := json.Unmarshal(api.txAt(blk, i), &tx); err != nil {
			return nil, err
		}
		// The list shows the method selector only.
		if in, ok := tx["input"].(string); ok && len(in) > 10 {
			tx["input"] = in[:10]
		}
		enc, _ := json.Marshal(tx)
		txs = append(txs, enc)
		r, err := receiptObject(rs[i])
		if err != nil {
			return nil, err
		}
		r["timestamp"] = types.HexUint64(blk.Time())
		receipts = append(receipts, r)
	}
	m, err := api.blockObject(blk, txs)
	if err != nil {
		return nil, err
	}
	return map[string]any{"fullblock": m, "receipts": receipts}, nil
}

func receiptObject(r *types.Receipt) (map[string]any, error) {
	enc, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	return m, json.Unmarshal(enc, &m)
}

// search pages an address's transactions from the history index: before
// block n (n 0: from the head) or after it, newest first either way, a
// page holding at least pageSize transactions unless the history ends,
// and whole blocks.
func (api *otsAPI) search(before bool) rpc.Handler {
	return func(_ context.Context, p rpc.Params) (any, error) {
		var addr types.Address
		if err := p.Decode(0, &addr); err != nil {
			return nil, err
		}
		var n otsNumber
		if err := p.Decode(1, &n); err != nil {
			return nil, err
		}
		size, err := decodePage(p, 2)
		if err != nil {
			return nil, err
		}
		total, err := api.h.AddressTxCount(addr)
		if err != nil {
			return nil, err
		}
		var refs []backend.TxRef
		var first, last bool
		if before {
			hi := total
			if n > 0 {
				if hi, err = api.h.AddressTxCountBefore(addr, uint64(n)); err != nil {
					return nil, err
				}
			}
			var ended bool
			if refs, ended, err = api.wholeBlocks(addr, int64(hi)-1, -1, total, size); err != nil {
				return nil, err
			}
			first, last = n == 0, ended
		} else {
			lo, err := api.h.AddressTxCountBefore(addr, uint64(n)+1)
			if err != nil {
				return nil, err
			}
			var ended bool
			if refs, ended, err = api.wholeBlocks(addr, int64(lo), 1, total, size); err != nil {
				return nil, err
			}
			slices.Reverse(refs)
			first, last = ended, n == 0 || lo == 0
		}
		txs := make([]json.RawMessage, 0, len(refs))
		receipts := make([]map[string]any, 0, len(refs))
		for _, ref := range refs {
			blk, err := api.b.BlockByNumber(ref.Block)
			if err != nil {
				return nil, err
			}
			rs, err := api.b.Receipts(blk)
			if err != nil {
				return nil, err
			}
			if ref.Index >= len(rs) {
				return nil, fmt.Errorf("receipt %d of block %d missing", ref.Index, ref.Block)
			}
			txs = append(txs, api.txAt(blk, ref.Index))
			r, err := receiptObject(rs[ref.Index])
			if err != nil {
				return nil, err
			}
			r["timestamp"] = types.HexUint64(blk.Time())
			receipts = append(receipts, r)
		}
		return map[string]any{"txs": txs, "receipts": receipts, "firstPage": first, "lastPage": last}, nil
	}
}

// wholeBlocks reads addr's history entries from index i on, moving by
// step (1 or -1) within [0, total), until it holds at least size of them
// and the next one would start another block. It returns them in the
// order read and whether the history ran out.
func (api *otsAPI) wholeBlocks(addr types.Address, i, step int64, total uint64, size int) ([]backend.TxRef, bool, error) {
	var refs []backend.TxRef
	for ; i >= 0 && uint64(i) < total; i += step {
		ref, err := api.h.AddressTxAt(addr, uint64(i))
		if err != nil {
			return nil, false, err
		}
		if len(refs) >= size && ref.Block != refs[len(refs)-1].Block {
			return refs, false, nil
		}
		refs = append(refs, ref)
	}
	return refs, true, nil
}

// txBySenderAndNonce finds the transaction addr sent with nonce among
// the transactions touching addr: a binary search, as the nonces of the
// ones it sent rise in chain order.
func (api *otsAPI) txBySenderAndNonce(_ context.Context, p rpc.Params) (any, error) {
	var addr types.Address
	if err := p.Decode(0, &addr); err != nil {
		return nil, err
	}
	var nonce otsNumber
	if err := p.Decode(1, &nonce); err != nil {
		return nil, err
	}
	h, err := api.findBySenderAndNonce(addr, uint64(nonce))
	if err != nil || h == nil {
		return nil, err
	}
	return *h, nil
}

// txObjectBySenderAndNonce is eth_getTransactionBySenderAndNonce: the
// transaction object, as eth_getTransactionByHash answers it (reth and
// anvil answer so; ots_ answers the hash).
func (api *otsAPI) txObjectBySenderAndNonce(_ context.Context, p rpc.Params) (any, error) {
	var addr types.Address
	if err := p.Decode(0, &addr); err != nil {
		return nil, err
	}
	var nonce otsNumber
	if err := p.Decode(1, &nonce); err != nil {
		return nil, err
	}
	h, err := api.findBySenderAndNonce(addr, uint64(nonce))
	if err != nil || h == nil {
		return nil, err
	}
	bh, idx, ok := api.b.TxLookup(*h)
	if !ok {
		return nil, nil
	}
	blk, err := api.b.BlockByHash(bh)
	if err != nil {
		return nil, err
	}
	return api.txAt(blk, idx), nil
}

// sentAt is the nonce of the first transaction at or after position i of
// addr's history that addr sent, and that position; ok false when none.
func (api *otsAPI) sentAt(addr types.Address, i, total uint64) (nonce, at uint64, h types.Hash, ok bool, err error) {
	for ; i < total; i++ {
		ref, err := api.h.AddressTxAt(addr, i)
		if err != nil {
			return 0, 0, h, false, err
		}
		blk, err := api.b.BlockByNumber(ref.Block)
		if err != nil {
			return 0, 0, h, false, err
		}
		tx := blk.Transactions()[ref.Index]
		if from, err := api.b.Signer(blk.Number(), blk.Time()).Sender(tx); err == nil && from == addr {
			return tx.Nonce(), i, tx.Hash(), true, nil
		}
	}
	return 0, 0, h, false, nil
}

func (api *otsAPI) findBySenderAndNonce(addr types.Address, nonce uint64) (*types.Hash, error) {
	total, err := api.h.AddressTxCount(addr)
	if err != nil {
		return nil, err
	}
	lo, hi := uint64(0), total
	for lo < hi {
		mid := lo + (hi-lo)/2
		n, at, h, ok, err := api.sentAt(addr, mid, hi)
		if err != nil {
			return nil, err
		}
		switch {
		case !ok || n > nonce:
			hi = mid
		case n == nonce:
			return &h, nil
		default:
			lo = at + 1
		}
	}
	return nil, nil
}

type otsCreator struct {
	Hash    types.Hash    `json:"hash"`
	Creator types.Address `json:"creator"`
}

// contractCreator is the transaction that created addr and the account
// that did (a factory, for a contract created by a contract): the first
// transaction touching addr, its creation found in its call tree.
func (api *otsAPI) contractCreator(ctx context.Context, p rpc.Params) (any, error) {
	var addr types.Address
	if err := p.Decode(0, &addr); err != nil {
		return nil, err
	}
	head := api.b.Head()
	st, err := api.b.StateAt(head.Header())
	if err != nil {
		return nil, err
	}
	if len(st.Code(addr)) == 0 {
		return nil, nil
	}
	total, err := api.h.AddressTxCount(addr)
	if err != nil || total == 0 {
		return nil, err
	}
	for i := uint64(0); i < total && i < otsMaxPage; i++ {
		ref, err := api.h.AddressTxAt(addr, i)
		if err != nil {
			return nil, err
		}
		root, err := api.callTree(ctx, ref.Hash, false)
		if err != nil {
			return nil, err
		}
		if c := findCreator(root, addr); c != nil {
			return otsCreator{Hash: ref.Hash, Creator: *c}, nil
		}
	}
	return nil, nil
}

func findCreator(f *otsFrame, addr types.Address) *types.Address {
	if f.Error == "" && (f.Type == "CREATE" || f.Type == "CREATE2") && f.To != nil && *f.To == addr {
		return &f.From
	}
	for _, c := range f.Calls {
		if a := findCreator(c, addr); a != nil {
			return a
		}
	}
	return nil
}

// headerByNumber is erigon_getHeaderByNumber: the header object of a
// block by number or tag.
func (api *otsAPI) headerByNumber(_ context.Context, p rpc.Params) (any, error) {
	blk, err := api.otsBlock(p, false)
	if err != nil || blk == nil {
		return nil, err
	}
	return types.HeaderJSON(blk.Header()), nil
}
