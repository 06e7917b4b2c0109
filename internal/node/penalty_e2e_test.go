package node

import (
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/node/bft"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/staking"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// A devnet validator equivocates: two prevotes of its, signed with its
// key for two different values at one height and round, reach the other
// validators. Their consensus cores find the conflict, the next proposer
// puts the evidence in its block's consensus data, the others check it,
// and the block's execution slashes and jails the validator; it leaves
// the set at the next cycle and the chain goes on without it. The blocks
// also report real absences: the validator was stopped first, and every
// block names it as missing from its parent's certificate.
func TestDoubleSignSlashedAndJailed(t *testing.T) {
	const chainID = 8119
	dn, err := StartDevnet(DevnetConfig{Validators: 4, BlockTime: 20 * time.Millisecond, HTTPPort: -1, ChainID: chainID})
	if err != nil {
		t.Fatal(err)
	}
	defer dn.Close()
	n := dn.Nodes[0]
	waitHead(t, n, 2)
	key, _ := DevValidatorKey(3)
	signer, err := consensus.NewSigner(chainID, key.Serialize())
	if err != nil {
		t.Fatal(err)
	}
	offender := signer.Address()
	spy := dn.net.Join(types.Address{0xee})
	// Stopped, it signs nothing more; the votes below are a test's forgery
	// with its key, as a faulty or malicious node would send them.
	dn.Stop(3)
	stopped := n.Chain.Head().Number()

	// Equivocate a little ahead of the head (the cores buffer votes of
	// coming heights) until a block carries the evidence.
	var evBlock *types.Block
	var evidence consensus.DuplicateVoteEvidence
	scanned := uint64(0)
	deadline := time.Now().Add(60 * time.Second)
	for evBlock == nil {
		if time.Now().After(deadline) {
			t.Fatal("no block carried the double sign")
		}
		h := n.Chain.Head().Number() + 2
		for _, id := range []types.Hash{{1}, {2}} {
			v := consensus.Vote{Type: consensus.Prevote, Height: h, Round: 0, ID: id, Validator: offender}
			signer.SignVote(&v)
			spy.Broadcast(bft.EncodeMessage(consensus.VoteEvent{Vote: v}))
		}
		time.Sleep(100 * time.Millisecond)
		for ; scanned < n.Chain.Head().Number(); scanned++ {
			b, err := n.Chain.BlockByNumber(scanned + 1)
			if err != nil {
				t.Fatal(err)
			}
			d, err := pos.DecodeConsensusData(b.HeaderRef().Extra)
			if err != nil {
				t.Fatalf("block %d: %v", b.Number(), err)
			}
			if len(d.Evidence) > 0 {
				evBlock, evidence = b, d.Evidence[0]
				break
			}
		}
	}
	if evidence.A.Validator != offender || evidence.A.ID == evidence.B.ID {
		t.Fatalf("evidence %+v", evidence)
	}

	// The block that carries it slashes and jails at once.
	st, err := n.Chain.StateAt(evBlock.Root())
	if err != nil {
		t.Fatal(err)
	}
	v, _ := staking.ReadValidator(st, offender)
	p := staking.ReadParams(st)
	supply := staking.ReadSupply(st)
	st.Release()
	want, _ := new(uint256.Int).MulDivOverflow(pos.DevValidatorStake, uint256.NewInt(p.NodeRefutedPenalty), uint256.NewInt(staking.PPM))
	if !v.Jailed || !v.Slashed.Eq(want) || !new(uint256.Int).Add(v.Tokens, want).Eq(pos.DevValidatorStake) {
		t.Fatalf("after the evidence block: jailed %v, slashed %v (want %v), tokens %v", v.Jailed, v.Slashed, want, v.Tokens)
	}
	parent, _ := n.Chain.BlockByNumber(evBlock.Number() - 1)
	pst, _ := n.Chain.StateAt(parent.Root())
	before := staking.ReadSupply(pst)
	handled := staking.EvidenceHandled(pst, offender, evidence.A.Height)
	pst.Release()
	if handled || new(uint256.Int).Sub(supply.Burned, before.Burned).Lt(want) {
		t.Fatalf("burned %v → %v, want at least %v more (handled before: %v)", before.Burned, supply.Burned, want, handled)
	}
	// The slash log, as the explorer lists it, names the block, the
	// offence's height and what was taken.
	h := evBlock.Number()
	evs, err := n.stake.Signing().SlashEvents(&h, offender)
	if err != nil || len(evs) != 1 || evs[0].Height != h || evs[0].Infraction != evidence.A.Height ||
		evs[0].Reason != "double_sign" || !evs[0].Amount.Eq(want) {
		t.Fatalf("slash log %+v %v", evs, err)
	}
	// Punished once: the same offence offered again (as a peer's gossip
	// would) is refused, and the pools hold nothing more to include.
	if err := n.AddEvidence(evidence); err == nil || !strings.Contains(err.Error(), "punished already") {
		t.Fatalf("evidence offered again: %v", err)
	}

	// Stopped before it equivocated, it was reported absent from every
	// certificate it no longer signed.
	checked := 0
	for num := stopped + 2; num <= evBlock.Number(); num++ {
		b, _ := n.Chain.BlockByNumber(num)
		d, err := pos.DecodeConsensusData(b.HeaderRef().Extra)
		if err != nil {
			t.Fatal(err)
		}
		set, err := n.Validators().ValidatorSet(num - 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, in := set.Index(offender); in {
			if len(d.Absent) != 1 || d.Absent[0] != offender {
				t.Fatalf("block %d reports absent %x, want only the stopped validator", num, d.Absent)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("no block after the stop to check")
	}
	if v.MissedBlocks == 0 {
		t.Fatal("no missed blocks counted")
	}

	// After the next selection it is out: jailed in the node list, and not
	// in the set of the cycle that follows, which runs on.
	cycles := types.DefaultCycles
	cy := cycles.Of(evBlock.Number())
	next := cycles.First(cy + 1)
	if evBlock.Number() >= cycles.SelectionBlock(cy) {
		next = cycles.First(cy + 2) // chosen before the evidence landed
	}
	waitHead(t, n, next+3)
	set, err := n.Validators().ValidatorSet(next + 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, in := set.Index(offender); in || set.Len() != 3 {
		t.Fatalf("set of block %d: %d validators, offender in it %v", next+1, set.Len(), in)
	}
	nw := n.stake.Network()
	for _, nd := range nw.Nodes() {
		if types.Address(nd.Operator) == v.Operator && nd.Status != "jailed" {
			t.Fatalf("offender's node status %q", nd.Status)
		}
	}
	// Its votes are not needed any more; the absent list no longer names it.
	b := n.Chain.Head()
	if d, _ := pos.DecodeConsensusData(b.HeaderRef().Extra); len(d.Absent) != 0 {
		t.Fatalf("block %d reports absent %x", b.Number(), d.Absent)
	}
	checkSupply(t, n)
}
