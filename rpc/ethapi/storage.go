package ethapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
)

// maxStorageValues bounds the slots one eth_getStorageValues call reads.
const maxStorageValues = 1024

// getStorageValues reads many storage slots of many accounts at one block:
// params [{address: [slot, ...]}, block?].
func (api *ethAPI) getStorageValues(_ context.Context, p rpc.Params) (any, error) {
	var req map[types.Address][]json.RawMessage
	if err := p.Decode(0, &req); err != nil {
		return nil, err
	}
	total := 0
	for _, keys := range req {
		total += len(keys)
	}
	if total == 0 {
		return nil, rpc.InvalidParams(0, errors.New("empty request: no storage slots named"))
	}
	if total > maxStorageValues {
		return nil, rpc.InvalidParams(0, fmt.Errorf("too many slots requested: %d > %d", total, maxStorageValues))
	}
	_, st, err := api.stateAt(p, 1)
	if err != nil {
		return nil, err
	}
	out := make(map[types.Address][]types.Hash, len(req))
	for addr, keys := range req {
		vals := make([]types.Hash, len(keys))
		for i, raw := range keys {
			k, err := storageKey(0, raw)
			if err != nil {
				return nil, err
			}
			vals[i] = st.Storage(addr, k)
		}
		out[addr] = vals
	}
	return out, nil
}
