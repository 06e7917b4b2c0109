package types

import (
	"slices"

	"github.com/chaind/chaind/rlp"
	"github.com/holiman/uint256"
)

// The TxData implementations. Each type lists its fields once in
// appendFields/fieldsSize and once in decodeRLP, in the order the EIPs give.

// ---- legacy ----

func (tx *LegacyTx) txType() byte { return LegacyTxType }

func (tx *LegacyTx) copy() TxData {
	c := *tx
	c.To = copyAddr(tx.To)
	c.Data = slices.Clone(tx.Data)
	return &c
}

func (tx *LegacyTx) chainID() *uint256.Int { return legacyChainID(&tx.V) }
func (tx *LegacyTx) nonce() uint64         { return tx.Nonce }
func (tx *LegacyTx) gasPrice() *uint256.Int {
	return &tx.GasPrice
}
func (tx *LegacyTx) gasTipCap() *uint256.Int { return &tx.GasPrice }
func (tx *LegacyTx) gasFeeCap() *uint256.Int { return &tx.GasPrice }
func (tx *LegacyTx) gas() uint64             { return tx.Gas }
func (tx *LegacyTx) to() *Address            { return tx.To }
func (tx *LegacyTx) value() *uint256.Int     { return &tx.Value }
func (tx *LegacyTx) data() []byte            { return tx.Data }
func (tx *LegacyTx) accessList() AccessList  { return nil }
func (tx *LegacyTx) rawSignatureValues() (v, r, s *uint256.Int) {
	return &tx.V, &tx.R, &tx.S
}
func (tx *LegacyTx) setSignatureValues(_, v, r, s *uint256.Int) {
	tx.V, tx.R, tx.S = *v, *r, *s
}

func (tx *LegacyTx) fieldsSize() int {
	return rlp.Uint64Size(tx.Nonce) + rlp.Uint256Size(&tx.GasPrice) + rlp.Uint64Size(tx.Gas) +
		optAddressSize(tx.To) + rlp.Uint256Size(&tx.Value) + rlp.StringSize(tx.Data)
}

func (tx *LegacyTx) appendFields(dst []byte) []byte {
	dst = rlp.AppendUint64(dst, tx.Nonce)
	dst = rlp.AppendUint256(dst, &tx.GasPrice)
	dst = rlp.AppendUint64(dst, tx.Gas)
	dst = appendOptAddress(dst, tx.To)
	dst = rlp.AppendUint256(dst, &tx.Value)
	return rlp.AppendString(dst, tx.Data)
}

func (tx *LegacyTx) decodeRLP(b []byte) error {
	d := decoder{b: b}
	tx.Nonce = d.uint64()
	d.u256(&tx.GasPrice)
	tx.Gas = d.uint64()
	tx.To = d.optAddress()
	d.u256(&tx.Value)
	tx.Data = d.bytes()
	d.u256(&tx.V)
	d.u256(&tx.R)
	d.u256(&tx.S)
	d.end()
	return d.err
}

// legacyChainID derives the chain id from an EIP-155 V (chainID*2+35/36);
// it is zero for an unprotected V.
func legacyChainID(v *uint256.Int) *uint256.Int {
	if !isProtectedV(v) {
		return new(uint256.Int)
	}
	c := new(uint256.Int).SubUint64(v, 35)
	return c.Rsh(c, 1)
}

// ---- EIP-2930 ----

func (tx *AccessListTx) txType() byte { return AccessListTxType }

func (tx *AccessListTx) copy() TxData {
	c := *tx
	c.To = copyAddr(tx.To)
	c.Data = slices.Clone(tx.Data)
	c.AccessList = copyAccessList(tx.AccessList)
	return &c
}

