package node

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/consensus/cycle"
	"github.com/chaind/chaind/internal/node/bft"
	"github.com/chaind/chaind/internal/pos"
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
//
// The driver is supervised (superviseConsensus): it never stops silently.
// An error returned here is permanent (a misconfigured validator); a
// transient one only delays the first start.
func (n *Node) startConsensus() error {
	st := n.consensusState()
	v, err := n.newValidator(st)
	if err != nil && !bft.Transient(err) {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	n.mu.Lock()
	n.stopConsensus, n.consensusDone = cancel, done
	n.mu.Unlock()
	if err != nil {
		n.consensusDown(err, consensusRetryMin)
	}
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		defer close(done)
		n.superviseConsensus(ctx, st, v)
	}()
	return nil
}

// consensusState is where the driver keeps its votes of the height in
// progress: the state file of the data directory, or memory, which then
// lasts as long as this run of the validator (its restarts after
// transient errors included).
func (n *Node) consensusState() bft.StateStore {
	var st bft.StateStore = &bft.MemState{}
	if n.cfg.DataDir != "" {
		st = bft.FileState(filepath.Join(n.cfg.DataDir, stateFileName))
	}
	if n.cfg.faults.state != nil {
		st = n.cfg.faults.state(st)
	}
	return st
}

// validatorRun is one start of the validator: a driver and its
// application, built from the chain's head and the state store.
type validatorRun struct {
	d   *bft.Driver
	app *bft.ChainApp
}

// newValidator builds the driver and its application for the chain's
// current head, as a restarted process would.
func (n *Node) newValidator(st bft.StateStore) (*validatorRun, error) {
	signer, err := consensus.NewSigner(n.Chain.Config.ChainID, n.cfg.Validator.Serialize())
	if err != nil {
		return nil, err
	}
	vals, transport := n.cfg.Validators, n.cfg.Transport
	if nn := n.net.Load(); transport == nil && nn != nil {
		transport = nn.Transport()
	}
	switch {
	case vals != nil:
	case pos.Of(n.Chain) != nil:
		// A proof-of-stake chain: the staking state decides the set.
		vals = pos.Of(n.Chain).Validators(n.Chain)
	default:
		set, err := consensus.NewValidatorSet([]consensus.Validator{{Address: signer.Address(), Power: 1}})
		if err != nil {
			return nil, err
		}
		vals = cycle.NewSchedule(set)
	}
	height := n.Chain.Head().Number() + 1
	set, err := vals.ValidatorSet(height)
	if err != nil {
		return nil, err
	}
	_, member := set.Index(signer.Address())
	sole := member && set.Len() == 1
	if transport == nil && n.dev != nil {
		// A --dev node keeps its in-process transport across the restarts
		// of a snapshot revert, whatever validators staking added since.
		transport = n.dev.Transport(n.Chain.Config.ChainID, signer.Address())
	}
	if transport == nil {
		if !sole {
			return nil, errors.New("node: a validator in a set of others needs a Transport")
		}
		transport = bft.NewMemNetwork(n.Chain.Config.ChainID).Join(signer.Address())
	}
	timeouts := n.cfg.Timeouts
	if timeouts == (consensus.Timeouts{}) {
		timeouts = defaultTimeouts(n.cfg.BlockTime)
	}
	var miner bft.Miner
	if n.dev != nil {
		miner = n.dev.Miner()
	}
	var lastCommit time.Time // when this node committed the previous block
	app := bft.NewChainApp(bft.ChainAppConfig{
		Chain: n.Chain, View: n.view, Pool: n.Pool, Validators: vals, Coinbase: signer.Address(),
		Validated: n.onValidated, Log: n.log,
		GasLimit: n.cfg.GasLimit, BlockTime: n.cfg.BlockTime,
		OnlyWithTransactions: sole && n.cfg.BlockTime == 0,
		Miner:                miner,
		Committed: func(b *types.Block) {
			n.pool.Reset()
			if n.dev != nil {
				n.dev.Committed(b)
			}
			n.consensusUp()
			n.logCommitted(b, &lastCommit)
			if err := pos.HeadUpgradeNeeded(n.Chain); err != nil {
				n.fail(err) // halt here: the next block needs another binary
			}
		},
	})
	cfg := bft.Config{
		Signer: signer, Validators: vals, Timeouts: timeouts, Transport: transport, App: app,
		Height: height, State: st, ResetStateAhead: sole, Evidence: n.evidenceSink(app),
		Logf:  func(format string, args ...any) { n.log.Debug(fmt.Sprintf(format, args...)) },
		Stats: &n.bftStats,
		ProposeFailed: func(height uint64, round int32, err error) {
			n.log.Warn("could not build a block to propose", "height", height, "round", round, "err", err)
		},
	}
	if !sole {
		// A sole validator is its own quorum: an idle --dev node that
		// waits for transactions is not stalled.
		cfg.Stalled, cfg.StallAfter = n.warnStalled, max(10*time.Second, 5*n.cfg.BlockTime)
	}
	d, err := bft.New(cfg)
	if err != nil {
		app.Close()
		return nil, err
	}
	n.useEvidencePool(app, d)
	n.mu.Lock()
	n.validators, n.app = vals, app
	n.mu.Unlock()
	return &validatorRun{d: d, app: app}, nil
}

