package ethapi

import (
	"context"
	"encoding/json"

	"github.com/chaind/chaind/internal/crypto/eip712"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
)

// signTypedData is eth_signTypedData_v4: the EIP-712 digest of the typed
// data (parameter 1, a JSON document or a string holding one, as ethers
// sends it) signed by the node-held account at parameter 0; V is 27 or 28.
func (api *accountsAPI) signTypedData(_ context.Context, p rpc.Params) (any, error) {
	var addr types.Address
	if err := p.Decode(0, &addr); err != nil {
		return nil, err
	}
	doc := []byte(p[1])
	var s string
	if json.Unmarshal(doc, &s) == nil {
		doc = []byte(s)
	}
	td, err := eip712.Parse(doc)
	if err != nil {
		return nil, rpc.InvalidParams(1, err)
	}
	digest, err := td.Digest()
	if err != nil {
		return nil, rpc.InvalidParams(1, err)
	}
	sig, err := api.keys.SignHash(addr, digest)
	if err != nil {
		return nil, err
	}
	sig[64] += 27
	return types.HexBytes(sig), nil
}
