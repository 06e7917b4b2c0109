package query

import (
	"fmt"
	"strconv"
	"sync"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Included transactions as Cosmos clients see them, for the tx service
// and CometBFT's tx, tx_search, block_results and Tx events: each
// Ethereum transaction is the TxRaw Cosmos EVM makes of it (CosmosTx),
// named by the sha256 of those bytes, and its result carries the events
// Cosmos EVM emits for it — the ante handler's tx fee and ethereum_tx
// hash and index, the SDK's message action/sender/module, and the EVM's
// ethereum_tx (amount, hashes, gas used, recipient, failure) and message
// (sender, tx type) — so indexers that read Cosmos EVM read chaind. A
// reverted transaction is code 0 with ethereumTxFailed set, as there.

// TxResult is one included transaction with what its result reports.
type TxResult struct {
	Height   uint64
	Index    int
	Tx       *types.Transaction
	Raw      []byte // the TxRaw bytes
	Body     TxBody // what Raw holds, decoded
	AuthInfo AuthInfo
	Hash     types.Hash // CometBFT's: sha256 of Raw
	Receipt  *types.Receipt
	Events   []Event
}

// Event is an ABCI event, as CometBFT's JSON and the tx service's protobuf
// both render it.
type Event struct {
	Type       string           `pb:"1,type" json:"type"`
	Attributes []EventAttribute `pb:"2,attributes" json:"attributes"`
}

func (Event) ProtoName() string { return "tendermint.abci.Event" }

type EventAttribute struct {
	Key   string `pb:"1,key" json:"key"`
	Value string `pb:"2,value" json:"value"`
	Index bool   `pb:"3,index" json:"index"`
}

func (EventAttribute) ProtoName() string { return "tendermint.abci.EventAttribute" }

// NewEvent is an event of type typ with the indexed attributes kv (key,
// value, key, value...).
func NewEvent(typ string, kv ...string) Event {
	e := Event{Type: typ, Attributes: make([]EventAttribute, 0, len(kv)/2)}
	for i := 0; i+1 < len(kv); i += 2 {
		e.Attributes = append(e.Attributes, EventAttribute{Key: kv[i], Value: kv[i+1], Index: true})
	}
	return e
}

func init() {
	typeFiles = append(typeFiles, protobuf.File{Name: "tendermint/abci/types.proto", Package: "tendermint.abci",
		Messages: []protobuf.Message{Event{}, EventAttribute{}}})
}

// msgTypeURL is the type URL of the one message of each transaction.
var msgTypeURL = "/" + MsgEthereumTx{}.ProtoName()

// txs holds what the transaction lookups keep between calls: the
// CometBFT hashes seen (hashIndex) and whether the recent blocks' were
// indexed yet (Backfill).
type txs struct {
	hashes     hashIndex
	backfilled sync.Once
}

// BlockTxResults renders the transactions of b with their results, and
// remembers their CometBFT hashes.
func (q *Querier) BlockTxResults(b *types.Block) ([]TxResult, error) {
	txs := b.Transactions()
	if len(txs) == 0 {
		return nil, nil
	}
	if q.b.Receipts == nil {
		return nil, backend.ErrUnavailable
	}
	rs, err := q.b.Receipts.Receipts(b)
	if err != nil {
		return nil, err
	}
	if len(rs) != len(txs) {
		return nil, fmt.Errorf("block %d: %d receipts for %d transactions", b.Number(), len(rs), len(txs))
	}
	out := make([]TxResult, len(txs))
	for i, tx := range txs {
		r := rs[i]
		body, auth, err := cosmosTxParts(tx, r.From)
		if err != nil {
			return nil, err
		}
		raw := txRaw(body, auth)
		t := TxResult{Height: b.Number(), Index: i, Tx: tx, Raw: raw, Body: body, AuthInfo: auth, Hash: CometHash(raw), Receipt: r}
		t.Events = t.eventList()
		out[i] = t
		q.txs.hashes.add(t.Hash, tx.Hash())
	}
	return out, nil
}

func (t *TxResult) eventList() []Event {
	r, tx := t.Receipt, t.Tx
	fee := new(uint256.Int)
	if r.EffectiveGasPrice != nil {
		fee.Mul(uint256.NewInt(tx.Gas()), r.EffectiveGasPrice)
	}
	ethHash := tx.Hash().Hex()
	from := r.From
	evm := []string{"amount", tx.Value().Dec(), "ethereumTxHash", ethHash, "txGasUsed", strconv.FormatUint(r.GasUsed, 10),
		"txHash", fmt.Sprintf("%x", t.Hash[:])}
	if to := tx.To(); to != nil {
		evm = append(evm, "recipient", to.Hex())
	}
	if r.Status != types.ReceiptStatusSuccessful {
		// Cosmos EVM puts the EVM's error text here; a receipt keeps only
		// the failure, which is what indexers test the attribute for.
		evm = append(evm, "ethereumTxFailed", "failed")
	}
	return []Event{
		NewEvent("tx", "fee", fee.Dec()+Denom),
		NewEvent("ethereum_tx", "ethereumTxHash", ethHash, "txIndex", strconv.Itoa(t.Index)),
		NewEvent("message", "action", msgTypeURL, "sender", accAddr(from), "module", "evm", "msg_index", "0"),
		NewEvent("ethereum_tx", append(evm, "msg_index", "0")...),
		NewEvent("message", "module", "evm", "sender", fmt.Sprintf("0x%x", from[:]), "txType", strconv.Itoa(int(tx.Type())), "msg_index", "0"),
	}
}

// EventMap is what queries match the transaction against: its events'
// attributes by "type.key", and tm.event, tx.hash and tx.height as
// CometBFT adds them.
func (t *TxResult) EventMap() map[string][]string {
	return Flatten(t.Events, map[string][]string{
		"tm.event":  {"Tx"},
		"tx.hash":   {fmt.Sprintf("%X", t.Hash[:])},
		"tx.height": {strconv.FormatUint(t.Height, 10)},
	})
}

// Flatten adds the attributes of events to m by "type.key", as queries
// name them.
func Flatten(events []Event, m map[string][]string) map[string][]string {
	for _, e := range events {
		for _, a := range e.Attributes {
			k := e.Type + "." + a.Key
			m[k] = append(m[k], a.Value)
		}
	}
	return m
}

// TxAt renders the transaction at position index of canonical block n.
func (q *Querier) TxAt(n uint64, index int) (*TxResult, error) {
	if q.b.Blocks == nil {
		return nil, backend.ErrUnavailable
	}
	b, err := q.b.Blocks.BlockByNumber(n)
	if err != nil {
		return nil, err
	}
	rs, err := q.BlockTxResults(b)
	if err != nil {
		return nil, err
	}
	if index < 0 || index >= len(rs) {
		return nil, fmt.Errorf("%w: block %d has no transaction %d", backend.ErrNotFound, n, index)
	}
	return &rs[index], nil
}

// TxByHash finds a canonical transaction by its CometBFT hash or, as a
// convenience, its Ethereum hash; nil when neither names one.
func (q *Querier) TxByHash(h types.Hash) (*TxResult, error) {
	if q.b.TxIndex == nil || q.b.Blocks == nil {
		return nil, backend.ErrUnavailable
	}
	eth, ok := q.txs.hashes.get(h)
	if !ok {
		q.Backfill()
		if eth, ok = q.txs.hashes.get(h); !ok {
			eth = h // perhaps an Ethereum hash
		}
	}
	bh, index, ok := q.b.TxIndex.TxLookup(eth)
	if !ok {
		return nil, nil
	}
	b, err := q.b.Blocks.BlockByHash(bh)
	if err != nil {
		return nil, err
	}
	return q.TxAt(b.Number(), index)
}

// backfillBlocks is how many blocks before the head Backfill indexes the
// CometBFT hashes of.
const backfillBlocks = 1000

// Backfill indexes the CometBFT hashes of the last backfillBlocks blocks,
// once: when the CometBFT RPC starts following blocks, or at the first
// lookup that misses if that comes first.
func (q *Querier) Backfill() {
	q.txs.backfilled.Do(func() {
		if q.b.Blocks == nil {
			return
		}
		head := q.b.Blocks.Head().Number()
		for n := head; n > 0 && head-n < backfillBlocks; n-- {
			if b, err := q.b.Blocks.BlockByNumber(n); err == nil {
				q.IndexHashes(b)
			}
		}
	})
}

// IndexHashes records the CometBFT hashes of b's transactions.
func (q *Querier) IndexHashes(b *types.Block) {
	for _, tx := range b.Transactions() {
		from, err := types.Sender(tx)
		if err != nil {
			continue
		}
		if raw, err := CosmosTx(tx, from); err == nil {
			q.txs.hashes.add(CometHash(raw), tx.Hash())
		}
	}
}

// hashIndex maps the CometBFT hashes of recent transactions (sha256 of
// their TxRaw bytes) to their Ethereum hashes, which the chain's
// transaction index finds. The chain indexes transactions by their
// Ethereum hash only, and a sha256 cannot be turned back into the
// transaction, so the query layer remembers the CometBFT hashes of the
// blocks it sees: every block decided while the CometBFT RPC runs (its
// Run follows the heads), the last backfillBlocks blocks before
// (Backfill), and every block a client reads. It holds at most maxHashes
// entries (about 64 bytes each plus the map's overhead), forgetting the
// oldest first; the Ethereum hash of a transaction always finds it.
type hashIndex struct {
	mu   sync.Mutex
	m    map[types.Hash]types.Hash
	ring []types.Hash // insertion order, for eviction
	next int
}

// maxHashes bounds the index: 262,144 entries, about 32 MiB with the
// map's overhead.
const maxHashes = 1 << 18

func (x *hashIndex) add(comet, eth types.Hash) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.m == nil {
		x.m = make(map[types.Hash]types.Hash)
	}
	if _, ok := x.m[comet]; ok {
		return
	}
	if len(x.ring) < maxHashes {
		x.ring = append(x.ring, comet)
	} else {
		delete(x.m, x.ring[x.next])
		x.ring[x.next] = comet
		x.next = (x.next + 1) % maxHashes
	}
	x.m[comet] = eth
}

func (x *hashIndex) get(comet types.Hash) (types.Hash, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	h, ok := x.m[comet]
	return h, ok
}