func (tx *AccessListTx) chainID() *uint256.Int   { return &tx.ChainID }
func (tx *AccessListTx) nonce() uint64           { return tx.Nonce }
func (tx *AccessListTx) gasPrice() *uint256.Int  { return &tx.GasPrice }
func (tx *AccessListTx) gasTipCap() *uint256.Int { return &tx.GasPrice }
func (tx *AccessListTx) gasFeeCap() *uint256.Int { return &tx.GasPrice }
func (tx *AccessListTx) gas() uint64             { return tx.Gas }
func (tx *AccessListTx) to() *Address            { return tx.To }
func (tx *AccessListTx) value() *uint256.Int     { return &tx.Value }
func (tx *AccessListTx) data() []byte            { return tx.Data }
func (tx *AccessListTx) accessList() AccessList  { return tx.AccessList }
func (tx *AccessListTx) rawSignatureValues() (v, r, s *uint256.Int) {
	return &tx.V, &tx.R, &tx.S
}
func (tx *AccessListTx) setSignatureValues(chainID, v, r, s *uint256.Int) {
	tx.ChainID, tx.V, tx.R, tx.S = *chainID, *v, *r, *s
}

func (tx *AccessListTx) fieldsSize() int {
	return rlp.Uint256Size(&tx.ChainID) + rlp.Uint64Size(tx.Nonce) + rlp.Uint256Size(&tx.GasPrice) +
		rlp.Uint64Size(tx.Gas) + optAddressSize(tx.To) + rlp.Uint256Size(&tx.Value) +
		rlp.StringSize(tx.Data) + accessListSize(tx.AccessList)
}

func (tx *AccessListTx) appendFields(dst []byte) []byte {
	dst = rlp.AppendUint256(dst, &tx.ChainID)
	dst = rlp.AppendUint64(dst, tx.Nonce)
	dst = rlp.AppendUint256(dst, &tx.GasPrice)
	dst = rlp.AppendUint64(dst, tx.Gas)
	dst = appendOptAddress(dst, tx.To)
	dst = rlp.AppendUint256(dst, &tx.Value)
	dst = rlp.AppendString(dst, tx.Data)
	return appendAccessList(dst, tx.AccessList)
}

func (tx *AccessListTx) decodeRLP(b []byte) error {
	d := decoder{b: b}
	d.u256(&tx.ChainID)
	tx.Nonce = d.uint64()
	d.u256(&tx.GasPrice)
	tx.Gas = d.uint64()
	tx.To = d.optAddress()
	d.u256(&tx.Value)
	tx.Data = d.bytes()
	tx.AccessList = d.accessList()
	d.u256(&tx.V)
	d.u256(&tx.R)
	d.u256(&tx.S)
	d.end()
	return d.err
}

// ---- EIP-1559 ----

func (tx *DynamicFeeTx) txType() byte { return DynamicFeeTxType }

func (tx *DynamicFeeTx) copy() TxData {
	c := *tx
	c.To = copyAddr(tx.To)
	c.Data = slices.Clone(tx.Data)
	c.AccessList = copyAccessList(tx.AccessList)
	return &c
}

func (tx *DynamicFeeTx) chainID() *uint256.Int   { return &tx.ChainID }
func (tx *DynamicFeeTx) nonce() uint64           { return tx.Nonce }
func (tx *DynamicFeeTx) gasPrice() *uint256.Int  { return &tx.GasFeeCap }
func (tx *DynamicFeeTx) gasTipCap() *uint256.Int { return &tx.GasTipCap }
func (tx *DynamicFeeTx) gasFeeCap() *uint256.Int { return &tx.GasFeeCap }
func (tx *DynamicFeeTx) gas() uint64             { return tx.Gas }
func (tx *DynamicFeeTx) to() *Address            { return tx.To }
func (tx *DynamicFeeTx) value() *uint256.Int     { return &tx.Value }
func (tx *DynamicFeeTx) data() []byte            { return tx.Data }
func (tx *DynamicFeeTx) accessList() AccessList  { return tx.AccessList }
func (tx *DynamicFeeTx) rawSignatureValues() (v, r, s *uint256.Int) {
	return &tx.V, &tx.R, &tx.S
}
func (tx *DynamicFeeTx) setSignatureValues(chainID, v, r, s *uint256.Int) {
	tx.ChainID, tx.V, tx.R, tx.S = *chainID, *v, *r, *s
}

