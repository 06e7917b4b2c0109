package types

import "github.com/chaind/chaind/rlp"

// ListHasher builds the root of an ordered list (transactions, receipts,
// withdrawals): a Merkle-Patricia trie keyed by rlp(index). types cannot
// import the trie package (both sit on the same layer), so the trie's
// stack trie is plugged in through this interface.
type ListHasher interface {
	Reset()
	Update(key, value []byte) error
	Hash() [32]byte
}

// DeriveRoot returns the root of a list of n items, where item(i, buf)
// appends the encoding of item i to buf and returns it. Every key and value
// handed to Update is a fresh slice, so the hasher may keep them. Keys are
// inserted in ascending byte order of rlp(i) (1..127, then 0, then 128 on),
// so a hasher that needs sorted input, like a stack trie, works.
func DeriveRoot(n int, item func(i int, buf []byte) []byte, h ListHasher) Hash {
	h.Reset()
	put := func(i int) {
		key := rlp.AppendUint64(nil, uint64(i))
		val := item(i, nil)
		// Errors cannot happen for distinct, sorted keys; a hasher that
		// fails anyway yields a root that will not match any block.
		_ = h.Update(key, val)
	}
	for i := 1; i < n && i <= 0x7f; i++ {
		put(i)
	}
	if n > 0 {
		put(0)
	}
	for i := 0x80; i < n; i++ {
		put(i)
	}
	return Hash(h.Hash())
}

// DeriveTxRoot is DeriveRoot over transactions in their binary encoding.
func DeriveTxRoot(txs []*Transaction, h ListHasher) Hash {
	return DeriveRoot(len(txs), func(i int, buf []byte) []byte { return txs[i].appendBinary(buf) }, h)
}

// DeriveReceiptRoot is DeriveRoot over receipts in their consensus encoding.
func DeriveReceiptRoot(receipts []*Receipt, h ListHasher) Hash {
	return DeriveRoot(len(receipts), func(i int, buf []byte) []byte { return receipts[i].AppendBinary(buf) }, h)
}

// DeriveWithdrawalsRoot is DeriveRoot over withdrawals.
func DeriveWithdrawalsRoot(ws []*Withdrawal, h ListHasher) Hash {
	return DeriveRoot(len(ws), func(i int, buf []byte) []byte { return ws[i].AppendRLP(buf) }, h)
}
