package ethapi

import (
	"context"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
)

// capabilityHead is the head eth_capabilities reports the rest against.
type capabilityHead struct {
	Number types.HexUint64 `json:"number"`
	Hash   types.Hash      `json:"hash"`
}

// resource is what the node serves of one kind of history.
type resource struct {
	Disabled       bool            `json:"disabled"`
	OldestBlock    types.HexUint64 `json:"oldestBlock"`
	DeleteStrategy *deleteStrategy `json:"deleteStrategy,omitempty"`
}

// deleteStrategy says how a resource ages out; absent when it never does.
type deleteStrategy struct {
	Type            string          `json:"type"`
	RetentionBlocks types.HexUint64 `json:"retentionBlocks"`
}

// capabilities is eth_capabilities: which history the node can answer
// from, so a router sends each request to a node that has it. Blocks,
// transactions, receipts and logs are kept from genesis; state (and so
// proofs) from genesis on an archive node, else for a window of recent
// blocks.
func (api *ethAPI) capabilities(context.Context, rpc.Params) (any, error) {
	head := api.b.Head()
	all := resource{}
	st := resource{}
	if keep := api.b.StateRetention(); keep > 0 {
		if head.Number()+1 > keep {
			st.OldestBlock = types.HexUint64(head.Number() + 1 - keep)
		}
		st.DeleteStrategy = &deleteStrategy{Type: "window", RetentionBlocks: types.HexUint64(keep)}
	}
	return map[string]any{
		"head":        capabilityHead{Number: types.HexUint64(head.Number()), Hash: head.Hash()},
		"state":       st,
		"stateproofs": st,
		"tx":          all,
		"logs":        all,
		"receipts":    all,
		"blocks":      all,
	}, nil
}
