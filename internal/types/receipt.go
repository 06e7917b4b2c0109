package types

import (
	"bytes"
	"errors"

	"github.com/chaind/chaind/rlp"
	"github.com/holiman/uint256"
)

// Receipt statuses (EIP-658).
const (
	ReceiptStatusFailed     = 0
	ReceiptStatusSuccessful = 1
)

// Errors of receipt decoding.
var (
	ErrReceiptStatus = errors.New("types: receipt status must be empty, 0x01 or a 32-byte state root")
)

// Receipt is the outcome of one transaction. The consensus fields are
// Type, PostState/Status, CumulativeGasUsed, Bloom and Logs; the rest is
// derived from the block and transaction (see DeriveReceiptFields).
type Receipt struct {
	Type              uint8
	PostState         []byte // pre-Byzantium state root; when set it replaces Status
	Status            uint64
	CumulativeGasUsed uint64
	Bloom             Bloom
	Logs              []*Log

	// Derived fields.
	TxHash            Hash
	ContractAddress   *Address // set when the transaction created a contract
	GasUsed           uint64
	EffectiveGasPrice *uint256.Int
	BlobGasUsed       uint64
	BlobGasPrice      *uint256.Int // set for blob transactions
	From              Address
	To                *Address
	BlockHash         Hash
	BlockNumber       uint64
	TransactionIndex  uint
}

// Receipts is the list of receipts of one block.
type Receipts []*Receipt

func (r *Receipt) statusSize() int {
	if len(r.PostState) > 0 {
		return rlp.StringSize(r.PostState)
	}
	return 1
}

func (r *Receipt) appendStatus(dst []byte) []byte {
	if len(r.PostState) > 0 {
		return rlp.AppendString(dst, r.PostState)
	}
	if r.Status == ReceiptStatusSuccessful {
		return append(dst, 0x01)
	}
	return append(dst, 0x80)
}

func (d *decoder) receiptStatus(r *Receipt) {
	s := d.bytes()
	if d.err != nil {
		return
	}
	switch {
	case len(s) == 0:
		r.Status = ReceiptStatusFailed
	case len(s) == 1 && s[0] == 1:
		r.Status = ReceiptStatusSuccessful
	case len(s) == 32:
		r.PostState = bytes.Clone(s)
		r.Status = ReceiptStatusSuccessful
	default:
		d.fail(ErrReceiptStatus)
	}
}

func logContentSize(l *Log) int {
	return addressSize + hashesSize(l.Topics) + rlp.StringSize(l.Data)
}

func logsContentSize(logs []*Log) int {
	n := 0
	for _, l := range logs {
		n += rlp.ListSize(logContentSize(l))
	}
	return n
}

func appendLogs(dst []byte, logs []*Log) []byte {
	dst = rlp.AppendListHeader(dst, logsContentSize(logs))
	for _, l := range logs {
		dst = rlp.AppendListHeader(dst, logContentSize(l))
		dst = appendAddress(dst, &l.Address)
		dst = appendHashes(dst, l.Topics)
		dst = rlp.AppendString(dst, l.Data)
	}
	return dst
}

func (d *decoder) logs() []*Log {
	c := d.list()
	if d.err != nil {
		return nil
	}
	logs := []*Log{}
	ld := decoder{b: c}
	for ld.more() {
		lc := ld.list()
		if ld.err != nil {
			break
		}
		l := new(Log)
		e := decoder{b: lc}
		e.address(&l.Address)
		l.Topics = e.hashes()
		l.Data = bytes.Clone(e.bytes())
		e.end()
		ld.fail(e.err)
		logs = append(logs, l)
	}
	d.fail(ld.err)
	return logs
}

func (r *Receipt) consensusContentSize() int {
	return r.statusSize() + rlp.Uint64Size(r.CumulativeGasUsed) + 3 + BloomLength +
		rlp.ListSize(logsContentSize(r.Logs))
}

// MarshalBinary returns the consensus encoding that the receipts root
// commits to: rlp([status, cumulativeGasUsed, bloom, logs]), prefixed by
// the type byte for typed transactions.
func (r *Receipt) MarshalBinary() ([]byte, error) {
	return r.AppendBinary(nil), nil
}

// AppendBinary appends the consensus encoding (see MarshalBinary).
func (r *Receipt) AppendBinary(dst []byte) []byte {
	size := rlp.ListSize(r.consensusContentSize())
	if r.Type != LegacyTxType {
		size++
	}
	dst = growBy(dst, size)
	if r.Type != LegacyTxType {
		dst = append(dst, r.Type)
	}
	dst = rlp.AppendListHeader(dst, r.consensusContentSize())
	dst = r.appendStatus(dst)
	dst = rlp.AppendUint64(dst, r.CumulativeGasUsed)
	dst = append(dst, 0xb9, 0x01, 0x00)
	dst = append(dst, r.Bloom[:]...)
	return appendLogs(dst, r.Logs)
}

