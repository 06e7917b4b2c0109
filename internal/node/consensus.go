package node

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/consensus/cycle"
	"github.com/chaind/chaind/internal/node/bft"
	"github.com/chaind/chaind/internal/types"
)

// stateFileName is the consensus state file in the data directory: the
// validator's votes of the height in progress, so that a restart never
// signs a contradicting one.
const stateFileName = "consensus.state"

// defaultTimeouts are the consensus timeouts of a validator with the given
// minimum block time. The proposer waits out the block time before it
// proposes, so the others' propose timeout must cover it.
func defaultTimeouts(blockTime time.Duration) consensus.Timeouts {
	return consensus.Timeouts{
		Propose: blockTime + 2*time.Second, ProposeDelta: 500 * time.Millisecond,
		Prevote: 500 * time.Millisecond, PrevoteDelta: 500 * time.Millisecond,
		Precommit: 500 * time.Millisecond, PrecommitDelta: 500 * time.Millisecond,
		Retransmit: time.Second,
	}
}

// startConsensus runs the node's validator: the BFT driver with the chain
// as its application. Without Config.Validators the node is the only
// validator of its chain (a --dev network or a single-validator chain); it
// then runs the very same engine over an in-process transport of one.
//
// A sole validator never waits for anyone, which shapes BlockTime 0: the
// proposer is always this node, and the core schedules no propose timeout
// for its own round, so Propose may wait for transactions as long as it
// takes. An idle chain then makes no blocks and spins through no rounds;
// transactions pooled before the start are sealed at once; a pool holding
// more than one block is sealed back to back; queued (nonce-gapped)
// transactions alone seal nothing. With BlockTime D > 0, a block follows
// the previous one after D, empty if need be.
func (n *Node) startConsensus() error {
	signer, err := consensus.NewSigner(n.Chain.Config.ChainID, n.cfg.Validator.Serialize())
	if err != nil {
		return err
	}
	vals, transport := n.cfg.Validators, n.cfg.Transport
	if nn := n.net.Load(); transport == nil && nn != nil {
		transport = nn.relay
	}
	switch {
	case vals != nil:
	case n.Chain.Config.Natives != nil:
		// A proof-of-stake chain: the staking state decides the set.
		vals = newStakeSchedule(n.Chain)
	default:
		set, err := consensus.NewValidatorSet([]consensus.Validator{{Address: signer.Address(), Power: 1}})
		if err != nil {
			return err
		}
		vals = cycle.NewSchedule(set)
	}
	height := n.Chain.Head().Number() + 1
	set, err := vals.ValidatorSet(height)
	if err != nil {
		return err
	}
	_, member := set.Index(signer.Address())
	sole := member && set.Len() == 1
	if transport == nil && n.dev != nil {
		// A --dev node keeps its in-process transport across the restarts
		// of a snapshot revert, whatever validators staking added since.
		transport = n.dev.transport(n.Chain.Config.ChainID, signer.Address())
	}
	if transport == nil {
		if !sole {
			return errors.New("node: a validator in a set of others needs a Transport")
		}
		transport = bft.NewMemNetwork(n.Chain.Config.ChainID).Join(signer.Address())
	}
	timeouts := n.cfg.Timeouts
	if timeouts == (consensus.Timeouts{}) {
		timeouts = defaultTimeouts(n.cfg.BlockTime)
	}
	var miner bft.Miner
	if m := n.devMinerOf(); m != nil {
		miner = m
	}
	app := bft.NewChainApp(bft.ChainAppConfig{
		Chain: n.Chain, Pool: n.Pool, Validators: vals, Coinbase: signer.Address(),
		Validated: n.onValidated,
		GasLimit:  n.cfg.GasLimit, BlockTime: n.cfg.BlockTime,
		OnlyWithTransactions: sole && n.cfg.BlockTime == 0,
		Miner:                miner,
		Committed: func(b *types.Block) {
			n.resetPool()
			n.devCommitted(b)
			n.log.Debug("committed block", "number", b.Number(), "txs", len(b.Transactions()), "gas", b.GasUsed(), "hash", b.Hash())
		},
	})
	var stateFile string
	if n.cfg.DataDir != "" {
		stateFile = filepath.Join(n.cfg.DataDir, stateFileName)
	}
	d, err := bft.New(bft.Config{
		Signer: signer, Validators: vals, Timeouts: timeouts, Transport: transport, App: app,
		Height: height, StateFile: stateFile, ResetStateAhead: sole, Evidence: n.evidenceSink(app),
		Logf:  func(format string, args ...any) { n.log.Debug(fmt.Sprintf(format, args...)) },
		Stats: &n.bftStats,
	})
	if err != nil {
		app.Close()
		return err
	}
	n.useEvidencePool(app, d)
	ctx, cancel := context.WithCancel(context.Background())
	n.mu.Lock()
	done := make(chan struct{})
	n.validators, n.stopConsensus, n.consensusDone, n.app = vals, cancel, done, app
	n.mu.Unlock()
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		defer close(done)
		defer app.Close()
		if err := d.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
			n.log.Error("consensus stopped", "err", err)
		}
	}()
	return nil
}

// haltConsensus stops the node's validator; the node goes on serving.
func (n *Node) haltConsensus() {
	n.mu.Lock()
	stop := n.stopConsensus
	n.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// Validators returns the validator sets of the node's chain, or nil on a
// node that does not validate.
func (n *Node) Validators() consensus.ValidatorSource {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.validators
}

// Certificate returns the commit certificate of block num: the
// precommits of validators holding more than two thirds of the stake.
func (n *Node) Certificate(num uint64) (*consensus.Certificate, error) {
	raw, err := n.Chain.Certificate(num)
	if err != nil {
		return nil, err
	}
	return consensus.DecodeCertificate(raw)
}
