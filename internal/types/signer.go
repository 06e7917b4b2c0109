package types

import (
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/rlp"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/holiman/uint256"
)

// Errors of signature checking.
var (
	ErrInvalidChainID = errors.New("types: invalid chain id for signer")
	ErrInvalidSig     = errors.New("types: invalid transaction v, r, s values")
	ErrSigLength      = errors.New("types: signature must be 65 bytes")
)

// Signer checks and produces transaction signatures under the rules of one
// chain and fork. It is a small value; copy it freely.
type Signer struct {
	chainID  uint256.Int
	chainMul uint256.Int // chainID * 2, for EIP-155 V values
	fork     forks.Fork
	// impersonation accepts the marker signature of ImpersonatedSignature
	// (a development chain's impersonated accounts).
	impersonation bool
}

// NewSigner returns the signer for chainID under the rules of fork:
// low-s signatures from Homestead, EIP-155 replay protection from
// SpuriousDragon, and each transaction type from the fork that introduced
// it.
func NewSigner(chainID uint64, fork forks.Fork) Signer {
	s := Signer{fork: fork}
	s.chainID.SetUint64(chainID)
	s.chainMul.Lsh(&s.chainID, 1)
	return s
}

// LatestSigner accepts every transaction type this package knows.
func LatestSigner(chainID uint64) Signer { return NewSigner(chainID, forks.Latest) }

// ChainID returns the chain id the signer checks against.
func (s Signer) ChainID() *uint256.Int { return new(uint256.Int).Set(&s.chainID) }

// Fork returns the rule set of the signer.
func (s Signer) Fork() forks.Fork { return s.fork }

// Supports reports whether the signer's fork knows transaction type t.
func (s Signer) Supports(t uint8) bool {
	switch t {
	case LegacyTxType:
		return true
	case AccessListTxType:
		return s.fork >= forks.Berlin
	case DynamicFeeTxType:
		return s.fork >= forks.London
	case BlobTxType:
		return s.fork >= forks.Cancun
	case SetCodeTxType:
		return s.fork >= forks.Prague
	}
	return false
}

// SigningHash returns the digest the sender signed. For a legacy
// transaction the signer's chain id is included when the transaction is
// replay-protected (or, for an unsigned one, when the signer applies
// EIP-155 and has a chain id).
//
// A typed transaction is hashed with the signer's chain id, whatever its
// own says (SignTx fills it in; Sender rejects a mismatch before hashing).
func (s Signer) SigningHash(tx *Transaction) Hash {
	if tx.Type() == LegacyTxType {
		if s.legacyProtected(tx) {
			return tx.signingHash(&s.chainID)
		}
		return tx.signingHash(nil)
	}
	if !tx.inner.chainID().Eq(&s.chainID) {
		inner := tx.inner.copy()
		v, r, sv := inner.rawSignatureValues()
		inner.setSignatureValues(&s.chainID, v, r, sv)
		tx = &Transaction{inner: inner}
	}
	return tx.signingHash(nil)
}

func (s Signer) legacyProtected(tx *Transaction) bool {
	v, r, sv := tx.inner.rawSignatureValues()
	if v.IsZero() && r.IsZero() && sv.IsZero() {
		// unsigned: sign the way SignatureValues will fill V in
		return s.fork >= forks.SpuriousDragon && !s.chainID.IsZero()
	}
	return isProtectedV(v)
}

func (tx *Transaction) signingHash(legacyChainID *uint256.Int) Hash {
	size := tx.inner.fieldsSize() + 6 + 33 // header and chain-id room
	buf := make([]byte, 0, size)
	buf = tx.appendSigningPayload(buf, legacyChainID)
	return Hash(crypto.Keccak256(buf))
}

// Sender returns the address that signed tx, checking the type, the chain
// id and the signature values against the signer's rules. The result is
// cached in tx.
func (s Signer) Sender(tx *Transaction) (Address, error) {
	if c := tx.from.Load(); c != nil && c.chainID.Eq(&s.chainID) && c.lowS == (s.fork >= forks.Homestead) && (!c.imp || s.impersonation) && s.Supports(tx.Type()) {
		return c.from, nil
	}
	from, err := s.recoverSender(tx)
	if err != nil {
		return Address{}, err
	}
	tx.from.Store(&senderCache{chainID: s.chainID, lowS: s.fork >= forks.Homestead, imp: s.impersonation, from: from})
	return from, nil
}

func (s Signer) recoverSender(tx *Transaction) (Address, error) {
	if !s.Supports(tx.Type()) {
		return Address{}, ErrTxTypeNotSupported
	}
	v, r, sv := tx.inner.rawSignatureValues()
	var recID uint256.Int
	var legacyChain *uint256.Int
	if tx.Type() == LegacyTxType {
		if isProtectedV(v) {
			if s.fork < forks.SpuriousDragon {
				return Address{}, ErrInvalidChainID
			}
			// V = chainID*2 + 35 + recid
			if v.Lt(uint256.NewInt(35)) {
				return Address{}, ErrInvalidSig
			}
			recID.SubUint64(v, 35)
			if _, under := recID.SubOverflow(&recID, &s.chainMul); under || recID.GtUint64(1) {
				return Address{}, ErrInvalidChainID
			}
			legacyChain = &s.chainID
		} else {
			x := v.Uint64()
			if x != 27 && x != 28 {
				return Address{}, ErrInvalidSig
			}
			recID.SetUint64(x - 27)
		}
	} else {
		if !tx.inner.chainID().Eq(&s.chainID) {
			return Address{}, ErrInvalidChainID
		}
		if v.GtUint64(1) {
			return Address{}, ErrInvalidSig
		}
		recID.Set(v)
	}
	if s.impersonation && recID.IsZero() {
		if a, ok := impersonatedSender(r, sv); ok {
			return a, nil
		}
	}
	return recoverPlain(tx.signingHash(legacyChain), r, sv, byte(recID.Uint64()), s.fork >= forks.Homestead)
}

