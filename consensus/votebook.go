package consensus

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/chaind/chaind/internal/types"
)

// Errors of VoteBook.Add.
var (
	ErrWrongHeight = errors.New("consensus: vote for another height")
	ErrBadVote     = errors.New("consensus: malformed vote")
)

// AddResult says what VoteBook.Add did with a vote.
type AddResult uint8

// Outcomes of VoteBook.Add.
const (
	Added     AddResult = iota // first vote of this validator for this round and type
	Duplicate                  // the same vote again; ignored
	Conflict                   // a different vote for the same round and type: equivocation
)

// VoteBook keeps the votes of one height, per round and type, with tallies
// of voting power per value. As in the paper, "2f+1 ⟨PRECOMMIT, h, r,
// id(v)⟩" counts distinct senders of a message for id(v): a validator that
// equivocates is counted for each value it signed (up to maxConflicts of
// them), which is sound because quorums for two values intersect in more
// than f power and so in an honest validator, who never signs both. The
// "any value" sums count each validator once. The book also tracks, per
// round, the power of distinct validators that sent anything, for the
// round-skip rule (L55).
type VoteBook struct {
	height uint64
	vals   *ValidatorSet
	rounds map[int32]*roundLog

	// Rules the core can switch off in tests (see rules.go).
	noDedup      bool                  // count a repeated vote again
	noMembership bool                  // count votes of non-members, with power 1 each
	outsiders    map[types.Address]int // with noMembership: slots after the members
}

type roundLog struct {
	tallies     [2]tally // Prevote, Precommit
	sent        []bool   // validator i sent some message for this round
	senderPower int64
}

// maxConflicts bounds how many different values one validator's votes are
// kept for, per round and type, so an equivocator cannot fill memory.
const maxConflicts = 3

type tally struct {
	votes []Vote         // first vote, by validator index; Type==0 marks an empty slot
	extra map[int][]Vote // later votes for other values, by validator index
	power map[types.Hash]int64
	sum   int64 // power of distinct voters, whatever their value
}

// NewVoteBook returns an empty book for height with validator set vals.
func NewVoteBook(height uint64, vals *ValidatorSet) *VoteBook {
	return &VoteBook{height: height, vals: vals, rounds: make(map[int32]*roundLog)}
}

func (b *VoteBook) round(r int32) *roundLog {
	rl := b.rounds[r]
	if rl == nil {
		n := b.vals.Len()
		rl = &roundLog{sent: make([]bool, n)}
		for i := range rl.tallies {
			rl.tallies[i] = tally{votes: make([]Vote, n), power: make(map[types.Hash]int64, 2)}
		}
		b.rounds[r] = rl
	}
	return rl
}

// Add records v. It returns Conflict and the earlier vote when v
// contradicts a vote already held from the same validator.
func (b *VoteBook) Add(v Vote) (AddResult, Vote, error) {
	if v.Height != b.height {
		return 0, Vote{}, fmt.Errorf("%w: %d, book is for %d", ErrWrongHeight, v.Height, b.height)
	}
	if (v.Type != Prevote && v.Type != Precommit) || v.Round < 0 {
		return 0, Vote{}, ErrBadVote
	}
	// Only members' votes count: the set of the height defines "2f+1".
	i, ok := b.vals.Index(v.Validator)
	var p int64
	switch {
	case ok:
		p = b.vals.vals[i].Power
	case b.noMembership:
		i, p = b.outsider(v.Validator), 1
	default:
		return 0, Vote{}, fmt.Errorf("%w: %x", ErrUnknownValidator, v.Validator)
	}
	rl := b.round(v.Round)
	rl.grow(i + 1)
	t := &rl.tallies[v.Type-1]
	if old := t.votes[i]; old.Type != 0 {
		// "2f+1 ⟨…⟩" counts senders: the same vote again adds nothing.
		if old.ID == v.ID {
			if b.noDedup {
				t.power[v.ID] += p
				t.sum += p
				return Added, Vote{}, nil
			}
			if old.Signature == nil && v.Signature != nil {
				t.votes[i].Signature = v.Signature // our own vote came back signed
			}
			return Duplicate, old, nil
		}
		for _, x := range t.extra[i] {
			if x.ID == v.ID && !b.noDedup {
				return Duplicate, x, nil
			}
		}
		if len(t.extra[i]) < maxConflicts {
			if t.extra == nil {
				t.extra = make(map[int][]Vote)
			}
			t.extra[i] = append(t.extra[i], v)
			t.power[v.ID] += p
		}
		return Conflict, old, nil
	}
	t.votes[i] = v
	t.power[v.ID] += p
	t.sum += p
	b.markSender(rl, i, p)
	return Added, Vote{}, nil
}

