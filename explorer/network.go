package explorer

import (
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// account serves GET /api/account/{address}[?page=]: state at the head,
// staking roles and the address's transactions, newest first, pageSize a
// page (page 1 without ?page).
func (e *Explorer) account(r *http.Request) (any, error) {
	addr, err := parseAddress(trimID(r))
	if err != nil {
		return nil, err
	}
	page := uint64(1)
	if s := r.URL.Query().Get("page"); s != "" {
		if page, err = parseUint("page", s); err != nil || page < 1 {
			return nil, badRequest("Invalid page number: want an integer of 1 or more")
		}
	}
	b := e.cfg.Backend
	head := b.Head()
	st, err := b.StateAt(head.HeaderRef())
	if err != nil {
		return nil, err
	}
	total, err := b.AddressTxCount(addr)
	if err != nil {
		return nil, err
	}
	pages := (total + pageSize - 1) / pageSize
	if page > max(pages, 1) {
		return nil, badRequest(fmt.Sprintf("Page no is greater than the totalPage (%d)", pages))
	}
	rows := []txRow{}
	top := total - min(total, (page-1)*pageSize)
	for o := top; o > 0 && len(rows) < pageSize; o-- {
		ref, err := b.AddressTxAt(addr, o-1)
		if errors.Is(err, backend.ErrNotFound) {
			break // older entries are pruned (historyFrom)
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
	roles, validator, err := e.rolesOf(addr)
	if err != nil {
		return nil, err
	}
	historyFrom, err := b.HistoryFrom()
	if err != nil {
		return nil, err
	}
	code, bal, nonce := st.Code(addr), st.Balance(addr), st.Nonce(addr)
	if err := backend.ReadErr(st); err != nil {
		return nil, err
	}
	stake, err := e.accountStake(addr)
	if err != nil {
		return nil, err
	}
	return struct {
		Success bool        `json:"success"`
		Account accountJSON `json:"account"`
	}{true, accountJSON{addr.Hex(), dec(bal), nonce, len(code), len(code) > 0,
		total, pages, page, rows, roles, validator, stake, head.Number(), historyFrom}}, nil
}

type accountJSON struct {
	Address          string         `json:"address"`
	Balance          string         `json:"balance"`
	Nonce            uint64         `json:"nonce"`
	CodeSize         int            `json:"codeSize"`
	IsContract       bool           `json:"isContract"`
	TransactionCount uint64         `json:"transactionCount"`
	TotalPages       uint64         `json:"totalPages"`
	Page             uint64         `json:"page"`
	Transactions     []txRow        `json:"transactions"` // newest first
	Roles            []string       `json:"roles"`
	Validator        *validatorJSON `json:"validator,omitempty"`
	// Staking is the account's delegations, unbonding and rewards; absent
	// on a chain without staking.
	Staking     *accountStakeJSON `json:"staking,omitempty"`
	BlockNumber uint64            `json:"blockNumber"` // the state's block
	// HistoryFrom is the first block whose transactions are listed: the
	// older ones were pruned (--history.keep).
	HistoryFrom uint64 `json:"historyFrom"`
}

// rolesOf lists addr's staking roles: "validator" when it is the address
// of a validator's key, plus what the staking module says.
func (e *Explorer) rolesOf(addr types.Address) ([]string, *validatorJSON, error) {
	roles := []string{}
	var val *validatorJSON
	for _, v := range e.validatorList() {
		if v.Address == addr.Hex() {
			roles = append(roles, "validator")
			val = &v
			break
		}
	}
	if e.cfg.Roles != nil {
		more, err := e.cfg.Roles.Roles(addr)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range more {
			if r != "validator" || val == nil {
				roles = append(roles, r)
			}
		}
	}
	return roles, val, nil
}

type validatorJSON struct {
	ID        string `json:"id"`
	Address   string `json:"address"` // of the node's key
	PublicKey string `json:"publicKey"`
	IP        string `json:"ip"`
	Port      int    `json:"port"`
}

func (e *Explorer) validatorList() []validatorJSON {
	out := []validatorJSON{}
	if e.cfg.Validators == nil {
		return out
	}
	for _, n := range e.cfg.Validators.Nodes() {
		v := validatorJSON{ID: hexBytes(n.ID), PublicKey: hexBytes(n.PublicKey), IP: n.IP, Port: n.Port}
		if pk, err := secp256k1.ParsePubKey(n.PublicKey); err == nil {
			v.Address = types.Address(crypto.PubkeyToAddress(pk)).Hex()
		}
		out = append(out, v)
	}
	return out
}

// validators serves GET /api/validators: on a chain with staking every
// validator the staking state holds, by voting power, with its stake,
// commission, status and recent signing; else the validator set's nodes.
func (e *Explorer) validators(*http.Request) (any, error) {
	if e.stakingOn() {
		vs, recent, err := e.stakeValidators()
		if err != nil {
			return nil, err
		}
		var from, to uint64
		if len(recent.blocks) > 0 {
			from, to = recent.blocks[0].Number, recent.blocks[len(recent.blocks)-1].Number
		}
		return struct {
			Success    bool                 `json:"success"`
			Staking    bool                 `json:"staking"`
			Validators []stakeValidatorJSON `json:"validators"`
			// The signed/missed counts cover blocks WindowFrom..WindowTo.
			WindowFrom uint64 `json:"windowFrom"`
			WindowTo   uint64 `json:"windowTo"`
		}{true, true, vs, from, to}, nil
	}
	return struct {
		Success    bool            `json:"success"`
		Validators []validatorJSON `json:"validators"`
	}{true, e.validatorList()}, nil
}

// validator serves GET /api/validator/{id|address|publicKey}.
func (e *Explorer) validator(r *http.Request) (any, error) {
	id := strings.ToLower(trimID(r))
	raw := strings.TrimPrefix(id, "0x")
	if _, err := hex.DecodeString(raw); err != nil || !strings.HasPrefix(id, "0x") || (len(raw) != 40 && len(raw) != 64 && len(raw) != 66) {
		return nil, badRequest("invalid validator " + id + ": want its 0x address, node ID or compressed public key")
	}
	if e.stakingOn() {
		return e.stakeValidator(id)
	}
	for _, v := range e.validatorList() {
		if strings.ToLower(v.Address) == id || v.ID == id || v.PublicKey == id {
			return struct {
				Success   bool          `json:"success"`
				Validator validatorJSON `json:"validator"`
			}{true, v}, nil
		}
	}
	return nil, notFound("validator " + id + " not found")
}

type cycleJSON struct {
	Counter          uint64 `json:"counter"`
	Start            int64  `json:"start"` // Unix seconds
	End              int64  `json:"end"`
	StartBlock       uint64 `json:"startBlock"`
	EndBlock         uint64 `json:"endBlock"` // last block so far
	TransactionCount uint64 `json:"transactionCount"`
	Active           int    `json:"active"`
	Standby          int    `json:"standby"`
	Syncing          int    `json:"syncing"`
	Desired          uint64 `json:"desired"`
}

func (e *Explorer) cycleOf(n *uint64) (*cycleJSON, error) {
	if e.cfg.Validators == nil {
		return nil, notFound("this node keeps no cycle records")
	}
	ci, err := e.cfg.Validators.CycleInfo(n)
	if err != nil {
		return nil, err
	}
	b := e.cfg.Backend
	cycles := e.schedule()
	first := cycles.First(ci.Counter)
	last := min(cycles.Last(ci.Counter), b.Head().Number())
	var before uint64
	if first > 0 {
		if before, err = b.TxCountThrough(first - 1); err != nil {
			return nil, err
		}
	}
	through, err := b.TxCountThrough(last)
	if err != nil {
		return nil, err
	}
	return &cycleJSON{
		Counter: ci.Counter, Start: ci.Start.Unix(), End: ci.End.Unix(), StartBlock: first, EndBlock: last,
		TransactionCount: through - before, Active: ci.Nodes.Active, Standby: ci.Nodes.Standby,
		Syncing: ci.Nodes.Syncing, Desired: ci.Desired,
	}, nil
}

// cycle serves GET /api/cycle/{n|latest}.
func (e *Explorer) cycle(r *http.Request) (any, error) {
	var n *uint64
	if id := trimID(r); id != "latest" {
		v, err := parseUint("cycle", id)
		if err != nil {
			return nil, err
		}
		n = &v
	}
	c, err := e.cycleOf(n)
	if err != nil {
		return nil, err
	}
	return struct {
		Success bool       `json:"success"`
		Cycle   *cycleJSON `json:"cycle"`
	}{true, c}, nil
}

// cycles serves GET /api/cycles?count=: the latest cycles, newest first.
func (e *Explorer) cycles(r *http.Request) (any, error) {
	count, err := countParam(r, 10)
	if err != nil {
		return nil, err
	}
	out := []*cycleJSON{}
	cur := e.schedule().Of(e.cfg.Backend.Head().Number())
	for c := cur; uint64(len(out)) < count; c-- {
		cj, err := e.cycleOf(&c)
		if err != nil {
			return nil, err
		}
		out = append(out, cj)
		if c == 0 {
			break
		}
	}
	return struct {
		Success bool         `json:"success"`
		Cycles  []*cycleJSON `json:"cycles"`
	}{true, out}, nil
}

// statsWindow is how many recent blocks the rates are averaged over.
const statsWindow = 100

// stats serves GET /api/stats: the head, average block time and
// transaction rate over the last blocks, totals and the validator count.
func (e *Explorer) stats(*http.Request) (any, error) {
	b := e.cfg.Backend
	head := b.Head()
	total, err := b.TxCountThrough(head.Number())
	if err != nil && !errors.Is(err, backend.ErrNotIndexed) {
		return nil, err
	}
	var blockTime, tps float64
	// The chain's first block (block 0, or a fork's local genesis) has
	// the time its genesis was written, which may be long before the chain
	// started (a fixed dev or network genesis): the window starts after it.
	if first := backend.FirstBlock(b); head.Number() > first+1 {
		from := max(head.Number()-min(head.Number(), statsWindow), first+1)
		old, err := b.BlockByNumber(from)
		if err != nil {
			return nil, err
		}
		span := float64(e.timeMs(head)-e.timeMs(old)) / 1000 // seconds, to the millisecond where recorded
		blockTime = span / float64(head.Number()-from)
		if before, err := b.TxCountThrough(from); err == nil && span > 0 {
			tps = float64(total-before) / span
		}
	}
	active := len(e.validatorList())
	cycle := e.schedule().Of(head.Number())
	if e.cfg.Validators != nil {
		if ci, err := e.cfg.Validators.CycleInfo(nil); err == nil {
			active, cycle = ci.Nodes.Active, ci.Counter
		}
	}
	pending, queued := b.PoolContent()
	pooled := 0
	for _, m := range []map[types.Address][]*types.Transaction{pending, queued} {
		for _, txs := range m {
			pooled += len(txs)
		}
	}
	return struct {
		Success           bool    `json:"success"`
		ChainID           uint64  `json:"chainId"`
		Head              uint64  `json:"head"`
		HeadTime          uint64  `json:"headTime"`
		HeadTimeMs        int64   `json:"headTimeMs"` // to the millisecond where the chain records it
		Cycle             uint64  `json:"cycle"`
		BlockTime         float64 `json:"blockTime"` // seconds, average (ms precision where the chain records it)
		TxPerSecond       float64 `json:"txPerSecond"`
		TotalTransactions uint64  `json:"totalTransactions"`
		ActiveValidators  int     `json:"activeValidators"`
		PoolTransactions  int     `json:"poolTransactions"`
	}{true, b.ChainID(), head.Number(), head.Time(), e.timeMs(head), cycle, blockTime, tps, total, active, pooled}, nil
}

// chartPoint is one block of the charts: when it was made, how long after
// its parent and how many transactions it holds.
type chartPoint struct {
	Number     uint64  `json:"number"`
	Timestamp  uint64  `json:"timestamp"`  // Unix seconds
	IntervalMs float64 `json:"intervalMs"` // since the parent
	TxCount    int     `json:"transactionCount"`
}

// chart serves GET /api/chart?count=: the latest blocks' intervals and
// transaction counts, oldest first, for the page's block-time and tx/s
// charts. The chain's first block is left out: its parent is a genesis
// written long before the chain started.
func (e *Explorer) chart(r *http.Request) (any, error) {
	count, err := countParam(r, 60)
	if err != nil {
		return nil, err
	}
	b := e.cfg.Backend
	head := b.Head()
	first := backend.FirstBlock(b) + 1
	out := []chartPoint{}
	if head.Number() > first {
		from := max(first+1, head.Number()-min(head.Number(), count-1))
		prev, err := b.BlockByNumber(from - 1)
		if err != nil {
			return nil, err
		}
		for n := from; n <= head.Number(); n++ {
			blk, err := b.BlockByNumber(n)
			if err != nil {
				return nil, err
			}
			out = append(out, chartPoint{n, blk.Time(), float64(e.timeMs(blk) - e.timeMs(prev)), len(blk.Transactions())})
			prev = blk
		}
	}
	return struct {
		Success bool         `json:"success"`
		Blocks  []chartPoint `json:"blocks"`
	}{true, out}, nil
}

// timeMs is a block's time in milliseconds: the header's seconds, to the
// millisecond where the chain records it.
func (e *Explorer) timeMs(b *types.Block) int64 {
	if e.cfg.Signing != nil {
		return int64(e.cfg.Signing.TimeMs(b.HeaderRef()))
	}
	return int64(b.Time()) * 1000
}
