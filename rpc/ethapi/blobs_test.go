package ethapi_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/evm/precompile/kzg"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/node"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// eth_sendRawTransaction takes a blob transaction in its network form and
// answers its hash; the pool keeps the blobs. The canonical form, which
// carries no blobs, is refused with a message that says what to send.
func TestSendBlobTransaction(t *testing.T) {
	key, _ := crypto.GenerateKey()
	from := types.Address(crypto.PubkeyToAddress(key.PubKey()))
	// Cancun: the sidecar of version 0 (Osaka takes cell proofs, below).
	g, err := chain.DevGenesisFork(8118, []types.Address{from}, uint64(time.Now().Unix())-10, forks.Cancun)
	if err != nil {
		t.Fatal(err)
	}
	n, err := node.New(node.Config{Genesis: g, HTTPPort: -1, WSPort: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	send := func(raw []byte) rpcResponse {
		out := n.RPC.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":["`+types.EncodeBytes(raw)+`"]}`))
		var r rpcResponse
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	// The zero blob: its commitment and its proof are the point at infinity.
	commitment := make([]byte, types.KZGCommitmentSize)
	commitment[0] = 0xc0
	sc := &types.BlobSidecar{Blobs: [][]byte{make([]byte, types.BlobSize)}, Commitments: [][]byte{commitment}, Proofs: [][]byte{commitment}}
	tx := types.MustSignNewTx(key, types.LatestSigner(8118), &types.BlobTx{ChainID: *uint256.NewInt(8118), GasTipCap: *uint256.NewInt(1e9),
		GasFeeCap: *uint256.NewInt(1e11), Gas: 21000, To: types.Address{0x42}, BlobFeeCap: *uint256.NewInt(1e9),
		BlobHashes: []types.Hash{types.Hash(kzg.VersionedHash(commitment))}})

	canonical, _ := tx.MarshalBinary()
	if r := send(canonical); r.Error == nil || r.Error.Code != -32000 || !strings.Contains(r.Error.Message, "network form") {
		t.Fatalf("canonical blob transaction: %s %+v", r.Result, r.Error)
	}
	r := send(types.EncodePooledTx(tx, sc))
	var h types.Hash
	if r.Error != nil || json.Unmarshal(r.Result, &h) != nil || h != tx.Hash() {
		t.Fatalf("network form: %s %+v, want hash %s", r.Result, r.Error, tx.Hash())
	}
	if got, ok := n.Pool.Sidecar(tx.Hash()); !ok || len(got.Blobs) != 1 {
		t.Fatal("the pool did not keep the blobs")
	}
	// A sidecar whose blob does not match the commitment is refused.
	bad := &types.BlobSidecar{Blobs: [][]byte{append([]byte{1}, make([]byte, types.BlobSize-1)...)}, Commitments: sc.Commitments, Proofs: sc.Proofs}
	tx2 := types.MustSignNewTx(key, types.LatestSigner(8118), &types.BlobTx{ChainID: *uint256.NewInt(8118), Nonce: 1, GasTipCap: *uint256.NewInt(1e9),
		GasFeeCap: *uint256.NewInt(1e11), Gas: 21000, To: types.Address{0x42}, BlobFeeCap: *uint256.NewInt(1e9), BlobHashes: tx.BlobHashes()})
	if r := send(types.EncodePooledTx(tx2, bad)); r.Error == nil || !strings.Contains(r.Error.Message, "invalid blob proof") {
		t.Fatalf("blob that does not match its commitment: %s %+v", r.Result, r.Error)
	}
}

// From Osaka the network form carries cell proofs (wrapper version 1, 128
// per blob): eth_sendRawTransaction verifies them against the blobs and
// answers the hash; blob proofs (version 0) and a wrong cell proof are
// refused.
func TestSendBlobTransactionCellProofs(t *testing.T) {
	key, _ := crypto.GenerateKey()
	from := types.Address(crypto.PubkeyToAddress(key.PubKey()))
	g := chain.DevGenesis(8118, []types.Address{from}, uint64(time.Now().Unix())-10)
	zero := uint64(0)
	g.Config.PragueTime, g.Config.OsakaTime = &zero, &zero
	n, err := node.New(node.Config{Genesis: g, HTTPPort: -1, WSPort: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	send := func(raw []byte) rpcResponse {
		out := n.RPC.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":["`+types.EncodeBytes(raw)+`"]}`))
		var r rpcResponse
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	// The zero blob: its commitment and every cell proof are the point at
	// infinity.
	inf := make([]byte, types.KZGCommitmentSize)
	inf[0] = 0xc0
	proofs := make([][]byte, types.CellProofsPerBlob)
	for i := range proofs {
		proofs[i] = inf
	}
	cells := &types.BlobSidecar{Version: types.SidecarCellProofs, Blobs: [][]byte{make([]byte, types.BlobSize)}, Commitments: [][]byte{inf}, Proofs: proofs}
	mk := func(nonce uint64) *types.Transaction {
		return types.MustSignNewTx(key, types.LatestSigner(8118), &types.BlobTx{ChainID: *uint256.NewInt(8118), Nonce: nonce, GasTipCap: *uint256.NewInt(1e9),
			GasFeeCap: *uint256.NewInt(1e11), Gas: 21000, To: types.Address{0x42}, BlobFeeCap: *uint256.NewInt(1e9),
			BlobHashes: []types.Hash{types.Hash(kzg.VersionedHash(inf))}})
	}
	old := &types.BlobSidecar{Blobs: cells.Blobs, Commitments: cells.Commitments, Proofs: [][]byte{inf}}
	if r := send(types.EncodePooledTx(mk(0), old)); r.Error == nil || !strings.Contains(r.Error.Message, "version") {
		t.Fatalf("blob proofs at Osaka: %s %+v", r.Result, r.Error)
	}
	// A cell proof that is a valid point but not the cell's opening.
	g1 := make([]byte, types.KZGProofSize)
	copy(g1, kzgGeneratorG1)
	wrong := &types.BlobSidecar{Version: types.SidecarCellProofs, Blobs: cells.Blobs, Commitments: cells.Commitments,
		Proofs: append([][]byte{g1}, proofs[1:]...)}
	if r := send(types.EncodePooledTx(mk(0), wrong)); r.Error == nil || !strings.Contains(r.Error.Message, "invalid blob proof") {
		t.Fatalf("wrong cell proof: %s %+v", r.Result, r.Error)
	}
	tx := mk(0)
	r := send(types.EncodePooledTx(tx, cells))
	var h types.Hash
	if r.Error != nil || json.Unmarshal(r.Result, &h) != nil || h != tx.Hash() {
		t.Fatalf("cell proofs: %s %+v, want hash %s", r.Result, r.Error, tx.Hash())
	}
	if got, ok := n.Pool.Sidecar(tx.Hash()); !ok || got.Version != types.SidecarCellProofs || len(got.Proofs) != types.CellProofsPerBlob {
		t.Fatal("the pool did not keep the blobs and cell proofs")
	}
}

// kzgGeneratorG1 is the compressed generator of G1.
var kzgGeneratorG1 = func() []byte {
	b, _ := hex.DecodeString("97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb")
	return b
}()