// recoverPlain checks the signature values (crypto.ValidateSignatureValues:
// v in {0,1}, r and s in [1, N-1], since Homestead s ≤ N/2) and recovers
// the signer.
func recoverPlain(digest Hash, r, s *uint256.Int, v byte, homestead bool) (Address, error) {
	var sig [65]byte
	rb, sb := r.Bytes32(), s.Bytes32()
	if err := crypto.ValidateSignatureValues(v, &rb, &sb, homestead); err != nil {
		return Address{}, fmt.Errorf("%w: %w", ErrInvalidSig, err)
	}
	copy(sig[:32], rb[:])
	copy(sig[32:64], sb[:])
	sig[64] = v
	a, err := crypto.RecoverAddress(digest, sig[:])
	if err != nil {
		return Address{}, fmt.Errorf("%w: %w", ErrInvalidSig, err)
	}
	return Address(a), nil
}

// secp256k1N is the order of the curve; secp256k1HalfN is N/2 (used by
// tests and to flip signatures).
var (
	secp256k1N     = uint256.MustFromHex("0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")
	secp256k1HalfN = new(uint256.Int).Rsh(secp256k1N, 1)
)

// SignatureValues turns a 65-byte R || S || V signature (V in {0,1}) into
// the V, R, S values tx stores under this signer.
func (s Signer) SignatureValues(tx *Transaction, sig []byte) (r, sv, v *uint256.Int, err error) {
	if len(sig) != 65 {
		return nil, nil, nil, ErrSigLength
	}
	if !s.Supports(tx.Type()) {
		return nil, nil, nil, ErrTxTypeNotSupported
	}
	r = new(uint256.Int).SetBytes(sig[:32])
	sv = new(uint256.Int).SetBytes(sig[32:64])
	v = new(uint256.Int).SetUint64(uint64(sig[64]))
	if tx.Type() == LegacyTxType {
		if s.legacyProtected(tx) {
			v.AddUint64(v, 35)
			v.Add(v, &s.chainMul)
		} else {
			v.AddUint64(v, 27)
		}
		return r, sv, v, nil
	}
	if c := tx.inner.chainID(); !c.IsZero() && !c.Eq(&s.chainID) {
		return nil, nil, nil, ErrInvalidChainID
	}
	return r, sv, v, nil
}

// SignTx signs tx with key under signer s and returns the signed copy.
func SignTx(tx *Transaction, s Signer, key *secp256k1.PrivateKey) (*Transaction, error) {
	h := s.SigningHash(tx)
	sig := crypto.Sign(h, key)
	return tx.WithSignature(s, sig[:])
}

// MustSignNewTx builds and signs a transaction; it panics on error and is
// meant for tests and tools.
func MustSignNewTx(key *secp256k1.PrivateKey, s Signer, inner TxData) *Transaction {
	tx, err := SignTx(NewTx(inner), s, key)
	if err != nil {
		panic(err)
	}
	return tx
}

// Sender returns the cached sender, or recovers it with a signer for the
// transaction's own chain id under the latest rules. Consensus code should
// use Signer.Sender with the chain's signer instead.
func Sender(tx *Transaction) (Address, error) {
	if c := tx.from.Load(); c != nil {
		return c.from, nil
	}
	cid := tx.inner.chainID()
	if !cid.IsUint64() {
		return Address{}, ErrInvalidChainID
	}
	// Display only: a transaction reaches here after a chain's own signer
	// accepted it, so an impersonated one is shown with its sender.
	return LatestSigner(cid.Uint64()).WithImpersonation().Sender(tx)
}

// ---- EIP-7702 authorizations ----

// SetCodeMagic prefixes the payload an authorization signature covers.
const SetCodeMagic = 0x05

// SigningHash returns keccak256(0x05 || rlp([chain_id, address, nonce])).
func (a *SetCodeAuthorization) SigningHash() Hash {
	buf := make([]byte, 0, 1+3+a.unsignedContentSize())
	buf = append(buf, SetCodeMagic)
	buf = rlp.AppendListHeader(buf, a.unsignedContentSize())
	buf = rlp.AppendUint256(buf, &a.ChainID)
	buf = appendAddress(buf, &a.Address)
	buf = rlp.AppendUint64(buf, a.Nonce)
	return Hash(crypto.Keccak256(buf))
}

// Authority recovers the account that signed the authorization. EIP-7702
// requires s ≤ N/2 and y parity 0 or 1.
func (a *SetCodeAuthorization) Authority() (Address, error) {
	return recoverPlain(a.SigningHash(), &a.R, &a.S, a.V, true)
}

// SignSetCode signs auth with key and returns it with V, R, S filled in.
func SignSetCode(key *secp256k1.PrivateKey, auth SetCodeAuthorization) SetCodeAuthorization {
	sig := crypto.Sign(auth.SigningHash(), key)
	auth.R.SetBytes(sig[:32])
	auth.S.SetBytes(sig[32:64])
	auth.V = sig[64]
	return auth
}

// ShareSender gives tx the sender already recovered for other, when both
// are the same transaction (equal hashes: the same signed bytes recover
// the same address). A node that validates a block whose transactions it
// already holds in its pool skips recovering each signature again. It
// reports whether tx took a sender.
func (tx *Transaction) ShareSender(other *Transaction) bool {
	c := other.from.Load()
	if c == nil || tx == other || tx.Hash() != other.Hash() {
		return false
	}
	tx.from.CompareAndSwap(nil, c)
	return true
}
