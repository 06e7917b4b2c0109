package consensus

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/chaind/chaind/internal/types"
)

// MaxTotalPower bounds the total voting power so that the priority
// arithmetic (which adds and subtracts multiples of the total) cannot
// overflow an int64, as in CometBFT.
const MaxTotalPower = math.MaxInt64 / 8

// Errors returned when building or updating a validator set.
var (
	ErrEmptyValidatorSet  = errors.New("consensus: empty validator set")
	ErrDuplicateValidator = errors.New("consensus: duplicate validator")
	ErrBadPower           = errors.New("consensus: voting power must be positive")
	ErrTotalPowerTooLarge = errors.New("consensus: total voting power too large")
	ErrUnknownValidator   = errors.New("consensus: unknown validator")
)

// Validator is one member of a validator set: an address and its voting
// power (its stake, in whatever unit the staking layer chooses).
type Validator struct {
	Address types.Address
	Power   int64
}

// ValidatorSet is the validator set of one height together with the
// proposer priorities of CometBFT's weighted round robin
// (spec/consensus/proposer-selection.md). Validators are kept sorted by
// address so that every node indexes them identically. A ValidatorSet is
// immutable once built: Next and Update return new sets.
type ValidatorSet struct {
	vals  []Validator
	prio  []int64
	total int64
	index map[types.Address]int
}

// NewValidatorSet builds a set with all priorities at zero.
func NewValidatorSet(vals []Validator) (*ValidatorSet, error) {
	if len(vals) == 0 {
		return nil, ErrEmptyValidatorSet
	}
	s := &ValidatorSet{vals: slices.Clone(vals), prio: make([]int64, len(vals))}
	slices.SortFunc(s.vals, func(a, b Validator) int { return bytes.Compare(a.Address[:], b.Address[:]) })
	if err := s.init(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *ValidatorSet) init() error {
	if len(s.vals) == 0 {
		return ErrEmptyValidatorSet
	}
	s.index = make(map[types.Address]int, len(s.vals))
	s.total = 0
	for i, v := range s.vals {
		if v.Power <= 0 {
			return fmt.Errorf("%w: %x has %d", ErrBadPower, v.Address, v.Power)
		}
		if _, dup := s.index[v.Address]; dup {
			return fmt.Errorf("%w: %x", ErrDuplicateValidator, v.Address)
		}
		s.index[v.Address] = i
		s.total += v.Power
		if s.total > MaxTotalPower {
			return ErrTotalPowerTooLarge
		}
	}
	return nil
}

// Len is the number of validators.
func (s *ValidatorSet) Len() int { return len(s.vals) }

// Validator returns the i-th validator in address order.
func (s *ValidatorSet) Validator(i int) Validator { return s.vals[i] }

// Validators returns a copy of the members in address order.
func (s *ValidatorSet) Validators() []Validator { return slices.Clone(s.vals) }

// TotalPower is the sum of all voting powers.
func (s *ValidatorSet) TotalPower() int64 { return s.total }

// Index returns the position of addr in the set.
func (s *ValidatorSet) Index(addr types.Address) (int, bool) {
	i, ok := s.index[addr]
	return i, ok
}

// Power returns the voting power of addr, 0 if it is not a member.
func (s *ValidatorSet) Power(addr types.Address) int64 {
	if i, ok := s.index[addr]; ok {
		return s.vals[i].Power
	}
	return 0
}

// HasQuorum reports whether power is strictly more than two thirds of the
// total ("2f+1" in the paper, with f the Byzantine power and n > 3f).
func (s *ValidatorSet) HasQuorum(power int64) bool { return 3*power > 2*s.total }

// HasOneThird reports whether power is strictly more than one third of the
// total ("f+1": at least one correct validator is among the senders).
func (s *ValidatorSet) HasOneThird(power int64) bool { return 3*power > s.total }

// Proposer returns the proposer of the given round at this set's height:
// the validator chosen by round+1 selection runs starting from the set's
// priorities. Rounds of one height advance the same queue, so a proposer
// that failed in round r is unlikely to be chosen again in round r+1.
func (s *ValidatorSet) Proposer(round int32) types.Address {
	prio := slices.Clone(s.prio)
	var p int
	for range int(round) + 1 {
		p = s.selectOnce(prio)
	}
	return s.vals[p].Address
}

// Next returns the set for the following height: same members, priorities
// advanced by one selection run.
func (s *ValidatorSet) Next() *ValidatorSet {
	n := s.clone()
	n.selectOnce(n.prio)
	return n
}

// Update returns a set with changes applied: a change with Power 0 removes
// the validator, any other power adds it or sets its power. A newly added
// validator starts at priority -1.125·P (P = the new total), so leaving and
// rejoining cannot jump the proposer queue.
func (s *ValidatorSet) Update(changes []Validator) (*ValidatorSet, error) {
	n := s.clone()
	var added []types.Address
	for _, c := range changes {
		if c.Power < 0 {
			return nil, fmt.Errorf("%w: %x has %d", ErrBadPower, c.Address, c.Power)
		}
		i, ok := n.index[c.Address]
		switch {
		case ok && c.Power == 0:
			n.vals = slices.Delete(n.vals, i, i+1)
			n.prio = slices.Delete(n.prio, i, i+1)
		case ok:
			n.vals[i].Power = c.Power
		case c.Power == 0:
			return nil, fmt.Errorf("%w: cannot remove %x", ErrUnknownValidator, c.Address)
		default:
			n.vals = append(n.vals, c)
			n.prio = append(n.prio, 0)
			added = append(added, c.Address)
		}
		if err := n.reindex(); err != nil {
			return nil, err
		}
	}
	// Sort members and priorities together by address.
	order := make([]int, len(n.vals))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return bytes.Compare(n.vals[a].Address[:], n.vals[b].Address[:]) })
	vals, prio := make([]Validator, len(order)), make([]int64, len(order))
	for k, i := range order {
		vals[k], prio[k] = n.vals[i], n.prio[i]
	}
	n.vals, n.prio = vals, prio
	if err := n.init(); err != nil {
		return nil, err
	}
	for _, a := range added {
		n.prio[n.index[a]] = -(n.total + n.total>>3)
	}
	return n, nil
}

