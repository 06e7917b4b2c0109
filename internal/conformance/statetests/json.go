package statetests

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// stTest is one named test of a GeneralStateTests file.
type stTest struct {
	Env struct {
		Coinbase      string `json:"currentCoinbase"`
		GasLimit      string `json:"currentGasLimit"`
		Number        string `json:"currentNumber"`
		Timestamp     string `json:"currentTimestamp"`
		Difficulty    string `json:"currentDifficulty"`
		Random        string `json:"currentRandom"`
		BaseFee       string `json:"currentBaseFee"`
		ExcessBlobGas string `json:"currentExcessBlobGas"`
	} `json:"env"`
	Pre         map[string]stAccount `json:"pre"`
	Transaction stTx                 `json:"transaction"`
	Post        map[string][]stPost  `json:"post"`
}

type stAccount struct {
	Balance string            `json:"balance"`
	Nonce   string            `json:"nonce"`
	Code    string            `json:"code"`
	Storage map[string]string `json:"storage"`
}

type stTx struct {
	Data                 []string         `json:"data"`
	GasLimit             []string         `json:"gasLimit"`
	Value                []string         `json:"value"`
	Nonce                string           `json:"nonce"`
	GasPrice             string           `json:"gasPrice"`
	MaxFeePerGas         string           `json:"maxFeePerGas"`
	MaxPriorityFeePerGas string           `json:"maxPriorityFeePerGas"`
	To                   string           `json:"to"`
	SecretKey            string           `json:"secretKey"`
	Sender               string           `json:"sender"`
	AccessLists          []*[]stAccessTup `json:"accessLists"`
	BlobVersionedHashes  []string         `json:"blobVersionedHashes"`
	MaxFeePerBlobGas     string           `json:"maxFeePerBlobGas"`
	// raw keeps which optional fields are present at all (an empty
	// blobVersionedHashes list still makes a blob transaction).
	HasBlobHashes bool `json:"-"`
}

type stAccessTup struct {
	Address     string   `json:"address"`
	StorageKeys []string `json:"storageKeys"`
}

type stPost struct {
	Indexes struct {
		Data  int `json:"data"`
		Gas   int `json:"gas"`
		Value int `json:"value"`
	} `json:"indexes"`
	Hash            string `json:"hash"`
	Logs            string `json:"logs"`
	TxBytes         string `json:"txbytes"`
	ExpectException string `json:"expectException"`
}

// UnmarshalJSON notes whether blobVersionedHashes is present.
func (t *stTx) UnmarshalJSON(b []byte) error {
	type plain stTx
	if err := json.Unmarshal(b, (*plain)(t)); err != nil {
		return err
	}
	var probe struct {
		Blob *json.RawMessage `json:"blobVersionedHashes"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return err
	}
	t.HasBlobHashes = probe.Blob != nil
	return nil
}

var errOverflow = errors.New("value out of range")

func trimHex(s string) string {
	return strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
}

// parseBytes reads "0x..." (or "" / "0x" for nothing).
func parseBytes(s string) ([]byte, error) {
	s = trimHex(s)
	if len(s)%2 == 1 {
		s = "0" + s
	}
	return hex.DecodeString(s)
}

// parseU256 reads a hex quantity that may carry leading zeros.
func parseU256(s string) (*uint256.Int, error) {
	z := new(uint256.Int)
	h := strings.TrimLeft(trimHex(s), "0")
	if h == "" {
		return z, nil
	}
	if len(h) > 64 {
		return nil, fmt.Errorf("%q: %w", s, errOverflow)
	}
	if err := z.SetFromHex("0x" + h); err != nil {
		return nil, fmt.Errorf("%q: %w", s, err)
	}
	return z, nil
}

func parseU64(s string) (uint64, error) {
	z, err := parseU256(s)
	if err != nil {
		return 0, err
	}
	if !z.IsUint64() {
		return 0, fmt.Errorf("%q: %w", s, errOverflow)
	}
	return z.Uint64(), nil
}

// parseHash reads a 32-byte word written in short form ("0x01").
func parseHash(s string) (types.Hash, error) {
	b, err := parseBytes(s)
	if err != nil {
		return types.Hash{}, err
	}
	if len(b) > 32 {
		return types.Hash{}, fmt.Errorf("%q: %w", s, errOverflow)
	}
	return types.BytesToHash(b), nil
}

func parseAddress(s string) (types.Address, error) {
	b, err := parseBytes(s)
	if err != nil {
		return types.Address{}, err
	}
	if len(b) != 20 {
		return types.Address{}, fmt.Errorf("address %q: want 20 bytes", s)
	}
	return types.Address(b), nil
}
