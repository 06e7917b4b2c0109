package types

import (
	"encoding/json"

	"github.com/holiman/uint256"
)

// The JSON forms of blocks, headers, transactions, receipts, logs and
// withdrawals exactly as Ethereum JSON-RPC (execution-apis, go-ethereum)
// renders them. They live here, once, for rpc, explorer and GraphQL to
// share. Objects are written by hand with appenders: no reflection, and
// the field set of every type is visible in one function.

// jsonObject appends the members of one JSON object.
type jsonObject struct {
	b []byte
	n int
}

func openObject(dst []byte) jsonObject { return jsonObject{b: append(dst, '{')} }

func (o *jsonObject) close() []byte { return append(o.b, '}') }

func (o *jsonObject) key(k string) {
	if o.n > 0 {
		o.b = append(o.b, ',')
	}
	o.n++
	o.b = append(o.b, '"')
	o.b = append(o.b, k...)
	o.b = append(o.b, '"', ':')
}

func (o *jsonObject) u64(k string, x uint64) {
	o.key(k)
	o.b = append(o.b, '"')
	o.b = AppendHexUint64(o.b, x)
	o.b = append(o.b, '"')
}

func (o *jsonObject) u256(k string, x *uint256.Int) {
	o.key(k)
	if x == nil {
		o.b = append(o.b, "null"...)
		return
	}
	o.b = append(o.b, '"')
	o.b = AppendHexU256(o.b, x)
	o.b = append(o.b, '"')
}

func (o *jsonObject) data(k string, b []byte) {
	o.key(k)
	o.b = appendQuotedHex(o.b, b)
}

func appendQuotedHex(dst, b []byte) []byte {
	dst = append(dst, '"')
	dst = AppendHexBytes(dst, b)
	return append(dst, '"')
}

func (o *jsonObject) hash(k string, h *Hash) {
	o.key(k)
	if h == nil {
		o.b = append(o.b, "null"...)
		return
	}
	o.b = appendQuotedHex(o.b, h[:])
}

func (o *jsonObject) addr(k string, a *Address) {
	o.key(k)
	if a == nil {
		o.b = append(o.b, "null"...)
		return
	}
	o.b = appendQuotedHex(o.b, a[:])
}

func (o *jsonObject) null(k string) {
	o.key(k)
	o.b = append(o.b, "null"...)
}

func (o *jsonObject) boolean(k string, v bool) {
	o.key(k)
	if v {
		o.b = append(o.b, "true"...)
	} else {
		o.b = append(o.b, "false"...)
	}
}

func appendHashArray(dst []byte, hs []Hash) []byte {
	dst = append(dst, '[')
	for i := range hs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendQuotedHex(dst, hs[i][:])
	}
	return append(dst, ']')
}

// ---- header and block ----

// BlockJSONOptions say how a block or header is rendered.
type BlockJSONOptions struct {
	// Pending renders hash, nonce and miner as null, as for the "pending"
	// block tag.
	Pending bool
	// FullTx renders full transaction objects instead of hashes.
	FullTx bool
	// TotalDifficulty, when set, adds the totalDifficulty field that
	// older go-ethereum versions show.
	TotalDifficulty *uint256.Int
	// Signer recovers senders for full transactions; its zero value is
	// replaced by LatestSigner of each transaction's own chain id.
	Signer *Signer
}

// AppendHeaderJSON appends the header object (the fields a block object has
// besides size, transactions, uncles and withdrawals). hash is the header's
// hash, passed in so callers with a cached one do not rehash.
func AppendHeaderJSON(dst []byte, h *Header, hash Hash, pending bool) []byte {
	o := openObject(dst)
	o.appendHeaderFields(h, hash, pending)
	return o.close()
}

