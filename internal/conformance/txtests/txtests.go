// Package txtests runs ethereum-tests/TransactionTests: each transaction is
// decoded and statelessly validated under one fork's rules; valid ones must
// reproduce the expected hash, sender and intrinsic gas, invalid ones must
// be rejected.
package txtests

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/chaind/chaind/internal/conformance"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
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
	rules, ok := ruleSets[fork]
	if !ok {
		names := make([]string, 0, len(ruleSets))
		for n := range ruleSets {
			names = append(names, n)
		}
		sort.Strings(names)
		return fmt.Errorf("unknown fork %q (known: %s)", fork, strings.Join(names, ", "))
	}
	files, err := conformance.JSONFiles(dir)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("no .json files in %s", dir)
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var tests map[string]testCase
		if err := json.Unmarshal(raw, &tests); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		rel := filepath.Base(filepath.Dir(f)) + "/" + filepath.Base(f)
		for name, tc := range tests {
			id := rel + "/" + name
			want, listed := tc.Result[fork]
			if !listed {
				// The vectors' README: every fork these cases list rejects
				// them, and later forks did not relax decoding, so they
				// must be rejected here too.
				if !allReject(tc.Result) {
					r.Skip(id, "no entry for "+fork+" and not rejected by every listed fork")
					continue
				}
				want = forkResult{Exception: "(rejected by every listed fork)"}
			}
			if err := runCase(tc.TxBytes, want, rules); err != nil {
				r.Fail(id, "%v", err)
			} else {
				r.Pass(id)
			}
		}
	}
	return nil
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

func runCase(txbytes string, want forkResult, rules Rules) error {
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

// Errors of stateless validation.
var (
	ErrIntrinsicGas    = errors.New("intrinsic gas too low")
	ErrGasUintOverflow = errors.New("intrinsic gas overflows uint64")
	ErrNonceMax        = errors.New("nonce has max value (EIP-2681)")
	ErrFeeCapOverflow  = errors.New("gas * gas price overflows 256 bits")
	ErrTipAboveFeeCap  = errors.New("max priority fee per gas higher than max fee per gas")
	ErrMaxInitCodeSize = errors.New("max initcode size exceeded")
	ErrFloorDataGas    = errors.New("gas below the calldata floor (EIP-7623)")
)

// Validate decodes raw and checks it without state under rules. It
// returns the sender, hash and intrinsic gas of a valid transaction.
func Validate(raw []byte, rules Rules) (sender types.Address, hash types.Hash, gas uint64, err error) {
	tx, err := types.DecodeTx(raw)
	if err != nil {
		return sender, hash, 0, err
	}
	signer := types.NewSigner(chainID, rules.Signer)
	sender, err = signer.Sender(tx)
	if err != nil {
		return sender, hash, 0, err
	}
	if tx.Nonce() == ^uint64(0) {
		return sender, hash, 0, ErrNonceMax
	}
	if _, overflow := new(uint256.Int).MulOverflow(uint256.NewInt(tx.Gas()), tx.GasFeeCap()); overflow {
		return sender, hash, 0, ErrFeeCapOverflow
	}
	if tx.GasTipCap().Gt(tx.GasFeeCap()) {
		return sender, hash, 0, ErrTipAboveFeeCap
	}
	if rules.Shanghai && tx.To() == nil && len(tx.Data()) > MaxInitCodeSize {
		return sender, hash, 0, ErrMaxInitCodeSize
	}
	gas, err = IntrinsicGas(tx, rules)
	if err != nil {
		return sender, hash, 0, err
	}
	if tx.Gas() < gas {
		return sender, hash, 0, fmt.Errorf("%w: %d < %d", ErrIntrinsicGas, tx.Gas(), gas)
	}
	if rules.Prague && tx.Gas() < FloorDataGas(tx.Data()) {
		return sender, hash, 0, ErrFloorDataGas
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
