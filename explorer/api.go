package explorer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
)

const (
	pageSize       = 10  // transactions a page of every listing
	maxCycleSpan   = 100 // cycles one listing query may cover
	maxListCount   = 100 // blocks or transactions one "latest" query may ask for
	blockCacheSize = 256 // rendered blocks kept
)

// block serves GET /api/block/{number|hash|latest}.
func (e *Explorer) block(r *http.Request) (any, error) {
	num, hash, isHash, latest, err := parseBlockID(trimID(r))
	if err != nil {
		return nil, err
	}
	b := e.cfg.Backend
	switch {
	case latest:
		hash = b.Head().Hash()
	case isHash:
	default:
		if hash = b.CanonicalHash(num); hash == (types.Hash{}) {
			return nil, notFound(fmt.Sprintf("block %d not found", num))
		}
	}
	// A cached block is served while it is still canonical: a
	// development chain's rewind or reset drops blocks.
	if c, ok := e.cachedBlock(hash); ok && b.CanonicalHash(c.num) == hash {
		return raw(c.body), nil
	}
	blk, err := b.BlockByHash(hash)
	if err != nil {
		if errors.Is(err, backend.ErrNotFound) {
			return nil, notFound("block " + hash.Hex() + " not found")
		}
		return nil, err
	}
	receipts, err := b.Receipts(blk)
	if err != nil {
		return nil, err
	}
	bj := e.renderBlock(blk, receipts, true)
	if bj.Signing, err = e.signingOf(blk.Number()); err != nil {
		return nil, err
	}
	body, err := json.Marshal(struct {
		Success bool      `json:"success"`
		Block   blockJSON `json:"block"`
	}{true, bj})
	if err != nil {
		return nil, err
	}
	// Only canonical blocks are cached, and only once their signatures
	// are recorded (by the next block).
	if b.CanonicalHash(blk.Number()) == hash && (bj.Signing == nil || bj.Signing.Recorded) {
		e.cacheBlock(hash, cachedBlock{blk.Number(), body})
	}
	return raw(body), nil
}

// signingOf is block num's proposer and signers; nil on a chain without
// validators and for the genesis block.
func (e *Explorer) signingOf(num uint64) (*signingJSON, error) {
	if e.cfg.Signing == nil || !e.stakingOn() || num == 0 {
		return nil, nil
	}
	s, err := e.cfg.Signing.BlockSigning(num)
	if err != nil {
		return nil, err
	}
	out := &signingJSON{Proposer: s.Proposer.Hex(), Recorded: s.Recorded, Signers: make([]signerJSON, 0, len(s.Members))}
	for _, m := range s.Members {
		out.Signers = append(out.Signers, signerJSON{m.Operator.Hex(), m.Consensus.Hex(), m.Power, m.Signed})
	}
	return out, nil
}

// cachedBlock is a rendered block and its number.
type cachedBlock struct {
	num  uint64
	body []byte
}

func (e *Explorer) cachedBlock(h types.Hash) (cachedBlock, bool) {
	e.blockMu.Lock()
	defer e.blockMu.Unlock()
	c, ok := e.blockCache[h]
	return c, ok
}

func (e *Explorer) cacheBlock(h types.Hash, c cachedBlock) {
	e.blockMu.Lock()
	defer e.blockMu.Unlock()
	if _, ok := e.blockCache[h]; ok {
		e.blockCache[h] = c
		return
	}
	if len(e.blockOrder) >= blockCacheSize {
		delete(e.blockCache, e.blockOrder[0])
		e.blockOrder = e.blockOrder[1:]
	}
	e.blockCache[h] = c
	e.blockOrder = append(e.blockOrder, h)
}

// countParam reads ?count= (default def, 1..maxListCount).
func countParam(r *http.Request, def uint64) (uint64, error) {
	s := r.URL.Query().Get("count")
	if s == "" {
		return def, nil
	}
	n, err := parseUint("count", s)
	if err != nil {
		return 0, err
	}
	if n < 1 || n > maxListCount {
		return 0, badRequest(fmt.Sprintf("count must be 1..%d", maxListCount))
	}
	return n, nil
}

// blocks serves GET /api/blocks?count=&before=: the latest blocks (or
// those below block before), newest first, without their transactions.
func (e *Explorer) blocks(r *http.Request) (any, error) {
	count, err := countParam(r, 10)
	if err != nil {
		return nil, err
	}
	b := e.cfg.Backend
	top := b.Head().Number()
	if s := r.URL.Query().Get("before"); s != "" {
		before, err := parseUint("before", s)
		if err != nil {
			return nil, err
		}
		if before == 0 {
			return nil, badRequest("before must be at least 1")
		}
		top = min(top, before-1)
	}
	out := []blockJSON{}
	first := backend.FirstBlock(b)
	for n := top; uint64(len(out)) < count && n >= first; n-- {
		blk, err := b.BlockByNumber(n)
		if err != nil {
			return nil, err
		}
		out = append(out, e.renderBlock(blk, nil, false))
		if n == 0 {
			break
		}
	}
	return struct {
		Success bool        `json:"success"`
		Blocks  []blockJSON `json:"blocks"`
	}{true, out}, nil
}

