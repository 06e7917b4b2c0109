package consensus

import (
	"bytes"
	"errors"
	"testing"

	"github.com/chaind/chaind/internal/types"
)

const testChain = 8118

func signers(t testing.TB, n int) ([]*Signer, *ValidatorSet) {
	t.Helper()
	var ss []*Signer
	var vals []Validator
	for i := range n {
		key := make([]byte, 32)
		key[31] = byte(i + 1)
		key[0] = 0x42
		s, err := NewSigner(testChain, key)
		if err != nil {
			t.Fatal(err)
		}
		ss = append(ss, s)
		vals = append(vals, Validator{Address: s.Address(), Power: int64(1 + i%2)})
	}
	set, err := NewValidatorSet(vals)
	if err != nil {
		t.Fatal(err)
	}
	return ss, set
}

func TestSignVerify(t *testing.T) {
	ss, _ := signers(t, 1)
	v := Vote{Type: Precommit, Height: 9, Round: 2, ID: types.Hash{1}}
	ss[0].SignVote(&v)
	if err := VerifyVote(testChain, v); err != nil {
		t.Fatal(err)
	}
	for name, mut := range map[string]func(*Vote){
		"chain":  nil,
		"type":   func(v *Vote) { v.Type = Prevote },
		"height": func(v *Vote) { v.Height++ },
		"round":  func(v *Vote) { v.Round++ },
		"id":     func(v *Vote) { v.ID[5] ^= 1 },
		"signer": func(v *Vote) { v.Validator[0] ^= 1 },
		"sig":    func(v *Vote) { v.Signature = v.Signature[:64] },
	} {
		w := v
		w.Signature = bytes.Clone(v.Signature)
		chain := uint64(testChain)
		if mut == nil {
			chain++
		} else {
			mut(&w)
		}
		if err := VerifyVote(chain, w); !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s changed: err = %v, want ErrBadSignature", name, err)
		}
	}
	p := Proposal{Height: 9, Round: 2, ValidRound: 1, Value: val(3)}
	ss[0].SignProposal(&p)
	if err := VerifyProposal(testChain, p); err != nil {
		t.Fatal(err)
	}
	p.ValidRound = -1 // the valid round is signed too
	if err := VerifyProposal(testChain, p); err == nil {
		t.Fatal("changed validRound verified")
	}
	// A vote never verifies as a proposal with the same fields.
	if VoteDigest(testChain, Vote{Type: Prevote, Height: 1, Round: 0, ID: p.Value.ID}) ==
		ProposalDigest(testChain, Proposal{Height: 1, Round: 0, Value: p.Value, ValidRound: -1}) {
		t.Fatal("vote and proposal digests collide")
	}
}

func decisionVotes(ss []*Signer, h uint64, r int32, id types.Hash, who []int) []Vote {
	var out []Vote
	for _, i := range who {
		v := Vote{Type: Precommit, Height: h, Round: r, ID: id}
		ss[i].SignVote(&v)
		out = append(out, v)
	}
	return out
}