func (o *jsonObject) appendHeaderFields(h *Header, hash Hash, pending bool) {
	if h.BaseFee != nil {
		o.u256("baseFeePerGas", h.BaseFee)
	}
	if h.BlobGasUsed != nil {
		o.u64("blobGasUsed", *h.BlobGasUsed)
	}
	o.u256("difficulty", &h.Difficulty)
	if h.ExcessBlobGas != nil {
		o.u64("excessBlobGas", *h.ExcessBlobGas)
	}
	o.data("extraData", h.Extra)
	o.u64("gasLimit", h.GasLimit)
	o.u64("gasUsed", h.GasUsed)
	if pending {
		o.null("hash")
	} else {
		o.hash("hash", &hash)
	}
	o.data("logsBloom", h.Bloom[:])
	if pending {
		o.null("miner")
	} else {
		o.addr("miner", &h.Coinbase)
	}
	o.hash("mixHash", &h.MixDigest)
	if pending {
		o.null("nonce")
	} else {
		o.data("nonce", h.Nonce[:])
	}
	o.u64("number", h.Number)
	if h.ParentBeaconRoot != nil {
		o.hash("parentBeaconBlockRoot", h.ParentBeaconRoot)
	}
	o.hash("parentHash", &h.ParentHash)
	o.hash("receiptsRoot", &h.ReceiptHash)
	if h.RequestsHash != nil {
		o.hash("requestsHash", h.RequestsHash)
	}
	o.hash("sha3Uncles", &h.UncleHash)
	o.hash("stateRoot", &h.Root)
	o.u64("timestamp", h.Time)
	o.hash("transactionsRoot", &h.TxHash)
	if h.WithdrawalsHash != nil {
		o.hash("withdrawalsRoot", h.WithdrawalsHash)
	}
}

// HeaderJSON returns the header object (for newHeads subscriptions).
func HeaderJSON(h *Header) json.RawMessage { return AppendHeaderJSON(nil, h, h.Hash(), false) }

// AppendBlockJSON appends the block object of eth_getBlockByHash/Number.
func AppendBlockJSON(dst []byte, b *Block, opts BlockJSONOptions) []byte {
	o := openObject(dst)
	hash := b.Hash()
	o.appendHeaderFields(b.header, hash, opts.Pending)
	o.u64("size", b.Size())
	if opts.TotalDifficulty != nil {
		o.u256("totalDifficulty", opts.TotalDifficulty)
	}
	o.key("transactions")
	o.b = append(o.b, '[')
	for i, tx := range b.transactions {
		if i > 0 {
			o.b = append(o.b, ',')
		}
		if opts.FullTx {
			loc := &TxLocation{BlockHash: hash, BlockNumber: b.header.Number, BlockTime: b.header.Time, Index: uint64(i), BaseFee: b.header.BaseFee}
			if opts.Pending {
				loc = nil
			}
			o.b = AppendTxJSON(o.b, tx, senderFor(tx, opts.Signer), loc)
		} else {
			h := tx.Hash()
			o.b = appendQuotedHex(o.b, h[:])
		}
	}
	o.b = append(o.b, ']')
	o.key("uncles")
	o.b = append(o.b, '[')
	for i, u := range b.uncles {
		if i > 0 {
			o.b = append(o.b, ',')
		}
		h := u.Hash()
		o.b = appendQuotedHex(o.b, h[:])
	}
	o.b = append(o.b, ']')
	if b.withdrawals != nil {
		o.key("withdrawals")
		o.b = appendWithdrawalsJSON(o.b, b.withdrawals)
	}
	return o.close()
}

// BlockJSON returns the block object.
func BlockJSON(b *Block, opts BlockJSONOptions) json.RawMessage { return AppendBlockJSON(nil, b, opts) }

func senderFor(tx *Transaction, s *Signer) Address {
	if s != nil {
		if a, err := s.Sender(tx); err == nil {
			return a
		}
	}
	a, _ := Sender(tx)
	return a
}

// AppendWithdrawalJSON appends one withdrawal object.
func AppendWithdrawalJSON(dst []byte, w *Withdrawal) []byte {
	o := openObject(dst)
	o.u64("index", w.Index)
	o.u64("validatorIndex", w.Validator)
	o.addr("address", &w.Address)
	o.u64("amount", w.Amount)
	return o.close()
}

func appendWithdrawalsJSON(dst []byte, ws Withdrawals) []byte {
	dst = append(dst, '[')
	for i, w := range ws {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendWithdrawalJSON(dst, w)
	}
	return append(dst, ']')
}

