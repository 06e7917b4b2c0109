package txtests

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/chaind/chaind/internal/conformance"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// stateTx is the "transaction" object of a general state test: indexed
// lists for data, gas and value, the signing key and the expected sender.
type stateTx struct {
	Data                 []types.HexBytes    `json:"data"`
	GasLimit             []types.HexUint64   `json:"gasLimit"`
	Value                []types.HexU256     `json:"value"`
	AccessLists          []*types.AccessList `json:"accessLists"`
	GasPrice             *types.HexU256      `json:"gasPrice"`
	MaxFeePerGas         *types.HexU256      `json:"maxFeePerGas"`
	MaxPriorityFeePerGas *types.HexU256      `json:"maxPriorityFeePerGas"`
	MaxFeePerBlobGas     *types.HexU256      `json:"maxFeePerBlobGas"`
	BlobVersionedHashes  []types.Hash        `json:"blobVersionedHashes"`
	Nonce                types.HexU256       `json:"nonce"`
	To                   string              `json:"to"`
	SecretKey            types.HexBytes      `json:"secretKey"`
	Sender               types.Address       `json:"sender"`
}

type statePost struct {
	Indexes struct{ Data, Gas, Value int } `json:"indexes"`
	TxBytes types.HexBytes                 `json:"txbytes"`
}

// TestStateTestTransactions takes the signed transactions of a few
// general-state-test folders (types 0 to 3, each with its key): rebuilding
// and signing from the fields must reproduce txbytes exactly, and decoding
// txbytes must recover the recorded sender.
func TestStateTestTransactions(t *testing.T) {
	vec := conformance.VectorsDir("../../..")
	if vec == "" {
		t.Skip("shared vectors absent (../shared/vectors); skipping state-test transactions")
	}
	root := filepath.Join(vec, "ethereum-tests", "GeneralStateTests")
	var files []string
	for _, sub := range []string{"Cancun", "stEIP1559", "stEIP2930", "stExample", "stChainId"} {
		fs, err := conformance.JSONFiles(filepath.Join(root, sub))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, fs...)
	}
	counts := map[uint8]int{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var tests map[string]struct {
			Transaction stateTx                `json:"transaction"`
			Post        map[string][]statePost `json:"post"`
		}
		if err := json.Unmarshal(raw, &tests); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for name, st := range tests {
			key, err := crypto.ToPrivateKey(st.Transaction.SecretKey)
			if err != nil {
				t.Fatalf("%s: key: %v", name, err)
			}
			seen := map[string]bool{}
			for _, posts := range st.Post {
				for _, p := range posts {
					if seen[string(p.TxBytes)] {
						continue
					}
					seen[string(p.TxBytes)] = true
					tx, err := types.DecodeTx(p.TxBytes)
					if err != nil {
						continue // deliberately malformed transactions are the tx runner's business
					}
					counts[tx.Type()]++
					signer := types.LatestSigner(tx.ChainID().Uint64())
					from, err := signer.Sender(tx)
					if err != nil || from != st.Transaction.Sender {
						t.Errorf("%s: sender %s, %v; want %s", name, from, err, st.Transaction.Sender)
						continue
					}
					inner := buildInner(t, &st.Transaction, p, tx)
					if inner == nil {
						continue
					}
					s := signer
					if tx.Type() == types.LegacyTxType && !tx.Protected() {
						s = types.NewSigner(0, forks.Homestead)
					}
					signed, err := types.SignTx(types.NewTx(inner), s, key)
					if err != nil {
						t.Fatalf("%s: sign: %v", name, err)
					}
					if enc, _ := signed.MarshalBinary(); !bytes.Equal(enc, p.TxBytes) {
						t.Errorf("%s: signed encoding differs\n got %x\nwant %x", name, enc, []byte(p.TxBytes))
					}
				}
			}
		}
	}
	if counts[0] == 0 || counts[1] == 0 || counts[2] == 0 || counts[3] == 0 {
		t.Errorf("type coverage %v", counts)
	}
	t.Logf("transactions by type: %v", counts)
}

// buildInner rebuilds the unsigned payload of one post entry; the type is
// taken from the decoded transaction.
func buildInner(t *testing.T, st *stateTx, p statePost, tx *types.Transaction) types.TxData {
	if p.Indexes.Data >= len(st.Data) || p.Indexes.Gas >= len(st.GasLimit) || p.Indexes.Value >= len(st.Value) {
		t.Errorf("index out of range")
		return nil
	}
	data := []byte(st.Data[p.Indexes.Data])
	gas := uint64(st.GasLimit[p.Indexes.Gas])
	value := uint256.Int(st.Value[p.Indexes.Value])
	if !st.Nonce.Int().IsUint64() {
		return nil
	}
	nonce := st.Nonce.Int().Uint64()
	var to *types.Address
	if st.To != "" {
		a, err := types.HexToAddress(st.To)
		if err != nil {
			t.Fatal(err)
		}
		to = &a
	}
	var al types.AccessList
	if p.Indexes.Data < len(st.AccessLists) && st.AccessLists[p.Indexes.Data] != nil {
		al = *st.AccessLists[p.Indexes.Data]
	}
	chainID := *tx.ChainID()
	u := func(x *types.HexU256) uint256.Int {
		if x == nil {
			return uint256.Int{}
		}
		return uint256.Int(*x)
	}
	switch tx.Type() {
	case types.LegacyTxType:
		return &types.LegacyTx{Nonce: nonce, GasPrice: u(st.GasPrice), Gas: gas, To: to, Value: value, Data: data}
	case types.AccessListTxType:
		return &types.AccessListTx{ChainID: chainID, Nonce: nonce, GasPrice: u(st.GasPrice), Gas: gas, To: to, Value: value, Data: data, AccessList: al}
	case types.DynamicFeeTxType:
		return &types.DynamicFeeTx{ChainID: chainID, Nonce: nonce, GasTipCap: u(st.MaxPriorityFeePerGas), GasFeeCap: u(st.MaxFeePerGas), Gas: gas, To: to, Value: value, Data: data, AccessList: al}
	case types.BlobTxType:
		if to == nil {
			return nil
		}
		return &types.BlobTx{ChainID: chainID, Nonce: nonce, GasTipCap: u(st.MaxPriorityFeePerGas), GasFeeCap: u(st.MaxFeePerGas), Gas: gas, To: *to, Value: value, Data: data, AccessList: al,
			BlobFeeCap: u(st.MaxFeePerBlobGas), BlobHashes: st.BlobVersionedHashes}
	}
	return nil
}
