package devload

import (
	"encoding/binary"
	"fmt"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/holiman/uint256"
)

// Kind is a workload.
type Kind string

// Workloads.
const (
	KindTransfer Kind = "transfer" // plain ETH transfers, 21,000 gas each
	KindERC20    Kind = "erc20"    // token transfers to fresh holders
)

// Gas limits the workloads sign with.
const (
	TransferGas = 21_000
	ERC20Gas    = 80_000
	DeployGas   = 500_000
)

// Keys derives n private keys from a seed string, so that a run can be
// repeated (and a node restarted) with the same accounts.
func Keys(seed string, n int) []*secp256k1.PrivateKey {
	keys := make([]*secp256k1.PrivateKey, 0, n)
	for i := 0; len(keys) < n; i++ {
		h := crypto.Keccak256([]byte(seed), binary.BigEndian.AppendUint64(nil, uint64(i)))
		k, err := crypto.ToPrivateKey(h[:])
		if err != nil {
			continue // a hash at or above the curve order: take the next one
		}
		keys = append(keys, k)
	}
	return keys
}

// Address is the account of a key.
func Address(k *secp256k1.PrivateKey) types.Address {
	return types.Address(crypto.PubkeyToAddress(crypto.PublicKey(k)))
}

// Recipient is the i-th recipient of a sender's transfers: fresh accounts,
// so every transfer creates state the way real traffic does.
func Recipient(sender types.Address, i uint64) types.Address {
	h := crypto.Keccak256(sender[:], binary.BigEndian.AppendUint64(nil, i))
	return types.BytesToAddress(h[12:])
}

// Signer signs workload transactions for one chain.
type Signer struct {
	ChainID uint64
	FeeCap  *uint256.Int // max fee per gas
	Tip     *uint256.Int // max priority fee per gas
	signer  types.Signer
}

// NewSigner signs dynamic-fee transactions for chainID with generous fees
// (a dev chain's base fee falls toward zero, so 100 gwei covers it).
func NewSigner(chainID uint64) *Signer {
	return &Signer{ChainID: chainID, FeeCap: uint256.NewInt(100e9), Tip: uint256.NewInt(1e9),
		signer: types.NewSigner(chainID, forks.Cancun)}
}

// Sign signs one dynamic-fee transaction.
func (s *Signer) Sign(key *secp256k1.PrivateKey, nonce uint64, to *types.Address, value *uint256.Int, gas uint64, data []byte) (*types.Transaction, error) {
	inner := &types.DynamicFeeTx{Nonce: nonce, Gas: gas, To: to, Data: data}
	inner.ChainID.SetUint64(s.ChainID)
	inner.GasFeeCap.Set(s.FeeCap)
	inner.GasTipCap.Set(s.Tip)
	if value != nil {
		inner.Value.Set(value)
	}
	tx, err := types.SignTx(types.NewTx(inner), s.signer, key)
	if err != nil {
		return nil, fmt.Errorf("devload: sign: %w", err)
	}
	return tx, nil
}

// Workload signs count transactions of kind from key starting at nonce;
// token is the ERC-20 contract for KindERC20.
func (s *Signer) Workload(kind Kind, key *secp256k1.PrivateKey, nonce uint64, count int, token types.Address) ([]*types.Transaction, error) {
	from := Address(key)
	out := make([]*types.Transaction, 0, count)
	one := uint256.NewInt(1)
	for i := 0; i < count; i++ {
		n := nonce + uint64(i)
		to := Recipient(from, n)
		var (
			tx  *types.Transaction
			err error
		)
		switch kind {
		case KindTransfer:
			tx, err = s.Sign(key, n, &to, one, TransferGas, nil)
		case KindERC20:
			tx, err = s.Sign(key, n, &token, nil, ERC20Gas, TransferData(to, 1))
		default:
			return nil, fmt.Errorf("devload: unknown workload %q", kind)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, tx)
	}
	return out, nil
}