// transaction serves GET /api/transaction/{hash}: an included
// transaction with its receipt, decoded logs and revert reason, or a
// pooled one.
func (e *Explorer) transaction(r *http.Request) (any, error) {
	h, err := parseTxHash(trimID(r))
	if err != nil {
		return nil, err
	}
	b := e.cfg.Backend
	bh, idx, ok := b.TxLookup(h)
	if !ok {
		tx, from, ok := b.PoolTransaction(h)
		if !ok {
			return nil, notFound("transaction " + h.Hex() + " not found")
		}
		out := txJSON{Pending: true, Logs: []logJSON{}}
		out.txRow = txRow{Hash: h.Hex(), From: from.Hex(), To: addrPtr(tx.To()), Value: dec(tx.Value()), Fee: "0", Method: e.methodOf(tx)}
		e.fillTx(&out, tx)
		return pendingAnswer(out)
	}
	blk, err := b.BlockByHash(bh)
	if err != nil {
		return nil, err
	}
	receipts, err := b.Receipts(blk)
	if err != nil {
		return nil, err
	}
	tx := blk.Transactions()[idx]
	out := txJSON{txRow: e.renderRow(blk, receipts, idx), BlockHash: bh.Hex(), Logs: []logJSON{}}
	e.fillTx(&out, tx)
	if idx < len(receipts) {
		rc := receipts[idx]
		out.GasUsed = rc.GasUsed
		out.GasPrice = dec(rc.EffectiveGasPrice)
		for _, l := range rc.Logs {
			ev := e.abi.event(l)
			if ev == nil {
				ev = decodeLog(l)
			}
			lj := logJSON{Address: l.Address.Hex(), Data: hexBytes(l.Data), Index: l.Index, Topics: make([]string, len(l.Topics)), Event: ev}
			for i, t := range l.Topics {
				lj.Topics[i] = t.Hex()
			}
			out.Logs = append(out.Logs, lj)
		}
		if out.Status == 0 {
			out.RevertReason, out.Error = e.revertReason(r.Context(), blk, idx)
		}
	}
	return txAnswer(out), nil
}

func txAnswer(t txJSON) any {
	return struct {
		Success     bool   `json:"success"`
		Transaction txJSON `json:"transaction"`
	}{true, t}
}

// pendingAnswer is a pooled transaction: what only inclusion decides
// (block, position, cycle, time, status, fee, gas used) is null, so no
// reader takes a pending transaction for a failed one in block 0.
func pendingAnswer(t txJSON) (any, error) {
	body, err := json.Marshal(t)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	for _, k := range []string{"blockNumber", "transactionIndex", "cycle", "timestamp", "status", "fee", "gasUsed"} {
		m[k] = json.RawMessage("null")
	}
	return struct {
		Success     bool                       `json:"success"`
		Transaction map[string]json.RawMessage `json:"transaction"`
	}{true, m}, nil
}

func (e *Explorer) fillTx(out *txJSON, tx *types.Transaction) {
	out.Call = e.abi.call(tx.To(), tx.Data())
	out.Type, out.Nonce, out.Gas = tx.Type(), tx.Nonce(), tx.Gas()
	out.GasPrice = dec(tx.GasPrice())
	out.Input = hexBytes(tx.Data())
	if tx.Type() >= types.DynamicFeeTxType {
		out.MaxFeePerGas, out.MaxPriorityFeePerGas = dec(tx.GasFeeCap()), dec(tx.GasTipCap())
	}
}

// revertReason replays a failed transaction to learn why it failed: the
// decoded revert reason, and the EVM's error.
func (e *Explorer) revertReason(ctx context.Context, blk *types.Block, idx int) (reason, evmErr string) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	res, err := e.cfg.Backend.TraceTransaction(ctx, blk, idx, &backend.TraceConfig{Tracer: "callTracer", TracerConfig: json.RawMessage(`{"onlyTopCall":true}`)})
	if err != nil {
		return "", "replay failed: " + err.Error()
	}
	var frame struct {
		Error        string `json:"error"`
		RevertReason string `json:"revertReason"`
	}
	if json.Unmarshal(res, &frame) != nil {
		return "", ""
	}
	return frame.RevertReason, frame.Error
}

// transactions serves GET /api/transaction?startCycle=&endCycle=&address=&page=
// (the cycle listing) and ?count=N (the latest N transactions).
func (e *Explorer) transactions(r *http.Request) (any, error) {
	q := r.URL.Query()
	if q.Has("startCycle") {
		return e.cycleListing(r)
	}
	if q.Has("count") {
		return e.latestTxs(r)
	}
	return nil, badRequest("give startCycle (and optionally endCycle, address, page) or count")
}

// listing is the cycle listing's answer: without a page only the total.
type listing struct {
	Success           bool     `json:"success"`
	TotalTransactions uint64   `json:"totalTransactions"`
	Transactions      *[]txRow `json:"transactions,omitempty"`
	TotalPages        *uint64  `json:"totalPages,omitempty"`
	// HistoryFrom is the first block whose transactions are listed: the
	// older ones were pruned (--history.keep).
	HistoryFrom uint64 `json:"historyFrom"`
}