// reindex rebuilds the address index during Update (duplicates in one
// change list land on the same entry, so only the map needs refreshing).
func (s *ValidatorSet) reindex() error {
	s.index = make(map[types.Address]int, len(s.vals))
	for i, v := range s.vals {
		s.index[v.Address] = i
	}
	if len(s.vals) == 0 {
		return ErrEmptyValidatorSet
	}
	return nil
}

func (s *ValidatorSet) clone() *ValidatorSet {
	n := &ValidatorSet{vals: slices.Clone(s.vals), prio: slices.Clone(s.prio), total: s.total,
		index: make(map[types.Address]int, len(s.vals))}
	for k, v := range s.index {
		n.index[k] = v
	}
	return n
}

// selectOnce runs one round of the selection procedure on prio and returns
// the index of the chosen proposer: scale the priorities so that their
// spread is at most 2·P, centre them on zero, add every validator's power,
// take the highest priority (ties go to the smaller address, which is the
// lower index), and move the winner back by P.
func (s *ValidatorSet) selectOnce(prio []int64) int {
	lo, hi := prio[0], prio[0]
	for _, a := range prio[1:] {
		lo, hi = min(lo, a), max(hi, a)
	}
	if limit := 2 * s.total; hi-lo > limit {
		scale := (hi - lo + limit - 1) / limit // ceil, so the spread ends ≤ 2·P
		for i := range prio {
			prio[i] /= scale
		}
	}
	var sum int64
	for _, a := range prio {
		sum += a // centred values stay within a few P, far from overflow
	}
	avg := sum / int64(len(prio)) // truncation, as in the spec's worked examples
	best := 0
	for i := range prio {
		prio[i] += s.vals[i].Power - avg
		if prio[i] > prio[best] {
			best = i
		}
	}
	prio[best] -= s.total
	return best
}