func (tx *DynamicFeeTx) fieldsSize() int {
	return rlp.Uint256Size(&tx.ChainID) + rlp.Uint64Size(tx.Nonce) + rlp.Uint256Size(&tx.GasTipCap) +
		rlp.Uint256Size(&tx.GasFeeCap) + rlp.Uint64Size(tx.Gas) + optAddressSize(tx.To) +
		rlp.Uint256Size(&tx.Value) + rlp.StringSize(tx.Data) + accessListSize(tx.AccessList)
}

func (tx *DynamicFeeTx) appendFields(dst []byte) []byte {
	dst = rlp.AppendUint256(dst, &tx.ChainID)
	dst = rlp.AppendUint64(dst, tx.Nonce)
	dst = rlp.AppendUint256(dst, &tx.GasTipCap)
	dst = rlp.AppendUint256(dst, &tx.GasFeeCap)
	dst = rlp.AppendUint64(dst, tx.Gas)
	dst = appendOptAddress(dst, tx.To)
	dst = rlp.AppendUint256(dst, &tx.Value)
	dst = rlp.AppendString(dst, tx.Data)
	return appendAccessList(dst, tx.AccessList)
}

func (tx *DynamicFeeTx) decodeRLP(b []byte) error {
	d := decoder{b: b}
	d.u256(&tx.ChainID)
	tx.Nonce = d.uint64()
	d.u256(&tx.GasTipCap)
	d.u256(&tx.GasFeeCap)
	tx.Gas = d.uint64()
	tx.To = d.optAddress()
	d.u256(&tx.Value)
	tx.Data = d.bytes()
	tx.AccessList = d.accessList()
	d.u256(&tx.V)
	d.u256(&tx.R)
	d.u256(&tx.S)
	d.end()
	return d.err
}

// ---- EIP-4844 ----

func (tx *BlobTx) txType() byte { return BlobTxType }

func (tx *BlobTx) copy() TxData {
	c := *tx
	c.Data = slices.Clone(tx.Data)
	c.AccessList = copyAccessList(tx.AccessList)
	c.BlobHashes = slices.Clone(tx.BlobHashes)
	return &c
}

func (tx *BlobTx) chainID() *uint256.Int   { return &tx.ChainID }
func (tx *BlobTx) nonce() uint64           { return tx.Nonce }
func (tx *BlobTx) gasPrice() *uint256.Int  { return &tx.GasFeeCap }
func (tx *BlobTx) gasTipCap() *uint256.Int { return &tx.GasTipCap }
func (tx *BlobTx) gasFeeCap() *uint256.Int { return &tx.GasFeeCap }
func (tx *BlobTx) gas() uint64             { return tx.Gas }
func (tx *BlobTx) to() *Address            { return &tx.To }
func (tx *BlobTx) value() *uint256.Int     { return &tx.Value }
func (tx *BlobTx) data() []byte            { return tx.Data }
func (tx *BlobTx) accessList() AccessList  { return tx.AccessList }
func (tx *BlobTx) rawSignatureValues() (v, r, s *uint256.Int) {
	return &tx.V, &tx.R, &tx.S
}
func (tx *BlobTx) setSignatureValues(chainID, v, r, s *uint256.Int) {
	tx.ChainID, tx.V, tx.R, tx.S = *chainID, *v, *r, *s
}

func (tx *BlobTx) fieldsSize() int {
	return rlp.Uint256Size(&tx.ChainID) + rlp.Uint64Size(tx.Nonce) + rlp.Uint256Size(&tx.GasTipCap) +
		rlp.Uint256Size(&tx.GasFeeCap) + rlp.Uint64Size(tx.Gas) + addressSize +
		rlp.Uint256Size(&tx.Value) + rlp.StringSize(tx.Data) + accessListSize(tx.AccessList) +
		rlp.Uint256Size(&tx.BlobFeeCap) + hashesSize(tx.BlobHashes)
}

