package pos

import (
	"fmt"
	"sort"
	"sync"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/staking"
	"github.com/chaind/chaind/internal/types"
)

// The evidence path: double-sign evidence reaches the engine from this
// validator's own core (through the BFT driver) or from peers (gossip);
// it waits in the pool until a block this validator proposes carries it
// in its consensus data (Prepare); every validator checks that data
// (VerifyHeader); the staking end-of-block rule slashes and jails when
// the block executes (Finalize).

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

// AddEvidence verifies double-sign evidence against c (from a peer, this
// validator's core, or a test) and keeps it for the next block this node
// proposes. It fails when the evidence does not verify against the
// validator set of its height, is too old to punish
// (staking.MaxEvidenceAge), is of a height beyond the one being decided,
// or its offence is punished already; the same offence pooled twice is
// kept once. Evidence of the height being decided waits for the block
// after it.
func (e *Engine) AddEvidence(c *chain.Chain, ev consensus.DuplicateVoteEvidence) error {
	head := c.Head()
	if err := e.checkEvidence(c, head.Number()+2, ev); err != nil {
		return err
	}
	st, err := c.StateAt(head.Root())
	if err != nil {
		return err
	}
	defer st.Release()
	if staking.EvidenceHandled(st, ev.A.Validator, ev.A.Height) {
		return fmt.Errorf("%w: validator %x at height %d is punished already", consensus.ErrEvidence, ev.A.Validator, ev.A.Height)
	}
	e.ev.mu.Lock()
	defer e.ev.mu.Unlock()
	if e.ev.byID == nil {
		e.ev.byID = make(map[offence]consensus.DuplicateVoteEvidence)
	}
	if _, ok := e.ev.byID[offenceOf(ev)]; !ok {
		e.ev.byID[offenceOf(ev)] = ev
	}
	return nil
}

// checkEvidence checks what does not depend on the state: evidence in a
// block at height verifies against the set of its own height, which is
// decided and recent enough.
func (e *Engine) checkEvidence(c *chain.Chain, height uint64, ev consensus.DuplicateVoteEvidence) error {
	h := ev.A.Height
	switch {
	case h == 0 || h >= height:
		return fmt.Errorf("%w: height %d is not decided before block %d", consensus.ErrEvidence, h, height)
	case h+staking.MaxEvidenceAge < height:
		return fmt.Errorf("%w: height %d is older than %d blocks", consensus.ErrEvidence, h, staking.MaxEvidenceAge)
	}
	set, err := e.ValidatorSet(c, h)
	if err != nil {
		return fmt.Errorf("%w: validators of height %d: %v", consensus.ErrEvidence, h, err)
	}
	return ev.Verify(c.Config.ChainID, set)
}

// absent lists the validators of parent's height missing from its
// certificate (nil when there is none).
func (e *Engine) absent(c *chain.Chain, parent *types.Header, parentCert []byte) ([]types.Address, error) {
	if parentCert == nil {
		return nil, nil
	}
	cert, err := consensus.DecodeCertificate(parentCert)
	if err != nil {
		return nil, err
	}
	set, err := e.ValidatorSet(c, parent.Number)
	if err != nil {
		return nil, err
	}
	return AbsentSigners(set, cert), nil
}

// consensusData assembles the consensus data of a block on parent: the
// validators missing from the parent's certificate and the pooled
// evidence still punishable.
func (e *Engine) consensusData(c *chain.Chain, parent *types.Header, parentCert []byte) (ConsensusData, error) {
	var d ConsensusData
	var err error
	if d.Absent, err = e.absent(c, parent, parentCert); err != nil {
		return d, err
	}
	e.ev.mu.Lock()
	pooled := make([]consensus.DuplicateVoteEvidence, 0, len(e.ev.byID))
	for _, ev := range e.ev.byID {
		pooled = append(pooled, ev)
	}
	e.ev.mu.Unlock()
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
	st, err := c.StateAt(parent.Root)
	if err != nil {
		return d, err
	}
	defer st.Release()
	for _, ev := range pooled {
		if len(d.Evidence) == MaxEvidencePerBlock {
			break
		}
		if ev.A.Height > parent.Number {
			continue // of the height this block decides: for the next one
		}
		if e.checkEvidence(c, parent.Number+1, ev) != nil || staking.EvidenceHandled(st, ev.A.Validator, ev.A.Height) {
			e.ev.drop(offenceOf(ev))
			continue
		}
		d.Evidence = append(d.Evidence, ev)
	}
	return d, nil
}

// checkConsensusData checks a proposed header's consensus data against
// its parent and the parent's certificate: the absent list is exactly the
// parent's validators missing from the certificate, and each piece of
// evidence verifies, is recent, is not punished already and is not
// repeated.
func (e *Engine) checkConsensusData(c *chain.Chain, parent, h *types.Header, parentCert []byte) error {
	d, err := DecodeConsensusData(h.Extra)
	if err != nil {
		return err
	}
	want, err := e.absent(c, parent, parentCert)
	if err != nil {
		return err
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
	st, err := c.StateAt(parent.Root)
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
		if err := e.checkEvidence(c, h.Number, ev); err != nil {
			return fmt.Errorf("%w: %v", ErrConsensusData, err)
		}
	}
	return nil
}

// Committed forgets the evidence a decided block carried.
func (e *Engine) Committed(b *types.Block) {
	d, err := DecodeConsensusData(b.HeaderRef().Extra)
	if err != nil {
		return
	}
	for _, ev := range d.Evidence {
		e.ev.drop(offenceOf(ev))
	}
}

func (p *evidencePool) drop(o offence) {
	p.mu.Lock()
	delete(p.byID, o)
	p.mu.Unlock()
}

// PendingEvidence returns the pooled evidence no block has carried yet.
func (e *Engine) PendingEvidence() []consensus.DuplicateVoteEvidence {
	e.ev.mu.Lock()
	defer e.ev.mu.Unlock()
	out := make([]consensus.DuplicateVoteEvidence, 0, len(e.ev.byID))
	for _, ev := range e.ev.byID {
		out = append(out, ev)
	}
	return out
}
