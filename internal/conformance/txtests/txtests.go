// Package txtests runs ethereum-tests/TransactionTests: each transaction is
// decoded and statelessly validated under one fork's rules by the node's
// own code (the decoder eth_sendRawTransaction uses, the fork's signer and
// the pool's stateless checks, intrinsic gas included), so a pass says the
// pool would judge the transaction the same way. Valid ones must reproduce
// the expected hash, sender and intrinsic gas, invalid ones must be
// rejected.
package txtests

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/conformance"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/txpool"
	"github.com/chaind/chaind/internal/types"
)

// chainID is the chain the vectors were signed for (mainnet).
const chainID = 1

type forkResult struct {
	Hash         string `json:"hash"`
	Sender       string `json:"sender"`
	IntrinsicGas string `json:"intrinsicGas"`
	Exception    string `json:"exception"`
}

type testCase struct {
	TxBytes string                `json:"txbytes"`
	Result  map[string]forkResult `json:"result"`
}

// Run runs every JSON file below dir under the named fork.
func Run(dir, fork string, r *conformance.Report) error {
	rules, ok := Rules(fork)
	if !ok {
		return fmt.Errorf("unknown fork %q", fork)
	}
	return conformance.EachCase(dir, func(path, name string, tc testCase) error {
		id := filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path) + "/" + name
		want, listed := tc.Result[fork]
		if !listed {
			// The vectors' README: every fork these cases list rejects
			// them, and later forks did not relax decoding, so they must
			// be rejected here too.
			if !allReject(tc.Result) {
				r.Skip(id, "no entry for "+fork+" and not rejected by every listed fork")
				return nil
			}
			want = forkResult{Exception: "(rejected by every listed fork)"}
		}
		if err := runCase(tc.TxBytes, want, rules); err != nil {
			r.Fail(id, "%v", err)
		} else {
			r.Pass(id)
		}
		return nil
	})
}

func allReject(res map[string]forkResult) bool {
	if len(res) == 0 {
		return false
	}
	for _, fr := range res {
		if fr.Exception == "" {
			return false
		}
	}
	return true
}

func runCase(txbytes string, want forkResult, rules txpool.StatelessRules) error {
	raw, err := parseHex(txbytes)
	if err != nil {
		// Undecodable hex is as good as an undecodable transaction.
		if want.Exception != "" {
			return nil
		}
		return fmt.Errorf("bad txbytes: %v", err)
	}
	sender, hash, gas, verr := Validate(raw, rules)
	if want.Exception != "" {
		if verr == nil {
			return fmt.Errorf("accepted, want %s", want.Exception)
		}
		return nil
	}
	if verr != nil {
		return fmt.Errorf("rejected: %v", verr)
	}
	if wh, err := types.HexToHash(want.Hash); err != nil || wh != hash {
		return fmt.Errorf("hash %s, want %s", hash, want.Hash)
	}
	if ws, err := types.HexToAddress(want.Sender); err != nil || ws != sender {
		return fmt.Errorf("sender %s, want %s", sender, want.Sender)
	}
	wg, err := parseQuantity(want.IntrinsicGas)
	if err != nil {
		return fmt.Errorf("bad intrinsicGas %q", want.IntrinsicGas)
	}
	if wg != gas {
		return fmt.Errorf("intrinsic gas %d, want %d", gas, wg)
	}
	return nil
}

// Rules are the stateless rules of the fork a vector names, with no
// block gas limit or size limit (the vectors test the transaction alone).
func Rules(fork string) (txpool.StatelessRules, bool) {
	f, ok := forks.ByName(fork)
	if !ok {
		return txpool.StatelessRules{}, false
	}
	return txpool.StatelessRules{
		Signer:   types.NewSigner(chainID, f),
		Fork:     f,
		MaxBlobs: uint64(evm.MaxBlobsPerTx(f, evm.BlobSchedule(f))),
	}, true
}

// Validate decodes raw as eth_sendRawTransaction does and runs the pool's
// stateless validation. It returns the sender, hash and intrinsic gas of
// a valid transaction.
func Validate(raw []byte, rules txpool.StatelessRules) (sender types.Address, hash types.Hash, gas uint64, err error) {
	tx := new(types.Transaction)
	if err := tx.UnmarshalBinary(raw); err != nil {
		return sender, hash, 0, err
	}
	sender, gas, err = txpool.ValidateStateless(tx, rules)
	if err != nil {
		return sender, hash, 0, err
	}
	return sender, tx.Hash(), gas, nil
}

func parseHex(s string) ([]byte, error) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(s)%2 == 1 {
		return nil, errors.New("odd length")
	}
	b := make([]byte, len(s)/2)
	for i := range b {
		x, err := strconv.ParseUint(s[2*i:2*i+2], 16, 8)
		if err != nil {
			return nil, err
		}
		b[i] = byte(x)
	}
	return b, nil
}

func parseQuantity(s string) (uint64, error) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if s == "" {
		return 0, nil
	}
	return strconv.ParseUint(s, 16, 64)
}