func (tx *BlobTx) appendFields(dst []byte) []byte {
	dst = rlp.AppendUint256(dst, &tx.ChainID)
	dst = rlp.AppendUint64(dst, tx.Nonce)
	dst = rlp.AppendUint256(dst, &tx.GasTipCap)
	dst = rlp.AppendUint256(dst, &tx.GasFeeCap)
	dst = rlp.AppendUint64(dst, tx.Gas)
	dst = appendAddress(dst, &tx.To)
	dst = rlp.AppendUint256(dst, &tx.Value)
	dst = rlp.AppendString(dst, tx.Data)
	dst = appendAccessList(dst, tx.AccessList)
	dst = rlp.AppendUint256(dst, &tx.BlobFeeCap)
	return appendHashes(dst, tx.BlobHashes)
}

func (tx *BlobTx) decodeRLP(b []byte) error {
	d := decoder{b: b}
	d.u256(&tx.ChainID)
	tx.Nonce = d.uint64()
	d.u256(&tx.GasTipCap)
	d.u256(&tx.GasFeeCap)
	tx.Gas = d.uint64()
	if to := d.optAddress(); to != nil {
		tx.To = *to
	} else if d.err == nil {
		d.fail(ErrBlobTxCreate)
	}
	d.u256(&tx.Value)
	tx.Data = d.bytes()
	tx.AccessList = d.accessList()
	d.u256(&tx.BlobFeeCap)
	tx.BlobHashes = d.hashes()
	d.u256(&tx.V)
	d.u256(&tx.R)
	d.u256(&tx.S)
	d.end()
	return d.err
}

// ---- EIP-7702 ----

func (tx *SetCodeTx) txType() byte { return SetCodeTxType }

func (tx *SetCodeTx) copy() TxData {
	c := *tx
	c.Data = slices.Clone(tx.Data)
	c.AccessList = copyAccessList(tx.AccessList)
	c.AuthList = slices.Clone(tx.AuthList)
	return &c
}

func (tx *SetCodeTx) chainID() *uint256.Int   { return &tx.ChainID }
func (tx *SetCodeTx) nonce() uint64           { return tx.Nonce }
func (tx *SetCodeTx) gasPrice() *uint256.Int  { return &tx.GasFeeCap }
func (tx *SetCodeTx) gasTipCap() *uint256.Int { return &tx.GasTipCap }
func (tx *SetCodeTx) gasFeeCap() *uint256.Int { return &tx.GasFeeCap }
func (tx *SetCodeTx) gas() uint64             { return tx.Gas }
func (tx *SetCodeTx) to() *Address            { return &tx.To }
func (tx *SetCodeTx) value() *uint256.Int     { return &tx.Value }
func (tx *SetCodeTx) data() []byte            { return tx.Data }
func (tx *SetCodeTx) accessList() AccessList  { return tx.AccessList }
func (tx *SetCodeTx) rawSignatureValues() (v, r, s *uint256.Int) {
	return &tx.V, &tx.R, &tx.S
}
func (tx *SetCodeTx) setSignatureValues(chainID, v, r, s *uint256.Int) {
	tx.ChainID, tx.V, tx.R, tx.S = *chainID, *v, *r, *s
}

func authListContentSize(al []SetCodeAuthorization) int {
	n := 0
	for i := range al {
		n += rlp.ListSize(al[i].contentSize())
	}
	return n
}

func (tx *SetCodeTx) fieldsSize() int {
	return rlp.Uint256Size(&tx.ChainID) + rlp.Uint64Size(tx.Nonce) + rlp.Uint256Size(&tx.GasTipCap) +
		rlp.Uint256Size(&tx.GasFeeCap) + rlp.Uint64Size(tx.Gas) + addressSize +
		rlp.Uint256Size(&tx.Value) + rlp.StringSize(tx.Data) + accessListSize(tx.AccessList) +
		rlp.ListSize(authListContentSize(tx.AuthList))
}

