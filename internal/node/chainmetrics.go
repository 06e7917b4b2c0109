package node

import (
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	chainmetrics "github.com/chaind/chaind/internal/metrics"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/types"
)

// Bucket bounds of the per-block histograms.
var (
	blockSecondsBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}
	blockGasBuckets     = []float64{0, 21_000, 100_000, 500_000, 1e6, 2.5e6, 5e6, 1e7, 1.5e7, 2e7, 3e7, 4.5e7, 6e7, 1e8}
	blockTxsBuckets     = []float64{0, 1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000}
)

// openChainMetrics registers the families of blocks, validators, sync and
// the pool, and has the chain report its work on each block.
func (n *Node) openChainMetrics(r *chainmetrics.Registry) {
	exec := r.NewHistogramVec("chaind_block_execution_seconds", "Time to execute a block's transactions and end-of-block rules, by source: built (proposed by this node) or validated (from a validator, sync or an import).", blockSecondsBuckets, "source")
	commit := r.NewHistogramVec("chaind_block_commit_seconds", "Time to commit a block's state and store it as the new head.", blockSecondsBuckets)
	gas := r.NewHistogramVec("chaind_block_gas_used", "Gas used by each block that became the head (the sum is all gas used since start).", blockGasBuckets)
	txs := r.NewHistogramVec("chaind_block_transactions", "Transactions in each block that became the head (the sum is all transactions since start).", blockTxsBuckets)
	n.Chain.SetObserver(chain.Observer{
		Executed: func(_ *types.Block, built bool, d time.Duration) {
			src := "validated"
			if built {
				src = "built"
			}
			exec.Observe(d.Seconds(), src)
		},
		Committed: func(b *types.Block, d time.Duration) {
			commit.Observe(d.Seconds())
			gas.Observe(float64(b.GasUsed()))
			txs.Observe(float64(len(b.Transactions())))
		},
	})
	r.GaugeFunc("chaind_head_gas_used", "Gas used by the head block.", func() float64 { return float64(n.Chain.Head().GasUsed()) })
	r.GaugeFunc("chaind_head_gas_limit", "Gas limit of the head block.", func() float64 { return float64(n.Chain.Head().GasLimit()) })
	r.GaugeFunc("chaind_head_transactions", "Transactions in the head block.", func() float64 { return float64(len(n.Chain.Head().Transactions())) })
	r.GaugeFunc("chaind_txpool_bytes", "Bytes the pool's transactions take (encoded, with blob sidecars).", func() float64 { return float64(n.Pool.Bytes()) })

	n.signing.signed = r.NewCounterVec("chaind_validator_signed_blocks_total", "Blocks since start whose certificate, as the next block records it, holds this validator's precommit (0 on a node that does not validate).")
	n.signing.missed = r.NewCounterVec("chaind_validator_missed_blocks_total", "Blocks since start for which this validator was in the set but the next block records its precommit as absent.")
	n.signing.signed.Add(0)
	n.signing.missed.Add(0)
	r.GaugeFunc("chaind_validator_voting_power", "This validator's voting power in the set of the next height (0 out of the set or on a node that does not validate).", func() float64 {
		set := n.nextSet()
		if set == nil || n.cfg.Validator == nil {
			return 0
		}
		return float64(set.Power(crypto.AddressOf(n.cfg.Validator)))
	})
	r.GaugeFunc("chaind_validator_set_voting_power", "Total voting power of the validator set of the next height (0 on a chain without one).", func() float64 {
		if set := n.nextSet(); set != nil {
			return float64(set.TotalPower())
		}
		return 0
	})
	r.GaugeFunc("chaind_validator_set_size", "Validators in the set of the next height (0 on a chain without one).", func() float64 {
		if set := n.nextSet(); set != nil {
			return float64(set.Len())
		}
		return 0
	})

	r.GaugeFunc("chaind_sync_syncing", "1 while the node catches up with its peers' blocks, else 0.", func() float64 {
		if nn := n.net.Load(); nn != nil {
			if _, ok := nn.Progress(); ok {
				return 1
			}
		}
		return 0
	})
	r.GaugeFunc("chaind_sync_highest_block", "Highest head a peer has told of, or this node's own head if higher.", func() float64 {
		highest, _ := n.syncLag()
		return float64(highest)
	})
	r.GaugeFunc("chaind_sync_lag_blocks", "Blocks between the highest head a peer has told of and this node's head.", func() float64 {
		_, lag := n.syncLag()
		return float64(lag)
	})
}

// signingCounters count this validator's precommits as blocks record them.
type signingCounters struct {
	signed, missed *chainmetrics.CounterVec
}

// validatorSource is the node's validator sets: the running consensus's,
// or, before it starts, the proof-of-stake chain's own.
func (n *Node) validatorSource() consensus.ValidatorSource {
	if v := n.Validators(); v != nil {
		return v
	}
	if e := pos.Of(n.Chain); e != nil {
		return e.Validators(n.Chain)
	}
	return nil
}

// nextSet is the validator set of the height after the head, nil when
// the chain has none.
func (n *Node) nextSet() *consensus.ValidatorSet {
	src := n.validatorSource()
	if src == nil {
		return nil
	}
	set, err := src.ValidatorSet(n.Chain.Head().Number() + 1)
	if err != nil {
		return nil
	}
	return set
}

// syncLag is the highest head known (a peer's or this node's own) and how
// far this node's head is behind it, from one read of the head.
func (n *Node) syncLag() (highest, lag uint64) {
	head := n.Chain.Head().Number()
	highest = head
	if nn := n.net.Load(); nn != nil {
		highest = max(nn.BestHeight(), head)
	}
	return highest, highest - head
}

// followSigning counts, for a validator on a proof-of-stake chain, each
// block from the start on as signed or missed: block h+1 names the
// validators of height h whose precommit for h was absent from the
// certificate it commits to (pos.ConsensusData). Blocks a busy moment
// skipped in the subscription are read back by number, so none is
// left out.
func (n *Node) followSigning() {
	if n.cfg.Validator == nil || pos.Of(n.Chain) == nil {
		return
	}
	me := types.Address(crypto.AddressOf(n.cfg.Validator))
	heads, unsub := n.Chain.Subscribe(64)
	defer unsub()
	next := n.Chain.Head().Number() + 1
	for {
		select {
		case <-n.stop:
			return
		case head, ok := <-heads:
			if !ok {
				return
			}
			if head.Number() < next-1 {
				next = head.Number() // the head went back (a dev reset): count from the new one
			}
			for ; next <= head.Number(); next++ {
				b := head
				if next != head.Number() {
					var err error
					if b, err = n.Chain.BlockByNumber(next); err != nil {
						break
					}
				}
				n.countSigning(me, b)
			}
		}
	}
}

func (n *Node) countSigning(me types.Address, b *types.Block) {
	if b.Number() < 2 { // the genesis has no certificate
		return
	}
	src := n.validatorSource()
	if src == nil {
		return
	}
	set, err := src.ValidatorSet(b.Number() - 1)
	if err != nil {
		return
	}
	if _, in := set.Index(me); !in {
		return
	}
	data, err := pos.DecodeConsensusData(b.HeaderRef().Extra)
	if err != nil {
		return
	}
	for _, a := range data.Absent {
		if a == me {
			n.signing.missed.Add(1)
			return
		}
	}
	n.signing.signed.Add(1)
}