// UnmarshalBinary decodes the consensus encoding.
func (r *Receipt) UnmarshalBinary(b []byte) error {
	if len(b) == 0 {
		return decodeErr("receipt", rlp.ErrEmptyInput)
	}
	*r = Receipt{}
	if b[0] < 0x80 {
		r.Type = b[0]
		if r.Type > SetCodeTxType || r.Type == LegacyTxType {
			return decodeErr("receipt", ErrTxTypeNotSupported)
		}
		b = b[1:]
	}
	content, err := splitOneList(b)
	if err != nil {
		return decodeErr("receipt", err)
	}
	d := decoder{b: content}
	d.receiptStatus(r)
	r.CumulativeGasUsed = d.uint64()
	d.fixed(r.Bloom[:], ErrBloomLength)
	r.Logs = d.logs()
	d.end()
	return decodeErr("receipt", d.err)
}

// EncodeForStorage returns the compact form a node stores: rlp([type,
// status, cumulativeGasUsed, logs]). The bloom is recomputed from the logs
// on load and the derived fields come from the block.
func (r *Receipt) EncodeForStorage() []byte {
	content := rlp.Uint64Size(uint64(r.Type)) + r.statusSize() + rlp.Uint64Size(r.CumulativeGasUsed) +
		rlp.ListSize(logsContentSize(r.Logs))
	dst := make([]byte, 0, rlp.ListSize(content))
	dst = rlp.AppendListHeader(dst, content)
	dst = rlp.AppendUint64(dst, uint64(r.Type))
	dst = r.appendStatus(dst)
	dst = rlp.AppendUint64(dst, r.CumulativeGasUsed)
	return appendLogs(dst, r.Logs)
}

// DecodeReceiptFromStorage decodes EncodeForStorage's form and restores
// the bloom.
func DecodeReceiptFromStorage(b []byte) (*Receipt, error) {
	content, err := splitOneList(b)
	if err != nil {
		return nil, decodeErr("stored receipt", err)
	}
	r := new(Receipt)
	d := decoder{b: content}
	r.Type = d.uint8()
	d.receiptStatus(r)
	r.CumulativeGasUsed = d.uint64()
	r.Logs = d.logs()
	d.end()
	if d.err != nil {
		return nil, decodeErr("stored receipt", d.err)
	}
	r.Bloom = LogsBloom(r.Logs)
	return r, nil
}

// DeriveReceiptFields fills the derived fields of a block's receipts from
// the block and its transactions: hashes, indexes, per-transaction gas,
// prices, created contract addresses, and the position fields of every log.
// blobGasPrice may be nil before Cancun. baseFee may be nil before London.
func DeriveReceiptFields(receipts []*Receipt, blockHash Hash, number, time uint64, baseFee, blobGasPrice *uint256.Int, txs []*Transaction, signer Signer) error {
	if len(receipts) != len(txs) {
		return errors.New("types: receipt and transaction counts differ")
	}
	logIndex := uint(0)
	for i, r := range receipts {
		tx := txs[i]
		r.Type = tx.Type()
		r.TxHash = tx.Hash()
		r.BlockHash = blockHash
		r.BlockNumber = number
		r.TransactionIndex = uint(i)
		r.EffectiveGasPrice = tx.EffectiveGasPrice(baseFee)
		if tx.Type() == BlobTxType {
			r.BlobGasUsed = tx.BlobGas()
			if blobGasPrice != nil {
				r.BlobGasPrice = new(uint256.Int).Set(blobGasPrice)
			}
		}
		from, err := signer.Sender(tx)
		if err != nil {
			return err
		}
		r.From = from
		r.To = tx.To()
		r.ContractAddress = nil
		if r.To == nil {
			a := CreateAddress(from, tx.Nonce())
			r.ContractAddress = &a
		}
		r.GasUsed = r.CumulativeGasUsed
		if i > 0 {
			r.GasUsed -= receipts[i-1].CumulativeGasUsed
		}
		for _, l := range r.Logs {
			l.BlockNumber = number
			l.BlockHash = blockHash
			l.BlockTimestamp = time
			l.TxHash = r.TxHash
			l.TxIndex = uint(i)
			l.Index = logIndex
			logIndex++
		}
	}
	return nil
}

func growBy(dst []byte, n int) []byte {
	if cap(dst)-len(dst) >= n {
		return dst
	}
	nb := make([]byte, len(dst), len(dst)+n)
	copy(nb, dst)
	return nb
}
