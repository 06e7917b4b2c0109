package txpool

import (
	"errors"
	"testing"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Each stateless rule rejects the same transaction in ValidateStateless
// and in the pool, which runs it first: one copy of the rules.
func TestStatelessRulesInPool(t *testing.T) {
	f := newFixture(t, Config{}, 1)
	to := types.Address{0xaa}
	sign := func(tx types.TxData) *types.Transaction { return types.MustSignNewTx(f.keys[0], signer, tx) }
	huge := new(uint256.Int).Lsh(uint256.NewInt(1), 250)
	for _, tc := range []struct {
		name string
		tx   *types.Transaction
		want error
	}{
		{"nonce at max", sign(&types.DynamicFeeTx{ChainID: *uint256.NewInt(chainID), Nonce: ^uint64(0), GasFeeCap: *uint256.NewInt(2e9), Gas: 21000, To: &to}), ErrNonceMax},
		{"gas * fee cap overflows", sign(&types.DynamicFeeTx{ChainID: *uint256.NewInt(chainID), GasFeeCap: *huge, GasTipCap: *uint256.NewInt(1), Gas: 21000, To: &to}), ErrCostOverflow},
		{"tip above fee cap", sign(&types.DynamicFeeTx{ChainID: *uint256.NewInt(chainID), GasFeeCap: *uint256.NewInt(2e9), GasTipCap: *uint256.NewInt(3e9), Gas: 21000, To: &to}), evm.ErrTipAboveFeeCap},
		{"intrinsic gas", sign(&types.DynamicFeeTx{ChainID: *uint256.NewInt(chainID), GasFeeCap: *uint256.NewInt(2e9), Gas: 20999, To: &to}), evm.ErrIntrinsicGas},
		{"too many blobs", sign(&types.BlobTx{ChainID: *uint256.NewInt(chainID), GasFeeCap: *uint256.NewInt(2e9), BlobFeeCap: *uint256.NewInt(1e9), Gas: 21000, To: to, BlobHashes: make([]types.Hash, 7)}), evm.ErrTooManyBlobs},
		{"blob tx without blobs", sign(&types.BlobTx{ChainID: *uint256.NewInt(chainID), GasFeeCap: *uint256.NewInt(2e9), Gas: 21000, To: to}), evm.ErrMissingBlobHashes},
		{"above block gas limit", sign(&types.DynamicFeeTx{ChainID: *uint256.NewInt(chainID), GasFeeCap: *uint256.NewInt(2e9), Gas: 30_000_001, To: &to}), ErrGasLimit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ValidateStateless(tc.tx, StatelessRules{Signer: signer, Fork: forks.Cancun, GasLimit: 30_000_000, MaxBlobs: 6})
			if !errors.Is(err, tc.want) {
				t.Errorf("ValidateStateless: %v, want %v", err, tc.want)
			}
			if err := f.pool.Add(tc.tx); !errors.Is(err, tc.want) {
				t.Errorf("pool: %v, want %v", err, tc.want)
			}
		})
	}
}
