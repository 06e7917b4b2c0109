package ethapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/evm/precompile/kzg"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
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
	n, err := node.New(node.Config{Genesis: chain.DevGenesis(8118, []types.Address{from}, uint64(time.Now().Unix())-10), HTTPPort: -1, WSPort: -1})
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
