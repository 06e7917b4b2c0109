package cometrpc

import (
	"fmt"
	"strconv"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Transactions as CometBFT reports them: each Ethereum transaction is the
// TxRaw Cosmos EVM makes of it (query.CosmosTx), named by the sha256 of
// those bytes, and its result is an ExecTxResult carrying the events Cosmos
// EVM emits for it — the ante handler's tx fee and ethereum_tx hash and
// index, the SDK's message action/sender/module, and the EVM's
// ethereum_tx (amount, hashes, gas used, recipient, failure) and message
// (sender, tx type) — so indexers that read Cosmos EVM read chaind. A
// reverted transaction is code 0 with ethereumTxFailed set, as there.

// txResult is one included transaction with what its result reports.
type txResult struct {
	height  uint64
	index   int
	tx      *types.Transaction
	raw     []byte     // the TxRaw bytes
	hash    types.Hash // CometBFT's: sha256 of raw
	receipt *types.Receipt
	events  []event
}

type event struct {
	Type       string `json:"type"`
	Attributes []attr `json:"attributes"`
}

type attr struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	Index bool   `json:"index"`
}

func newEvent(typ string, kv ...string) event {
	e := event{Type: typ, Attributes: make([]attr, 0, len(kv)/2)}
	for i := 0; i+1 < len(kv); i += 2 {
		e.Attributes = append(e.Attributes, attr{Key: kv[i], Value: kv[i+1], Index: true})
	}
	return e
}

// msgTypeURL is the type URL of the one message of each transaction.
var msgTypeURL = "/" + query.MsgEthereumTx{}.ProtoName()

// blockTxResults renders the transactions of b with their results.
func (s *Server) blockTxResults(b *types.Block) ([]txResult, error) {
	txs := b.Transactions()
	if len(txs) == 0 {
		return nil, nil
	}
	if s.b.Receipts == nil {
		return nil, backend.ErrUnavailable
	}
	rs, err := s.b.Receipts.Receipts(b)
	if err != nil {
		return nil, err
	}
	if len(rs) != len(txs) {
		return nil, fmt.Errorf("block %d: %d receipts for %d transactions", b.Number(), len(rs), len(txs))
	}
	out := make([]txResult, len(txs))
	for i, tx := range txs {
		r := rs[i]
		raw, err := query.CosmosTx(tx, r.From)
		if err != nil {
			return nil, err
		}
		t := txResult{height: b.Number(), index: i, tx: tx, raw: raw, hash: query.CometHash(raw), receipt: r}
		t.events = t.eventList()
		out[i] = t
		s.hashes.add(t.hash, tx.Hash())
	}
	return out, nil
}

func (t *txResult) eventList() []event {
	r, tx := t.receipt, t.tx
	fee := new(uint256.Int)
	if r.EffectiveGasPrice != nil {
		fee.Mul(uint256.NewInt(tx.Gas()), r.EffectiveGasPrice)
	}
	ethHash := tx.Hash().Hex()
	from := r.From
	evm := []string{"amount", tx.Value().Dec(), "ethereumTxHash", ethHash, "txGasUsed", strconv.FormatUint(r.GasUsed, 10),
		"txHash", fmt.Sprintf("%x", t.hash[:])}
	if to := tx.To(); to != nil {
		evm = append(evm, "recipient", to.Hex())
	}
	if r.Status != types.ReceiptStatusSuccessful {
		// Cosmos EVM puts the EVM's error text here; a receipt keeps only
		// the failure, which is what indexers test the attribute for.
		evm = append(evm, "ethereumTxFailed", "failed")
	}
	return []event{
		newEvent("tx", "fee", fee.Dec()+query.Denom),
		newEvent("ethereum_tx", "ethereumTxHash", ethHash, "txIndex", strconv.Itoa(t.index)),
		newEvent("message", "action", msgTypeURL, "sender", query.Bech32(query.AccountPrefix, from), "module", "evm", "msg_index", "0"),
		newEvent("ethereum_tx", append(evm, "msg_index", "0")...),
		newEvent("message", "module", "evm", "sender", fmt.Sprintf("0x%x", from[:]), "txType", strconv.Itoa(int(tx.Type())), "msg_index", "0"),
	}
}

// eventMap is what queries match the transaction against: its events'
// attributes by "type.key", and tm.event, tx.hash and tx.height as
// CometBFT adds them.
func (t *txResult) eventMap() map[string][]string {
	return flatten(t.events, map[string][]string{
		"tm.event":  {"Tx"},
		"tx.hash":   {fmt.Sprintf("%X", t.hash[:])},
		"tx.height": {strconv.FormatUint(t.height, 10)},
	})
}

// flatten adds the attributes of events to m by "type.key", as queries
// name them.
func flatten(events []event, m map[string][]string) map[string][]string {
	for _, e := range events {
		for _, a := range e.Attributes {
			k := e.Type + "." + a.Key
			m[k] = append(m[k], a.Value)
		}
	}
	return m
}

// execResult is the ExecTxResult of t.
func (t *txResult) execResult() map[string]any {
	return map[string]any{
		"code": 0, "data": query.EthTxResultData(t.receipt), "log": "", "info": "",
		"gas_wanted": i64(t.tx.Gas()), "gas_used": i64(t.receipt.GasUsed),
		"events": t.events, "codespace": "",
	}
}

// resultTx is t as the tx and tx_search methods return it.
func (t *txResult) resultTx() map[string]any {
	return map[string]any{"hash": hexBytes(t.hash[:]), "height": i64(t.height), "index": t.index,
		"tx_result": t.execResult(), "tx": t.raw}
}

// txAt renders the transaction at position index of canonical block n.
func (s *Server) txAt(n uint64, index int) (*txResult, error) {
	b, err := s.b.Blocks.BlockByNumber(n)
	if err != nil {
		return nil, err
	}
	rs, err := s.blockTxResults(b)
	if err != nil {
		return nil, err
	}
	if index < 0 || index >= len(rs) {
		return nil, fmt.Errorf("%w: block %d has no transaction %d", backend.ErrNotFound, n, index)
	}
	return &rs[index], nil
}

// txByHash finds a canonical transaction by its CometBFT hash or, as a
// convenience, its Ethereum hash; nil when neither names one.
func (s *Server) txByHash(h types.Hash) (*txResult, error) {
	if s.b.TxIndex == nil || s.b.Blocks == nil {
		return nil, backend.ErrUnavailable
	}
	eth, ok := s.hashes.get(h)
	if !ok {
		s.backfill()
		if eth, ok = s.hashes.get(h); !ok {
			eth = h // perhaps an Ethereum hash
		}
	}
	bh, index, ok := s.b.TxIndex.TxLookup(eth)
	if !ok {
		return nil, nil
	}
	b, err := s.b.Blocks.BlockByHash(bh)
	if err != nil {
		return nil, err
	}
	return s.txAt(b.Number(), index)
}