func (tx *SetCodeTx) appendFields(dst []byte) []byte {
	dst = rlp.AppendUint256(dst, &tx.ChainID)
	dst = rlp.AppendUint64(dst, tx.Nonce)
	dst = rlp.AppendUint256(dst, &tx.GasTipCap)
	dst = rlp.AppendUint256(dst, &tx.GasFeeCap)
	dst = rlp.AppendUint64(dst, tx.Gas)
	dst = appendAddress(dst, &tx.To)
	dst = rlp.AppendUint256(dst, &tx.Value)
	dst = rlp.AppendString(dst, tx.Data)
	dst = appendAccessList(dst, tx.AccessList)
	dst = rlp.AppendListHeader(dst, authListContentSize(tx.AuthList))
	for i := range tx.AuthList {
		dst = tx.AuthList[i].appendRLP(dst)
	}
	return dst
}

func (tx *SetCodeTx) decodeRLP(b []byte) error {
	d := decoder{b: b}
	d.u256(&tx.ChainID)
	tx.Nonce = d.uint64()
	d.u256(&tx.GasTipCap)
	d.u256(&tx.GasFeeCap)
	tx.Gas = d.uint64()
	if to := d.optAddress(); to != nil {
		tx.To = *to
	} else if d.err == nil {
		d.fail(ErrSetCodeTxCreate)
	}
	d.u256(&tx.Value)
	tx.Data = d.bytes()
	tx.AccessList = d.accessList()
	if c := d.list(); d.err == nil {
		tx.AuthList = []SetCodeAuthorization{}
		ld := decoder{b: c}
		for ld.more() {
			var a SetCodeAuthorization
			ld.fail(a.decodeRLP(ld.list()))
			tx.AuthList = append(tx.AuthList, a)
		}
		d.fail(ld.err)
	}
	d.u256(&tx.V)
	d.u256(&tx.R)
	d.u256(&tx.S)
	d.end()
	return d.err
}

// ---- SetCodeAuthorization ----

func (a *SetCodeAuthorization) unsignedContentSize() int {
	return rlp.Uint256Size(&a.ChainID) + addressSize + rlp.Uint64Size(a.Nonce)
}

func (a *SetCodeAuthorization) contentSize() int {
	return a.unsignedContentSize() + rlp.Uint64Size(uint64(a.V)) + rlp.Uint256Size(&a.R) + rlp.Uint256Size(&a.S)
}

func (a *SetCodeAuthorization) appendRLP(dst []byte) []byte {
	dst = rlp.AppendListHeader(dst, a.contentSize())
	dst = rlp.AppendUint256(dst, &a.ChainID)
	dst = appendAddress(dst, &a.Address)
	dst = rlp.AppendUint64(dst, a.Nonce)
	dst = rlp.AppendUint64(dst, uint64(a.V))
	dst = rlp.AppendUint256(dst, &a.R)
	return rlp.AppendUint256(dst, &a.S)
}

func (a *SetCodeAuthorization) decodeRLP(b []byte) error {
	d := decoder{b: b}
	d.u256(&a.ChainID)
	d.address(&a.Address)
	a.Nonce = d.uint64()
	a.V = d.uint8()
	d.u256(&a.R)
	d.u256(&a.S)
	d.end()
	return d.err
}

func copyAddr(a *Address) *Address {
	if a == nil {
		return nil
	}
	c := *a
	return &c
}

func copyAccessList(al AccessList) AccessList {
	if al == nil {
		return nil
	}
	c := make(AccessList, len(al))
	for i, t := range al {
		c[i] = AccessTuple{Address: t.Address, StorageKeys: slices.Clone(t.StorageKeys)}
	}
	return c
}