// outsider gives a non-member a slot after the members (noMembership only).
func (b *VoteBook) outsider(a types.Address) int {
	if b.outsiders == nil {
		b.outsiders = make(map[types.Address]int)
	}
	i, ok := b.outsiders[a]
	if !ok {
		i = b.vals.Len() + len(b.outsiders)
		b.outsiders[a] = i
	}
	return i
}

// grow makes room for slot n-1, for outsiders (noMembership only).
func (rl *roundLog) grow(n int) {
	for len(rl.sent) < n {
		rl.sent = append(rl.sent, false)
		for i := range rl.tallies {
			rl.tallies[i].votes = append(rl.tallies[i].votes, Vote{})
		}
	}
}

// MarkSender notes that validator addr sent a message (a proposal, say) in
// round r, for the round-skip rule.
func (b *VoteBook) MarkSender(r int32, addr types.Address) {
	if i, ok := b.vals.Index(addr); ok {
		b.markSender(b.round(r), i, b.vals.vals[i].Power)
	}
}

func (b *VoteBook) markSender(rl *roundLog, i int, power int64) {
	if !rl.sent[i] {
		rl.sent[i] = true
		rl.senderPower += power
	}
}

// Power is the voting power of votes of type t for id in round r.
func (b *VoteBook) Power(r int32, t VoteType, id types.Hash) int64 {
	if rl := b.rounds[r]; rl != nil {
		return rl.tallies[t-1].power[id]
	}
	return 0
}

// Sum is the voting power of all votes of type t in round r, whatever
// they are for ("2f+1 ⟨PREVOTE, h, r, ∗⟩").
func (b *VoteBook) Sum(r int32, t VoteType) int64 {
	if rl := b.rounds[r]; rl != nil {
		return rl.tallies[t-1].sum
	}
	return 0
}

// SenderPower is the power of distinct validators that sent anything in round r.
func (b *VoteBook) SenderPower(r int32) int64 {
	if rl := b.rounds[r]; rl != nil {
		return rl.senderPower
	}
	return 0
}

// Votes returns the votes of type t for id in round r, in validator order.
func (b *VoteBook) Votes(r int32, t VoteType, id types.Hash) []Vote {
	rl := b.rounds[r]
	if rl == nil {
		return nil
	}
	var out []Vote
	tl := &rl.tallies[t-1]
	for i, v := range tl.votes {
		if v.Type != 0 && v.ID == id {
			out = append(out, v)
			continue
		}
		for _, x := range tl.extra[i] {
			if x.ID == id {
				out = append(out, x)
			}
		}
	}
	return out
}

// Rounds returns the rounds the book holds anything for, unordered.
func (b *VoteBook) Rounds() []int32 {
	out := make([]int32, 0, len(b.rounds))
	for r := range b.rounds {
		out = append(out, r)
	}
	return out
}

// IDs returns the values (NilID included) that votes of type t in round r
// are for, in a deterministic order.
func (b *VoteBook) IDs(r int32, t VoteType) []types.Hash {
	rl := b.rounds[r]
	if rl == nil {
		return nil
	}
	out := make([]types.Hash, 0, len(rl.tallies[t-1].power))
	for id := range rl.tallies[t-1].power {
		out = append(out, id)
	}
	slices.SortFunc(out, func(a, b types.Hash) int { return bytes.Compare(a[:], b[:]) })
	return out
}

// All returns every vote in the book, ordered by round, type and
// validator, conflicting ones included.
func (b *VoteBook) All() []Vote {
	rounds := b.Rounds()
	slices.Sort(rounds)
	var out []Vote
	for _, r := range rounds {
		for ti := range b.rounds[r].tallies {
			t := &b.rounds[r].tallies[ti]
			for i, v := range t.votes {
				if v.Type != 0 {
					out = append(out, v)
				}
				out = append(out, t.extra[i]...)
			}
		}
	}
	return out
}