// ---- transactions ----

// TxLocation places a transaction in a block. A nil *TxLocation renders
// the block fields as null (a pending transaction).
type TxLocation struct {
	BlockHash   Hash
	BlockNumber uint64
	BlockTime   uint64
	Index       uint64
	BaseFee     *uint256.Int // of the block; sets gasPrice to the price paid
}

// AppendTxJSON appends the transaction object of eth_getTransactionByHash.
func AppendTxJSON(dst []byte, tx *Transaction, from Address, loc *TxLocation) []byte {
	o := openObject(dst)
	if loc != nil {
		o.hash("blockHash", &loc.BlockHash)
		o.u64("blockNumber", loc.BlockNumber)
		o.u64("blockTimestamp", loc.BlockTime)
	} else {
		o.null("blockHash")
		o.null("blockNumber")
		o.null("blockTimestamp")
	}
	o.addr("from", &from)
	o.u64("gas", tx.Gas())
	t := tx.Type()
	switch t {
	case LegacyTxType, AccessListTxType:
		o.u256("gasPrice", tx.inner.gasPrice())
	default:
		// Inside a block the price actually paid; pending, the fee cap.
		if loc != nil && loc.BaseFee != nil {
			o.u256("gasPrice", tx.EffectiveGasPrice(loc.BaseFee))
		} else {
			o.u256("gasPrice", tx.inner.gasFeeCap())
		}
		o.u256("maxFeePerGas", tx.inner.gasFeeCap())
		o.u256("maxPriorityFeePerGas", tx.inner.gasTipCap())
		if t == BlobTxType {
			o.u256("maxFeePerBlobGas", tx.BlobGasFeeCap())
		}
	}
	h := tx.Hash()
	o.hash("hash", &h)
	o.data("input", tx.Data())
	o.u64("nonce", tx.Nonce())
	o.addr("to", tx.inner.to())
	if loc != nil {
		o.u64("transactionIndex", loc.Index)
	} else {
		o.null("transactionIndex")
	}
	o.u256("value", tx.inner.value())
	o.u64("type", uint64(t))
	if t != LegacyTxType {
		o.key("accessList")
		o.b = appendAccessListJSON(o.b, tx.AccessList())
	}
	if t != LegacyTxType || tx.Protected() {
		o.u256("chainId", tx.inner.chainID())
	}
	if t == BlobTxType {
		o.key("blobVersionedHashes")
		o.b = appendHashArray(o.b, tx.BlobHashes())
	}
	if t == SetCodeTxType {
		o.key("authorizationList")
		o.b = appendAuthListJSON(o.b, tx.AuthList())
	}
	v, r, s := tx.inner.rawSignatureValues()
	o.u256("v", v)
	o.u256("r", r)
	o.u256("s", s)
	if t != LegacyTxType {
		o.u256("yParity", v)
	}
	return o.close()
}

// TxJSON returns the transaction object.
func TxJSON(tx *Transaction, from Address, loc *TxLocation) json.RawMessage {
	return AppendTxJSON(nil, tx, from, loc)
}

func appendAccessListJSON(dst []byte, al AccessList) []byte {
	dst = append(dst, '[')
	for i := range al {
		if i > 0 {
			dst = append(dst, ',')
		}
		o := openObject(dst)
		o.addr("address", &al[i].Address)
		o.key("storageKeys")
		o.b = appendHashArray(o.b, al[i].StorageKeys)
		dst = o.close()
	}
	return append(dst, ']')
}

// AccessListJSON renders an access list (eth_createAccessList).
func AccessListJSON(al AccessList) json.RawMessage { return appendAccessListJSON(nil, al) }

func appendAuthListJSON(dst []byte, auths []SetCodeAuthorization) []byte {
	dst = append(dst, '[')
	for i := range auths {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendAuthJSON(dst, &auths[i])
	}
	return append(dst, ']')
}

func appendAuthJSON(dst []byte, a *SetCodeAuthorization) []byte {
	o := openObject(dst)
	o.u256("chainId", &a.ChainID)
	o.addr("address", &a.Address)
	o.u64("nonce", a.Nonce)
	o.u64("yParity", uint64(a.V))
	o.u256("r", &a.R)
	o.u256("s", &a.S)
	return o.close()
}

