package bft

import (
	"fmt"
	"sort"
	"sync"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/staking"
	"github.com/chaind/chaind/internal/types"
)

// The evidence path: double-sign evidence reaches the application from
// this validator's own core (ReportDoubleSign, through the driver) or from
// peers (AddEvidence, from gossip); it waits in the pool until a block
// this validator proposes carries it in its consensus data; every
// validator checks that data in Validate; the staking end-of-block rule
// slashes and jails when the block executes.

// offence identifies one double sign: a validator at a height. Two pairs
// of votes proving the same offence are punished once.
type offence struct {
	validator types.Address
	height    uint64
}

// evidencePool holds verified evidence no committed block has carried.
type evidencePool struct {
	mu   sync.Mutex
	byID map[offence]consensus.DuplicateVoteEvidence
}

func offenceOf(ev consensus.DuplicateVoteEvidence) offence {
	return offence{ev.A.Validator, ev.A.Height}
}

// AddEvidence verifies double-sign evidence (from a peer, or a test) and
// keeps it for the next block this validator proposes. It fails when the
// evidence does not verify against the validator set of its height, is
// too old to punish (staking.MaxEvidenceAge), is of a height beyond the
// one being decided, or its offence is punished already; the same offence
// pooled twice is kept once. Evidence of the height being decided waits
// for the block after it.
func (a *ChainApp) AddEvidence(ev consensus.DuplicateVoteEvidence) error {
	if !a.carriesConsensusData() {
		return fmt.Errorf("%w: this chain has no penalties", consensus.ErrEvidence)
	}
	head := a.cfg.Chain.Head()
	if err := a.checkEvidence(head.Number()+2, ev); err != nil {
		return err
	}
	st, err := a.cfg.Chain.StateAt(head.Root())
	if err != nil {
		return err
	}
	defer st.Release()
	if staking.EvidenceHandled(st, ev.A.Validator, ev.A.Height) {
		return fmt.Errorf("%w: validator %x at height %d is punished already", consensus.ErrEvidence, ev.A.Validator, ev.A.Height)
	}
	a.ev.mu.Lock()
	defer a.ev.mu.Unlock()
	if a.ev.byID == nil {
		a.ev.byID = make(map[offence]consensus.DuplicateVoteEvidence)
	}
	if _, ok := a.ev.byID[offenceOf(ev)]; !ok {
		a.ev.byID[offenceOf(ev)] = ev
	}
	return nil
}

// ReportDoubleSign implements consensus.EvidenceSink: evidence this
// validator's core found, verified by the driver, goes to the pool.
func (a *ChainApp) ReportDoubleSign(ev consensus.DuplicateVoteEvidence) {
	_ = a.AddEvidence(ev) // refused only when stale or punished already
}

// carriesConsensusData reports whether the chain's blocks carry consensus
// data: chains with the staking rules.
func (a *ChainApp) carriesConsensusData() bool { return a.cfg.Chain.Config.MaxExtra > 32 }

// checkEvidence checks what does not depend on the state: evidence in a
// block at height verifies against the set of its own height, which is
// decided and recent enough.
func (a *ChainApp) checkEvidence(height uint64, ev consensus.DuplicateVoteEvidence) error {
	h := ev.A.Height
	switch {
	case h == 0 || h >= height:
		return fmt.Errorf("%w: height %d is not decided before block %d", consensus.ErrEvidence, h, height)
	case h+staking.MaxEvidenceAge < height:
		return fmt.Errorf("%w: height %d is older than %d blocks", consensus.ErrEvidence, h, staking.MaxEvidenceAge)
	}
	set, err := a.cfg.Validators.ValidatorSet(h)
	if err != nil {
		return fmt.Errorf("%w: validators of height %d: %v", consensus.ErrEvidence, h, err)
	}
	return ev.Verify(a.chainID, set)
}

