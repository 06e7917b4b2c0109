package sim

import (
	"bytes"
	"encoding/binary"
	"slices"
	"sync"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
)

// ChainID is the chain the simulated validators sign for. The Replay
// adversary holds messages the same keys signed for ChainID+1.
const ChainID = 0x5117

// keyring derives validator keys from their index, the same in every run,
// and keeps the signers: deriving a public key costs more than a whole
// small simulation step. Signers are immutable, so runs on several
// goroutines share them.
var keyring struct {
	sync.Mutex
	signers map[uint64][]*consensus.Signer // by chain ID, by key index
}

// signersFor returns the signers of key indices [0, n) for chainID.
func signersFor(chainID uint64, n int) []*consensus.Signer {
	keyring.Lock()
	defer keyring.Unlock()
	if keyring.signers == nil {
		keyring.signers = make(map[uint64][]*consensus.Signer)
	}
	ss := keyring.signers[chainID]
	for j := len(ss); j < n; j++ {
		var idx [8]byte
		binary.BigEndian.PutUint64(idx[:], uint64(j))
		for salt := byte(0); ; salt++ {
			key := crypto.Keccak256([]byte("chaind/sim/key"), idx[:], []byte{salt})
			s, err := consensus.NewSigner(chainID, key[:])
			if err == nil {
				ss = append(ss, s)
				break
			}
		}
	}
	keyring.signers[chainID] = ss
	return ss[:n]
}

// validatorKeys returns the keys of n validators followed by extra keys of
// non-members, for chainID. Validators are ordered by address, so node i
// is the i-th member of the validator set; key index k (before sorting) is
// the same key on every chain.
func validatorKeys(chainID uint64, n, extra int) (members, outsiders []*consensus.Signer, order []int) {
	all := signersFor(chainID, n+extra)
	order = make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		x, y := all[a].Address(), all[b].Address()
		return bytes.Compare(x[:], y[:])
	})
	for _, k := range order {
		members = append(members, all[k])
	}
	return members, all[n:], order
}

// signer signs as one validator, remembering signatures: retransmissions,
// relays and certificates ask again for the same ones (the signature is
// deterministic, so remembering changes nothing but the time).
type signer struct {
	s    *consensus.Signer
	memo map[types.Hash][]byte
}

func newSigner(s *consensus.Signer) *signer {
	return &signer{s: s, memo: make(map[types.Hash][]byte)}
}

func (g *signer) remember(d types.Hash, sig []byte) {
	if len(g.memo) >= 4096 {
		clear(g.memo)
	}
	g.memo[d] = sig
}

// vote returns v signed as this validator (v.Validator is set to it).
func (g *signer) vote(v consensus.Vote) consensus.Vote {
	v.Validator = g.s.Address()
	d := consensus.VoteDigest(g.s.ChainID(), v)
	if sig, ok := g.memo[d]; ok {
		v.Signature = sig
		return v
	}
	g.s.SignVote(&v)
	g.remember(d, v.Signature)
	return v
}

// proposal returns p signed as this validator (p.Proposer is set to it).
func (g *signer) proposal(p consensus.Proposal) consensus.Proposal {
	p.Proposer = g.s.Address()
	d := consensus.ProposalDigest(g.s.ChainID(), p)
	if sig, ok := g.memo[d]; ok {
		p.Signature = sig
		return p
	}
	g.s.SignProposal(&p)
	g.remember(d, p.Signature)
	return p
}

// encodeVote and encodeProposal give the wire bytes of a signed message.
func encodeVote(v consensus.Vote) []byte {
	return consensus.EncodeMessage(consensus.VoteEvent{Vote: v})
}

func encodeProposal(p consensus.Proposal) []byte {
	return consensus.EncodeMessage(consensus.ProposalEvent{Proposal: p})
}