// Back-off between restarts of a driver stopped by a transient error. The
// cap keeps a validator whose resource came back signing again within
// seconds; a driver that ran consensusSettle without failing counts as
// recovered, and its next failure starts the back-off afresh.
const (
	consensusRetryMin = 100 * time.Millisecond
	consensusRetryMax = 5 * time.Second
	consensusSettle   = 10 * time.Second
)

// superviseConsensus runs the validator until ctx is done. An error that
// stops the driver is either transient (bft.Transient: descriptors or disk
// space ran out), and the driver is rebuilt from the chain and its state
// store after a back-off, exactly as a restarted process would, or
// permanent, and the node fails (Node.Failed) so that the process exits
// and its supervisor restarts it from disk. Between the two the node
// reports itself unhealthy. v is the first run, nil if it could not be
// built.
func (n *Node) superviseConsensus(ctx context.Context, st bft.StateStore, v *validatorRun) {
	back := consensusRetryMin
	for {
		if v != nil {
			start := time.Now()
			err := v.run(ctx, n.consensusUp)
			if ctx.Err() != nil {
				return
			}
			if !bft.Transient(err) {
				n.fail(fmt.Errorf("consensus: %w", err))
				return
			}
			if time.Since(start) >= consensusSettle {
				back = consensusRetryMin
			}
			n.consensusDown(err, back)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(back):
		}
		back = min(2*back, consensusRetryMax)
		var err error
		if v, err = n.newValidator(st); err != nil {
			if !bft.Transient(err) {
				n.fail(fmt.Errorf("consensus: %w", err))
				return
			}
			n.consensusDown(err, back)
		}
	}
}

// run drives the validator until ctx is done or the driver stops; up is
// called once it has run consensusSettle without failing.
func (v *validatorRun) run(ctx context.Context, up func()) error {
	defer v.app.Close()
	t := time.AfterFunc(consensusSettle, up)
	defer t.Stop()
	err := v.d.Run(ctx)
	if err == nil { // Run returns only with an error; never read nil as success
		err = errors.New("bft: driver returned")
	}
	return err
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

// logCommitted says a block was committed: at info, so that an operator
// sees a network node make progress (a --dev node's console says it in
// its own words, so there this line is debug). took is the time since
// this node committed the block before (0 for its first).
func (n *Node) logCommitted(b *types.Block, last *time.Time) {
	now := time.Now()
	var took time.Duration
	if !last.IsZero() {
		took = now.Sub(*last).Round(time.Millisecond)
	}
	*last = now
	round := int32(-1) // unknown: no certificate stored
	if enc, err := n.Chain.Certificate(b.Number()); err == nil {
		if cert, err := consensus.DecodeCertificate(enc); err == nil {
			round = cert.Round
		}
	}
	level := slog.LevelInfo
	if n.dev != nil {
		level = slog.LevelDebug
	}
	n.log.Log(context.Background(), level, "committed block", "height", b.Number(), "txs", len(b.Transactions()),
		"round", round, "took", took, "gas", b.GasUsed(), "hash", b.Hash())
}

// stallWarnEvery spaces the "waiting for a quorum" warnings: rounds grow
// longer as they fail, but a partition can last hours.
const stallWarnEvery = 10 * time.Second

// warnStalled tells the operator that this validator's height has gone on
// for the driver's StallAfter: it waits for a quorum it cannot reach, and a validator whose
// peers are all down must not look like a healthy one in its log.
func (n *Node) warnStalled(height uint64, round int32, waited time.Duration) {
	now := time.Now()
	if last := n.stallWarn.Load(); last != 0 && now.Sub(time.Unix(0, last)) < stallWarnEvery {
		return
	}
	n.stallWarn.Store(now.UnixNano())
	peers := 0
	if nn := n.net.Load(); nn != nil {
		peers = nn.PeerCount()
	}
	n.log.Warn("waiting for a quorum", "height", height, "round", round, "waited", waited.Round(time.Second), "peers", peers)
}