// consensusData assembles the consensus data of a block on head: the
// validators missing from the parent's certificate and the pooled
// evidence still punishable.
func (a *ChainApp) consensusData(head *types.Block, parentCert []byte) (ConsensusData, error) {
	var d ConsensusData
	if parentCert != nil {
		cert, err := consensus.DecodeCertificate(parentCert)
		if err != nil {
			return d, err
		}
		set, err := a.cfg.Validators.ValidatorSet(head.Number())
		if err != nil {
			return d, err
		}
		d.Absent = AbsentSigners(set, cert)
	}
	a.ev.mu.Lock()
	pooled := make([]consensus.DuplicateVoteEvidence, 0, len(a.ev.byID))
	for _, ev := range a.ev.byID {
		pooled = append(pooled, ev)
	}
	a.ev.mu.Unlock()
	if len(pooled) == 0 {
		return d, nil
	}
	// Oldest first: they expire first.
	sort.Slice(pooled, func(i, j int) bool {
		x, y := offenceOf(pooled[i]), offenceOf(pooled[j])
		if x.height != y.height {
			return x.height < y.height
		}
		return string(x.validator[:]) < string(y.validator[:])
	})
	st, err := a.cfg.Chain.StateAt(head.Root())
	if err != nil {
		return d, err
	}
	defer st.Release()
	for _, ev := range pooled {
		if len(d.Evidence) == MaxEvidencePerBlock {
			break
		}
		if ev.A.Height > head.Number() {
			continue // of the height this block decides: for the next one
		}
		if a.checkEvidence(head.Number()+1, ev) != nil || staking.EvidenceHandled(st, ev.A.Validator, ev.A.Height) {
			a.ev.drop(offenceOf(ev))
			continue
		}
		d.Evidence = append(d.Evidence, ev)
	}
	return d, nil
}

// checkConsensusData checks a proposed block's consensus data against its
// parent (head) and the parent's certificate: the absent list is exactly
// the parent's validators missing from the certificate, and each piece of
// evidence verifies, is recent, is not punished already and is not
// repeated.
func (a *ChainApp) checkConsensusData(head, b *types.Block, parentCert []byte) error {
	d, err := DecodeConsensusData(b.HeaderRef().Extra)
	if err != nil {
		return err
	}
	var want []types.Address
	if parentCert != nil {
		cert, err := consensus.DecodeCertificate(parentCert)
		if err != nil {
			return err
		}
		set, err := a.cfg.Validators.ValidatorSet(head.Number())
		if err != nil {
			return err
		}
		want = AbsentSigners(set, cert)
	}
	if len(want) != len(d.Absent) {
		return fmt.Errorf("%w: %d absent validators, the parent's certificate lacks %d", ErrConsensusData, len(d.Absent), len(want))
	}
	for i := range want {
		if want[i] != d.Absent[i] {
			return fmt.Errorf("%w: absent validator %d is %x, want %x", ErrConsensusData, i, d.Absent[i], want[i])
		}
	}
	if len(d.Evidence) == 0 {
		return nil
	}
	st, err := a.cfg.Chain.StateAt(head.Root())
	if err != nil {
		return err
	}
	defer st.Release()
	seen := make(map[offence]bool, len(d.Evidence))
	for _, ev := range d.Evidence {
		o := offenceOf(ev)
		switch {
		case seen[o]:
			return fmt.Errorf("%w: validator %x at height %d reported twice", ErrConsensusData, o.validator, o.height)
		case staking.EvidenceHandled(st, o.validator, o.height):
			return fmt.Errorf("%w: validator %x at height %d is punished already", ErrConsensusData, o.validator, o.height)
		}
		seen[o] = true
		if err := a.checkEvidence(b.Number(), ev); err != nil {
			return fmt.Errorf("%w: %v", ErrConsensusData, err)
		}
	}
	return nil
}

// committed forgets the evidence a decided block carried.
func (p *evidencePool) committed(b *types.Block) {
	d, err := DecodeConsensusData(b.HeaderRef().Extra)
	if err != nil {
		return
	}
	for _, ev := range d.Evidence {
		p.drop(offenceOf(ev))
	}
}

func (p *evidencePool) drop(o offence) {
	p.mu.Lock()
	delete(p.byID, o)
	p.mu.Unlock()
}

// PendingEvidence returns the pooled evidence no block has carried yet.
func (a *ChainApp) PendingEvidence() []consensus.DuplicateVoteEvidence {
	a.ev.mu.Lock()
	defer a.ev.mu.Unlock()
	out := make([]consensus.DuplicateVoteEvidence, 0, len(a.ev.byID))
	for _, ev := range a.ev.byID {
		out = append(out, ev)
	}
	return out
}
