package backend

import (
	"sort"

	"github.com/holiman/uint256"
)

const (
	gasPriceBlocks     = 20              // blocks sampled
	gasPricePercentile = 60              // of the tips paid in them
	minSuggestedTip    = 1_000_000       // 0.001 gwei: never suggest zero
	defaultTip         = 1_000_000_000   // 1 gwei when recent blocks are empty
	maxSuggestedTip    = 500_000_000_000 // 500 gwei
)

// SuggestTip is the priority fee every interface suggests (eth_gasPrice,
// eth_maxPriorityFeePerGas, GraphQL's gasPrice): the 60th percentile of
// the tips paid in the last 20 blocks, within 0.001 and 500 gwei, and
// 1 gwei when those blocks are empty.
func SuggestTip(b Blocks) *uint256.Int {
	head := b.Head()
	var tips []*uint256.Int
	for n, i := head.Number(), 0; i < gasPriceBlocks; i++ {
		blk, err := b.BlockByNumber(n)
		if err != nil {
			break
		}
		for _, tx := range blk.Transactions() {
			if t, err := tx.EffectiveGasTip(blk.BaseFee()); err == nil {
				tips = append(tips, t)
			}
		}
		if n == 0 {
			break
		}
		n--
	}
	if len(tips) == 0 {
		return uint256.NewInt(defaultTip)
	}
	sort.Slice(tips, func(i, j int) bool { return tips[i].Lt(tips[j]) })
	tip := new(uint256.Int).Set(tips[(len(tips)-1)*gasPricePercentile/100])
	if tip.LtUint64(minSuggestedTip) {
		tip.SetUint64(minSuggestedTip)
	}
	if tip.GtUint64(maxSuggestedTip) {
		tip.SetUint64(maxSuggestedTip)
	}
	return tip
}
