// Package cycle gives the validator set of every height of a chain whose
// set never changes (a BFT chain without staking, the simulator): the
// genesis set with proposer priorities advanced once per height. The
// runtime reads it and hands the core the sets (consensus.ValidatorsEvent).
// A proof-of-stake chain's sets are recorded by the blocks that chose them
// instead (internal/pos).
package cycle

import (
	"errors"
	"sync"

	"github.com/chaind/chaind/consensus"
)

// keep is how many recent heights' sets a Schedule holds; older ones are
// recomputed from genesis when asked for (old evidence, a node syncing
// from far back), so memory does not grow with the chain.
const keep = 1024

// Schedule is the validator set of every height of a fixed set. Height 1
// (the first block after genesis) uses the genesis set; each later height
// the previous set with proposer priorities advanced by one run. It is
// safe for concurrent use.
type Schedule struct {
	genesis *consensus.ValidatorSet

	mu   sync.Mutex
	base uint64                    // the height of sets[0]
	sets []*consensus.ValidatorSet // consecutive heights from base
}

// NewSchedule starts a schedule from the genesis validator set.
func NewSchedule(genesis *consensus.ValidatorSet) *Schedule {
	return &Schedule{genesis: genesis, base: 1, sets: []*consensus.ValidatorSet{genesis}}
}

// ValidatorSet implements consensus.ValidatorSource.
func (s *Schedule) ValidatorSet(h uint64) (*consensus.ValidatorSet, error) {
	if h == 0 {
		return nil, errors.New("cycle: no validator set at height 0 (genesis is not voted on)")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if h < s.base {
		set := s.genesis
		for range h - 1 {
			set = set.Next()
		}
		return set, nil
	}
	for s.base+uint64(len(s.sets)) <= h {
		s.sets = append(s.sets, s.sets[len(s.sets)-1].Next())
		if len(s.sets) > 2*keep {
			drop := len(s.sets) - keep
			s.sets = append([]*consensus.ValidatorSet(nil), s.sets[drop:]...)
			s.base += uint64(drop)
		}
	}
	return s.sets[h-s.base], nil
}
