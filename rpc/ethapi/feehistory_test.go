package ethapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/node"
)

// eth_feeHistory answers one entry per block of the range in every array
// (and one more for the next block in the fee arrays), so that index i
// means the same block everywhere; a block before a fee's fork has zero
// there. The chain crosses Cancun inside the asked ranges.
func TestFeeHistoryArraysAlignAcrossForks(t *testing.T) {
	const genesisTime = 1_700_000_000
	g, err := chain.DevGenesisFork(chain.MainChainID, nil, genesisTime, forks.Cancun)
	if err != nil {
		t.Fatal(err)
	}
	cancun := uint64(genesisTime + 3)
	g.Config.CancunTime = &cancun
	n, err := node.New(node.Config{Genesis: g, HTTPPort: -1, WSPort: -1, ClientVersion: "chaind/test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	// Blocks 1 and 2 are Shanghai blocks, 3 and 4 Cancun blocks.
	for i := uint64(1); i <= 4; i++ {
		built, err := n.Chain.BuildBlock(chain.BuildParams{Time: genesisTime + i}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := n.Chain.InsertBlock(built.Block); err != nil {
			t.Fatal(err)
		}
	}
	type history struct {
		OldestBlock      string    `json:"oldestBlock"`
		BaseFee          []string  `json:"baseFeePerGas"`
		GasUsedRatio     []float64 `json:"gasUsedRatio"`
		BlobBaseFee      []string  `json:"baseFeePerBlobGas"`
		BlobGasUsedRatio []float64 `json:"blobGasUsedRatio"`
	}
	for _, tc := range []struct {
		count, newest uint64
		// wantBlobFee is the blob base fee per block of the range and
		// for the block after it: zero before Cancun, the minimum of 1
		// on this chain's empty Cancun blocks.
		wantBlobFee []string
	}{
		{2, 2, []string{"0x0", "0x0", "0x0"}},               // all before Cancun
		{4, 4, []string{"0x0", "0x0", "0x1", "0x1", "0x1"}}, // across it
		{2, 3, []string{"0x0", "0x1", "0x1"}},               // the fork block is the newest
		{1, 4, []string{"0x1", "0x1"}},                      // all after it
	} {
		params := fmt.Sprintf(`["0x%x","0x%x",[]]`, tc.count, tc.newest)
		out := n.RPC.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_feeHistory","params":`+params+`}`))
		var r struct {
			Result *history `json:"result"`
		}
		if err := json.Unmarshal(out, &r); err != nil || r.Result == nil {
			t.Fatalf("%s: %s", params, out)
		}
		h := r.Result
		if want := fmt.Sprintf("0x%x", tc.newest+1-tc.count); h.OldestBlock != want {
			t.Errorf("%s: oldest %s, want %s", params, h.OldestBlock, want)
		}
		c := int(tc.count)
		if len(h.BaseFee) != c+1 || len(h.GasUsedRatio) != c || len(h.BlobGasUsedRatio) != c {
			t.Errorf("%s: lengths baseFee %d, gasUsedRatio %d, blobGasUsedRatio %d; want %d, %d, %d",
				params, len(h.BaseFee), len(h.GasUsedRatio), len(h.BlobGasUsedRatio), c+1, c, c)
		}
		if fmt.Sprint(h.BlobBaseFee) != fmt.Sprint(tc.wantBlobFee) {
			t.Errorf("%s: baseFeePerBlobGas %v, want %v", params, h.BlobBaseFee, tc.wantBlobFee)
		}
	}
}
