// Package cycle implements chaind's cycles: a cycle is ten consecutive
// blocks (cycle = floor(height / 10)), and validator-set changes, rewards
// and penalties take effect only at cycle boundaries. Schedule turns the
// staking layer's requested changes into the validator set of every height
// (it is the consensus.ValidatorSource of a node); Book keeps one record
// per cycle for chain_getCycleInfo and the explorer.
package cycle

import (
	"errors"
	"fmt"
	"sync"

	"github.com/chaind/chaind/consensus"
)

// Length is the number of blocks in a cycle.
const Length = 10

// Of returns the cycle of a block height.
func Of(height uint64) uint64 { return height / Length }

// Start returns the first height of cycle c.
func Start(c uint64) uint64 { return c * Length }

// NextBoundary returns the first height of the cycle after the one
// containing height: where a change requested at height takes effect.
func NextBoundary(height uint64) uint64 { return Start(Of(height) + 1) }

// ErrTooLate is returned by Schedule.Queue when the boundary the change is
// for has already been handed out.
var ErrTooLate = errors.New("cycle: validator set of the boundary is already fixed")

// Schedule is the validator set of every height. Height 1 (the first block
// after genesis) uses the genesis set; each later height uses the previous
// set with proposer priorities advanced by one run, plus, at a cycle
// boundary, the changes queued before it. It is safe for concurrent use.
type Schedule struct {
	mu      sync.Mutex
	sets    []*consensus.ValidatorSet // sets[h], sets[0] unused
	pending map[uint64][]consensus.Validator
}

// NewSchedule starts a schedule from the genesis validator set.
func NewSchedule(genesis *consensus.ValidatorSet) *Schedule {
	return &Schedule{sets: []*consensus.ValidatorSet{nil, genesis}, pending: make(map[uint64][]consensus.Validator)}
}

// Queue records validator changes decided while executing block height
// (Power 0 removes a validator). They take effect at NextBoundary(height).
func (s *Schedule) Queue(height uint64, changes ...consensus.Validator) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	at := NextBoundary(height)
	if uint64(len(s.sets)) > at {
		return fmt.Errorf("%w: height %d", ErrTooLate, at)
	}
	s.pending[at] = append(s.pending[at], changes...)
	return nil
}

// ValidatorSet implements consensus.ValidatorSource.
func (s *Schedule) ValidatorSet(h uint64) (*consensus.ValidatorSet, error) {
	if h == 0 {
		return nil, errors.New("cycle: no validator set at height 0 (genesis is not voted on)")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for uint64(len(s.sets)) <= h {
		next := uint64(len(s.sets))
		set := s.sets[next-1].Next()
		if ch := s.pending[next]; len(ch) > 0 {
			updated, err := set.Update(ch)
			if err != nil {
				return nil, fmt.Errorf("cycle: changes at height %d: %w", next, err)
			}
			set = updated
			delete(s.pending, next)
		}
		s.sets = append(s.sets, set)
	}
	return s.sets[h], nil
}
