package types

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/chaind/chaind/internal/conformance"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/forks"
	"github.com/holiman/uint256"
)

// TestBasicTxTest signs every transaction of BasicTests/txtest.json with its
// key and checks that the pre-EIP-155 signed encoding is reproduced byte
// for byte, and that the sender recovers to the key's address.
func TestBasicTxTest(t *testing.T) {
	vec := conformance.VectorsDir("../..")
	if vec == "" {
		t.Skip("shared vectors absent (../shared/vectors); skipping BasicTests/txtest.json")
	}
	raw, err := os.ReadFile(filepath.Join(vec, "ethereum-tests", "BasicTests", "txtest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Key      string      `json:"key"`
		Nonce    json.Number `json:"nonce"`
		GasPrice json.Number `json:"gasprice"`
		StartGas json.Number `json:"startgas"`
		To       string      `json:"to"`
		Value    json.Number `json:"value"`
		Data     string      `json:"data"`
		Unsigned string      `json:"unsigned"`
		Signed   string      `json:"signed"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	signer := NewSigner(0, forks.Homestead)
	for i, c := range cases {
		keyb, _ := hex.DecodeString(c.Key)
		key, err := crypto.ToPrivateKey(keyb)
		if err != nil {
			t.Fatalf("case %d: key: %v", i, err)
		}
		inner := &LegacyTx{}
		inner.Nonce = mustU64(t, c.Nonce)
		inner.Gas = mustU64(t, c.StartGas)
		if err := inner.GasPrice.SetFromDecimal(string(c.GasPrice)); err != nil {
			t.Fatal(err)
		}
		if err := inner.Value.SetFromDecimal(string(c.Value)); err != nil {
			t.Fatal(err)
		}
		if c.To != "" {
			a, err := HexToAddress(c.To)
			if err != nil {
				t.Fatal(err)
			}
			inner.To = &a
		}
		inner.Data, _ = hex.DecodeString(c.Data)
		tx := NewTx(inner)
		// The "unsigned" form is the six fields plus three empty strings.
		unsigned, _ := tx.MarshalBinary()
		if got := hex.EncodeToString(unsigned); got != c.Unsigned {
			t.Errorf("case %d: unsigned\n got %s\nwant %s", i, got, c.Unsigned)
		}
		signed, err := SignTx(tx, signer, key)
		if err != nil {
			t.Fatalf("case %d: sign: %v", i, err)
		}
		enc, _ := signed.MarshalBinary()
		wantEnc, _ := hex.DecodeString(c.Signed)
		if !bytes.Equal(enc, wantEnc) {
			// The vectors predate EIP-2: a signature may have s in the upper
			// half. Signing is deterministic (RFC 6979), so ours must then be
			// the same R with s' = N-s and the other parity.
			want, err := DecodeTx(wantEnc)
			if err != nil {
				t.Fatalf("case %d: decode signed: %v", i, err)
			}
			wv, wr, ws := want.RawSignatureValues()
			gv, gr, gs := signed.RawSignatureValues()
			flipped := new(uint256.Int).Sub(secp256k1N, ws)
			if !ws.Gt(secp256k1HalfN) || !gr.Eq(wr) || !gs.Eq(flipped) || gv.Uint64()+wv.Uint64() != 55 {
				t.Errorf("case %d: signed\n got %x\nwant %s", i, enc, c.Signed)
			}
			// The vector's own high-s signature is valid before Homestead.
			from, err := NewSigner(0, forks.Frontier).Sender(want)
			if err != nil || from != Address(crypto.PubkeyToAddress(key.PubKey())) {
				t.Errorf("case %d: vector signature recovers %s, %v", i, from, err)
			}
			if _, err := signer.Sender(want); err == nil {
				t.Errorf("case %d: high-s signature accepted under Homestead", i)
			}
		}
		from, err := signer.Sender(signed)
		if err != nil {
			t.Fatalf("case %d: sender: %v", i, err)
		}
		if want := Address(crypto.PubkeyToAddress(key.PubKey())); from != want {
			t.Errorf("case %d: sender %s, want %s", i, from, want)
		}
	}
}

func mustU64(t *testing.T, n json.Number) uint64 {
	var z uint256.Int
	if err := z.SetFromDecimal(string(n)); err != nil || !z.IsUint64() {
		t.Fatalf("bad number %q", n)
	}
	return z.Uint64()
}

// TestGenesisHash decodes the mainnet genesis block of
// BasicTests/genesishashestest.json and checks its hash and state root.
func TestGenesisHash(t *testing.T) {
	vec := conformance.VectorsDir("../..")
	if vec == "" {
		t.Skip("shared vectors absent (../shared/vectors); skipping genesishashestest.json")
	}
	raw, err := os.ReadFile(filepath.Join(vec, "ethereum-tests", "BasicTests", "genesishashestest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		RLP  string `json:"genesis_rlp_hex"`
		Root string `json:"genesis_state_root"`
		Hash string `json:"genesis_hash"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	enc, err := hex.DecodeString(c.RLP)
	if err != nil {
		t.Fatal(err)
	}
	b, err := DecodeBlock(enc)
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(b.Hash().Bytes()); got != c.Hash {
		t.Errorf("hash %s, want %s", got, c.Hash)
	}
	if got := hex.EncodeToString(b.Root().Bytes()); got != c.Root {
		t.Errorf("state root %s, want %s", got, c.Root)
	}
	if !bytes.Equal(b.EncodeRLP(), enc) {
		t.Error("re-encoding differs")
	}
}
