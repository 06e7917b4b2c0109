package bft

import (
	"fmt"
	"sync"
	"testing"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/types"
)

// Nothing a validator signs leaves the process before its state file
// holds it: every proposal and vote on the wire is checked, at the moment
// it is sent, against the sender's state file. (The core orders its
// Persist effect first; this shows the driver keeps that order.)
func TestSignedMessagesLeaveOnlyAfterPersist(t *testing.T) {
	tn := newTestNet(t, []int64{1, 1, 1, 1})
	files := make(map[types.Address]int)
	for i, s := range tn.signers {
		files[s.Address()] = i
	}
	var mu sync.Mutex
	var checked int
	var bad []string
	tn.net.Tap(func(from types.Address, msg []byte) {
		ev, err := consensus.DecodeMessage(msg)
		if err != nil {
			return
		}
		var h uint64
		var r int32
		var own bool
		var inFile func(consensus.Snapshot) bool
		switch e := ev.(type) {
		case consensus.VoteEvent:
			v := e.Vote
			h, r, own = v.Height, v.Round, v.Validator == from
			inFile = func(s consensus.Snapshot) bool {
				for _, x := range s.Votes {
					if x.Type == v.Type && x.Round == v.Round && x.ID == v.ID {
						return true
					}
				}
				return false
			}
		case consensus.ProposalEvent:
			p := e.Proposal
			h, r, own = p.Height, p.Round, p.Proposer == from
			inFile = func(s consensus.Snapshot) bool {
				for _, x := range s.Proposals {
					if x.Round == p.Round && x.Value.ID == p.Value.ID {
						return true
					}
				}
				return false
			}
		default:
			return
		}
		if !own {
			return
		}
		// Runs on the sender's goroutine, so the file is as it was when
		// the message left.
		snap, err := loadSnapshot(tn.apps[files[from]].stateFile)
		mu.Lock()
		defer mu.Unlock()
		checked++
		if err != nil || (snap.Height == h && !inFile(snap)) || snap.Height < h {
			bad = append(bad, fmt.Sprintf("%T of %x at %d/%d sent before its state file held it (file at height %d, %v)", ev, from[:4], h, r, snap.Height, err))
		}
	})
	for i := range 4 {
		tn.start(i)
	}
	defer tn.stopAll()
	tn.waitHeights(4, 0, 1, 2, 3)
	tn.stopAll()
	mu.Lock()
	defer mu.Unlock()
	if checked == 0 {
		t.Fatal("no signed message was seen")
	}
	for _, b := range bad {
		t.Error(b)
	}
	t.Logf("%d signed messages checked against their sender's state file", checked)
}
