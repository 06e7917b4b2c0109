package state

import (
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rlp"
	"github.com/holiman/uint256"
)

// EmptyRoot is the root of an empty trie: keccak256(rlp("")).
var EmptyRoot = types.Hash(crypto.Keccak256([]byte{0x80}))

// EmptyCodeHash is keccak256 of empty code, the code hash of every account
// without code.
var EmptyCodeHash = types.Hash(crypto.Keccak256(nil))

// Account is the consensus form of an account as the state trie stores it.
type Account struct {
	Nonce    uint64
	Balance  uint256.Int
	Root     types.Hash // root of the account's storage trie
	CodeHash types.Hash
}

// newAccount returns the account a fresh address gets: no storage, no code.
func newAccount() Account {
	return Account{Root: EmptyRoot, CodeHash: EmptyCodeHash}
}

// ErrBadAccount is returned when an account leaf of the state trie does not
// decode as [nonce, balance, storageRoot, codeHash].
var ErrBadAccount = errors.New("state: malformed account encoding")

// AppendRLP appends RLP([nonce, balance, root, codeHash]) to dst.
func (a *Account) AppendRLP(dst []byte) []byte {
	size := rlp.Uint64Size(a.Nonce) + rlp.Uint256Size(&a.Balance) + 2*33
	dst = rlp.AppendListHeader(dst, size)
	dst = rlp.AppendUint64(dst, a.Nonce)
	dst = rlp.AppendUint256(dst, &a.Balance)
	dst = rlp.AppendString(dst, a.Root[:])
	return rlp.AppendString(dst, a.CodeHash[:])
}

// DecodeAccount parses the RLP form written by AppendRLP.
func DecodeAccount(b []byte) (Account, error) {
	var a Account
	content, rest, err := rlp.SplitList(b)
	if err != nil {
		return a, fmt.Errorf("%w: %w", ErrBadAccount, err)
	}
	if len(rest) != 0 {
		return a, fmt.Errorf("%w: %w", ErrBadAccount, rlp.ErrTrailingBytes)
	}
	if a.Nonce, content, err = rlp.SplitUint64(content); err != nil {
		return a, fmt.Errorf("%w: nonce: %w", ErrBadAccount, err)
	}
	if content, err = rlp.SplitUint256(content, &a.Balance); err != nil {
		return a, fmt.Errorf("%w: balance: %w", ErrBadAccount, err)
	}
	var root, code []byte
	if root, content, err = rlp.SplitString(content); err != nil || len(root) != 32 {
		return a, fmt.Errorf("%w: storage root", ErrBadAccount)
	}
	if code, content, err = rlp.SplitString(content); err != nil || len(code) != 32 {
		return a, fmt.Errorf("%w: code hash", ErrBadAccount)
	}
	if len(content) != 0 {
		return a, fmt.Errorf("%w: %w", ErrBadAccount, rlp.ErrTrailingBytes)
	}
	copy(a.Root[:], root)
	copy(a.CodeHash[:], code)
	return a, nil
}

// isEmpty is EIP-161 emptiness: no nonce, no balance, no code.
func (a *Account) isEmpty() bool {
	return a.Nonce == 0 && a.Balance.IsZero() && a.CodeHash == EmptyCodeHash
}

// appendStorageValue appends rlp(value as a minimal big-endian integer),
// the form storage slots take in the storage trie.
func appendStorageValue(dst []byte, v *types.Hash) []byte {
	i := 0
	for i < len(v) && v[i] == 0 {
		i++
	}
	return rlp.AppendString(dst, v[i:])
}

// AppendStorageValue appends a slot's value as the storage trie (and the
// flat copy) stores it, for states written without a StateDB (a streamed
// genesis).
func AppendStorageValue(dst []byte, v *types.Hash) []byte { return appendStorageValue(dst, v) }

// decodeStorageValue reverses appendStorageValue.
func decodeStorageValue(b []byte) (types.Hash, error) {
	content, rest, err := rlp.SplitString(b)
	if err != nil {
		return types.Hash{}, err
	}
	if len(rest) != 0 {
		return types.Hash{}, rlp.ErrTrailingBytes
	}
	if len(content) > 32 {
		return types.Hash{}, rlp.ErrUintOverflow
	}
	if len(content) > 0 && content[0] == 0 {
		return types.Hash{}, rlp.ErrCanonInt // zero slots are absent, never stored
	}
	return types.BytesToHash(content), nil
}