// cycleListing lists the transactions of cycles startCycle..endCycle
// (endCycle defaults to startCycle), of one address when given, oldest
// first, pageSize a page.
func (e *Explorer) cycleListing(r *http.Request) (any, error) {
	q := r.URL.Query()
	start, err := strconv.ParseUint(q.Get("startCycle"), 10, 64)
	if err != nil {
		return nil, badRequest("Invalid start cycle number: want a non-negative integer")
	}
	end := start
	if q.Has("endCycle") {
		if end, err = strconv.ParseUint(q.Get("endCycle"), 10, 64); err != nil || end < start {
			return nil, badRequest("Invalid end cycle number: want an integer not below startCycle")
		}
	}
	if end-start >= maxCycleSpan {
		return nil, badRequest(fmt.Sprintf("Exceed maximum limit of %d cycles", maxCycleSpan))
	}
	var page uint64
	if q.Has("page") {
		if page, err = strconv.ParseUint(q.Get("page"), 10, 64); err != nil || page < 1 {
			return nil, badRequest("Invalid page number: want an integer of 1 or more")
		}
	}
	var addr *types.Address
	if q.Has("address") {
		a, err := parseAddress(q.Get("address"))
		if err != nil {
			return nil, err
		}
		addr = &a
	}
	// The range covers blocks first..last, cut at the head; cycles past
	// the head hold nothing yet.
	b := e.cfg.Backend
	head := b.Head().Number()
	cycles := e.schedule()
	first := cycles.First(start)
	last := min(cycles.Last(end), head)
	historyFrom, err := b.HistoryFrom()
	if err != nil {
		return nil, err
	}
	first = max(first, historyFrom) // older blocks' transactions are pruned
	var lo, hi uint64               // ordinals [lo, hi) in the chosen list
	if first <= head {
		if addr == nil {
			if first > 0 {
				// Before the first indexed block, nothing is counted:
				// the ordinals of an index that started late start at 0.
				if lo, err = b.TxCountThrough(first - 1); errors.Is(err, backend.ErrNotIndexed) && first == historyFrom {
					lo = 0
				} else if err != nil {
					return nil, err
				}
			}
			if hi, err = b.TxCountThrough(last); err != nil {
				return nil, err
			}
		} else {
			if lo, err = b.AddressTxCountBefore(*addr, first); err != nil {
				return nil, err
			}
			if hi, err = b.AddressTxCountBefore(*addr, last+1); err != nil {
				return nil, err
			}
		}
	}
	out := listing{Success: true, TotalTransactions: hi - lo, HistoryFrom: historyFrom}
	if page == 0 {
		return out, nil
	}
	pages := (out.TotalTransactions + pageSize - 1) / pageSize
	if page > max(pages, 1) {
		return nil, badRequest(fmt.Sprintf("Page no is greater than the totalPage (%d)", pages))
	}
	rows := []txRow{}
	from := lo + (page-1)*pageSize
	for o := from; o < hi && o < from+pageSize; o++ {
		var ref backend.TxRef
		if addr == nil {
			ref, err = b.TxAt(o)
		} else {
			ref, err = b.AddressTxAt(*addr, o)
		}
		if err != nil {
			return nil, err
		}
		row, err := e.rowOf(ref)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	out.Transactions, out.TotalPages = &rows, &pages
	return out, nil
}

// rowOf renders an indexed transaction for a listing.
func (e *Explorer) rowOf(ref backend.TxRef) (txRow, error) {
	b := e.cfg.Backend
	blk, err := b.BlockByNumber(ref.Block)
	if err != nil {
		return txRow{}, err
	}
	if ref.Index >= len(blk.Transactions()) || blk.Transactions()[ref.Index].Hash() != ref.Hash {
		return txRow{}, fmt.Errorf("history index disagrees with block %d at %d", ref.Block, ref.Index)
	}
	receipts, err := b.Receipts(blk)
	if err != nil {
		return txRow{}, err
	}
	return e.renderRow(blk, receipts, ref.Index), nil
}

// latestTxs serves ?count=N: the chain's last N transactions, newest
// first.
func (e *Explorer) latestTxs(r *http.Request) (any, error) {
	count, err := countParam(r, 10)
	if err != nil {
		return nil, err
	}
	b := e.cfg.Backend
	total, err := b.TxCountThrough(b.Head().Number())
	if err != nil {
		return nil, err
	}
	rows := []txRow{}
	for o := total; o > 0 && uint64(len(rows)) < count; o-- {
		ref, err := b.TxAt(o - 1)
		if errors.Is(err, backend.ErrNotFound) {
			break // older ones are pruned
		}
		if err != nil {
			return nil, err
		}
		row, err := e.rowOf(ref)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	return struct {
		Success           bool    `json:"success"`
		TotalTransactions uint64  `json:"totalTransactions"`
		Transactions      []txRow `json:"transactions"`
	}{true, total, rows}, nil
}