func TestCertificate(t *testing.T) {
	ss, vals := signers(t, 7) // powers 1,2,1,2,1,2,1 = 10
	id := types.Hash{0xB}
	// 0..4: powers 1+2+1+2+1 = 7 > 20/3.
	c, err := NewCertificate(vals, 5, 1, id, decisionVotes(ss, 5, 1, id, []int{0, 1, 2, 3, 4}))
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyCertificate(testChain, vals, 5, id, c); err != nil {
		t.Fatal(err)
	}
	dec, err := DecodeCertificate(c.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyCertificate(testChain, vals, 5, id, dec); err != nil {
		t.Fatalf("decoded certificate: %v", err)
	}
	if !bytes.Equal(dec.Encode(), c.Encode()) {
		t.Fatal("encoding does not round-trip")
	}
	// 0,2,4,6: power 4 is no quorum.
	if _, err := NewCertificate(vals, 5, 1, id, decisionVotes(ss, 5, 1, id, []int{0, 2, 4, 6})); !errors.Is(err, ErrCertificate) {
		t.Fatalf("minority certificate: %v", err)
	}
	bad := []struct {
		name string
		mut  func(c *Certificate)
		h    uint64
		id   types.Hash
	}{
		{"wrong height", nil, 6, id},
		{"wrong block", nil, 5, types.Hash{0xC}},
		{"dropped signer", func(c *Certificate) { c.Signers[0] &^= firstBit(c.Signers[0]); c.Signatures = c.Signatures[1:] }, 5, id},
		{"extra bit", func(c *Certificate) { c.Signers[0] |= 0x80 }, 5, id},
		{"swapped sigs", func(c *Certificate) { c.Signatures[0], c.Signatures[1] = c.Signatures[1], c.Signatures[0] }, 5, id},
		{"short bitmap", func(c *Certificate) { c.Signers = nil }, 5, id},
		{"other round", func(c *Certificate) { c.Round = 2 }, 5, id},
	}
	for _, b := range bad {
		cc, _ := DecodeCertificate(c.Encode())
		if b.mut != nil {
			b.mut(cc)
		}
		if err := VerifyCertificate(testChain, vals, b.h, b.id, cc); !errors.Is(err, ErrCertificate) {
			t.Errorf("%s: err = %v, want ErrCertificate", b.name, err)
		}
	}
}

func firstBit(b byte) byte { return b & -b }

func TestEvidence(t *testing.T) {
	ss, vals := signers(t, 4)
	a := Vote{Type: Prevote, Height: 3, Round: 1, ID: types.Hash{0xA}}
	b := Vote{Type: Prevote, Height: 3, Round: 1, ID: NilID}
	ss[2].SignVote(&a)
	ss[2].SignVote(&b)
	ev := NewDuplicateVoteEvidence(a, b)
	if err := ev.Verify(testChain, vals); err != nil {
		t.Fatal(err)
	}
	dec, err := DecodeDuplicateVoteEvidence(ev.Encode())
	if err != nil || dec.Verify(testChain, vals) != nil {
		t.Fatalf("round trip: %v", err)
	}
	c := Vote{Type: Prevote, Height: 3, Round: 2, ID: types.Hash{0xC}}
	ss[2].SignVote(&c)
	other := Vote{Type: Prevote, Height: 3, Round: 1, ID: types.Hash{0xD}}
	ss[1].SignVote(&other)
	forged := b
	forged.Signature = a.Signature
	for name, e := range map[string]DuplicateVoteEvidence{
		"same vote":       {A: a, B: a},
		"different round": NewDuplicateVoteEvidence(a, c),
		"two validators":  NewDuplicateVoteEvidence(a, other),
		"bad signature":   NewDuplicateVoteEvidence(a, forged),
		"order":           {A: ev.B, B: ev.A},
	} {
		if err := e.Verify(testChain, vals); !errors.Is(err, ErrEvidence) {
			t.Errorf("%s: err = %v, want ErrEvidence", name, err)
		}
	}
	_, small := signers(t, 2)
	if err := ev.Verify(testChain, small); !errors.Is(err, ErrEvidence) {
		t.Errorf("non-member: %v", err)
	}
}

func TestCodecsRoundTrip(t *testing.T) {
	ss, _ := signers(t, 1)
	p := Proposal{Height: 1 << 40, Round: 3, ValidRound: -1, Value: Value{ID: types.Hash{9}, Data: []byte("block")}}
	ss[0].SignProposal(&p)
	gp, err := DecodeProposal(EncodeProposal(p))
	if err != nil || gp.Height != p.Height || gp.Round != p.Round || gp.ValidRound != -1 ||
		gp.Value.ID != p.Value.ID || !bytes.Equal(gp.Value.Data, p.Value.Data) || gp.Proposer != p.Proposer ||
		VerifyProposal(testChain, gp) != nil {
		t.Fatalf("proposal round trip: %+v, %v", gp, err)
	}
	v := Vote{Type: Prevote, Height: 2, Round: 0, ID: NilID}
	ss[0].SignVote(&v)
	gv, err := DecodeVote(EncodeVote(v))
	if err != nil || VerifyVote(testChain, gv) != nil || gv.Validator != v.Validator {
		t.Fatalf("vote round trip: %+v, %v", gv, err)
	}
	snap := Snapshot{Height: 4, Round: 2, Step: StepPrecommit, LockedValue: val(1), LockedRound: 1, ValidRound: -1,
		Proposals: []Proposal{p}, Votes: []Vote{v}, Received: []Vote{v, v}, ReceivedProposals: []Proposal{p}}
	gs, err := DecodeSnapshot(snap.Encode())
	if err == nil && (len(gs.Received) != 2 || len(gs.ReceivedProposals) != 1) {
		t.Fatalf("snapshot lost received messages: %+v", gs)
	}
	if err != nil || gs.Height != 4 || gs.Round != 2 || gs.Step != StepPrecommit || gs.LockedRound != 1 ||
		gs.ValidRound != -1 || gs.LockedValue.ID != snap.LockedValue.ID || len(gs.Proposals) != 1 || len(gs.Votes) != 1 {
		t.Fatalf("snapshot round trip: %+v, %v", gs, err)
	}
	for _, bad := range [][]byte{nil, {0xc0}, {0x01}, append(EncodeVote(v), 0)} {
		if _, err := DecodeVote(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("DecodeVote(%x): %v", bad, err)
		}
	}
}

func FuzzDecodeVote(f *testing.F) {
	ss, _ := signers(f, 1)
	v := Vote{Type: Precommit, Height: 7, Round: 1, ID: types.Hash{1}}
	ss[0].SignVote(&v)
	f.Add(EncodeVote(v))
	f.Add([]byte{0xc0})
	f.Fuzz(func(t *testing.T, b []byte) {
		if v, err := DecodeVote(b); err == nil {
			if _, err := DecodeVote(EncodeVote(v)); err != nil {
				t.Fatalf("re-encoding fails: %v", err)
			}
		}
	})
}

func FuzzDecodeProposal(f *testing.F) {
	f.Add(EncodeProposal(Proposal{Height: 1, Round: 2, ValidRound: 1, Value: val(1)}))
	f.Fuzz(func(t *testing.T, b []byte) { DecodeProposal(b) })
}

func FuzzDecodeCertificate(f *testing.F) {
	ss, vals := signers(f, 4)
	id := types.Hash{7}
	c, _ := NewCertificate(vals, 1, 0, id, decisionVotes(ss, 1, 0, id, []int{0, 1, 2, 3}))
	f.Add(c.Encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		if c, err := DecodeCertificate(b); err == nil {
			VerifyCertificate(testChain, vals, c.Height, c.BlockHash, c) // must not panic
		}
	})
}

func FuzzDecodeSnapshot(f *testing.F) {
	snap := Snapshot{Height: 4, Round: 2, LockedRound: -1, ValidRound: -1, Votes: []Vote{{Type: Prevote, Height: 4}}}
	f.Add(snap.Encode())
	f.Fuzz(func(t *testing.T, b []byte) { DecodeSnapshot(b) })
}

func FuzzDecodeEvidence(f *testing.F) {
	f.Add(NewDuplicateVoteEvidence(Vote{Type: Prevote, ID: types.Hash{1}}, Vote{Type: Prevote}).Encode())
	f.Fuzz(func(t *testing.T, b []byte) { DecodeDuplicateVoteEvidence(b) })
}