// ---- receipts and logs ----

// AppendReceiptJSON appends the receipt object of eth_getTransactionReceipt.
// The derived fields must be filled (see DeriveReceiptFields).
func AppendReceiptJSON(dst []byte, r *Receipt) []byte {
	o := openObject(dst)
	if r.Type == BlobTxType {
		o.u64("blobGasUsed", r.BlobGasUsed)
		o.u256("blobGasPrice", r.BlobGasPrice)
	}
	o.hash("blockHash", &r.BlockHash)
	o.u64("blockNumber", r.BlockNumber)
	o.addr("contractAddress", r.ContractAddress)
	o.u64("cumulativeGasUsed", r.CumulativeGasUsed)
	o.u256("effectiveGasPrice", r.EffectiveGasPrice)
	o.addr("from", &r.From)
	o.u64("gasUsed", r.GasUsed)
	o.key("logs")
	o.b = appendLogsJSON(o.b, r.Logs)
	o.data("logsBloom", r.Bloom[:])
	if len(r.PostState) > 0 {
		o.data("root", r.PostState)
	} else {
		o.u64("status", r.Status)
	}
	o.addr("to", r.To)
	o.hash("transactionHash", &r.TxHash)
	o.u64("transactionIndex", uint64(r.TransactionIndex))
	o.u64("type", uint64(r.Type))
	return o.close()
}

// ReceiptJSON returns the receipt object.
func ReceiptJSON(r *Receipt) json.RawMessage { return AppendReceiptJSON(nil, r) }

// AppendLogJSON appends a log object (eth_getLogs, receipts, subscriptions).
func AppendLogJSON(dst []byte, l *Log) []byte {
	o := openObject(dst)
	o.addr("address", &l.Address)
	o.key("topics")
	o.b = appendHashArray(o.b, l.Topics)
	o.data("data", l.Data)
	o.u64("blockNumber", l.BlockNumber)
	o.hash("transactionHash", &l.TxHash)
	o.u64("transactionIndex", uint64(l.TxIndex))
	o.hash("blockHash", &l.BlockHash)
	o.u64("blockTimestamp", l.BlockTimestamp)
	o.u64("logIndex", uint64(l.Index))
	o.boolean("removed", l.Removed)
	return o.close()
}

// LogJSON returns the log object.
func LogJSON(l *Log) json.RawMessage { return AppendLogJSON(nil, l) }

func appendLogsJSON(dst []byte, logs []*Log) []byte {
	dst = append(dst, '[')
	for i, l := range logs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendLogJSON(dst, l)
	}
	return append(dst, ']')
}

// LogsJSON renders a list of logs ([] when empty, never null).
func LogsJSON(logs []*Log) json.RawMessage { return appendLogsJSON(nil, logs) }

// MarshalJSON renders the log object, so a Log can be embedded in values
// passed to encoding/json.
func (l *Log) MarshalJSON() ([]byte, error) { return AppendLogJSON(nil, l), nil }

// MarshalJSON renders the receipt object.
func (r *Receipt) MarshalJSON() ([]byte, error) { return AppendReceiptJSON(nil, r), nil }

// MarshalJSON renders the withdrawal object.
func (w *Withdrawal) MarshalJSON() ([]byte, error) { return AppendWithdrawalJSON(nil, w), nil }

// MarshalJSON renders the header object.
func (h *Header) MarshalJSON() ([]byte, error) { return AppendHeaderJSON(nil, h, h.Hash(), false), nil }

// MarshalJSON renders the transaction object of a pending transaction
// (block fields null), with the sender recovered under the latest rules
// for the transaction's own chain. Use AppendTxJSON to place it in a block.
func (tx *Transaction) MarshalJSON() ([]byte, error) {
	from, _ := Sender(tx)
	return AppendTxJSON(nil, tx, from, nil), nil
}

// MarshalJSON renders the block object with transaction hashes.
func (b *Block) MarshalJSON() ([]byte, error) {
	return AppendBlockJSON(nil, b, BlockJSONOptions{}), nil
}
