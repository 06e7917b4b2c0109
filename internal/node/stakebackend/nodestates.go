package stakebackend

import (
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// Node states come from the chain's signing records (signingStates,
// below), the same on every node; on top of them, whether a node is
// catching up before it signs again is not in the chain, so
// chain_getNodeList and the counts of the running cycle in
// chain_getCycleInfo add what this node knows: itself, and the peers
// whose last status said they sync.

// nodeID is the p2p ID of a node with the compressed public key pub: the
// address of the key (a validator's node key is its validator key).
func nodeID(pub []byte) (types.Address, bool) {
	k, err := secp256k1.ParsePubKey(pub)
	if err != nil {
		return types.Address{}, false
	}
	return types.Address(crypto.PubkeyToAddress(k)), true
}

// markSyncing shows as "syncing" the active and standby validators of
// nodes that are catching up, and returns how many of each it moved.
func markSyncing(nodes []backend.NodeInfo, syncing map[types.Address]bool) (active, standby int) {
	if len(syncing) == 0 {
		return 0, 0
	}
	for i, nd := range nodes {
		if nd.Status != "active" && nd.Status != "standby" {
			continue
		}
		if id, ok := nodeID(nd.PublicKey); ok && syncing[id] {
			if nd.Status == "active" {
				active++
			} else {
				standby++
			}
			nodes[i].Status = "syncing"
		}
	}
	return active, standby
}

// liveCounts turns the counts of the running cycle into what the network
// looks like now (see countLive).
func (nw *network) liveCounts(c backend.NodeCounts, nodes []backend.NodeInfo) backend.NodeCounts {
	c = applySigning(c, nodes, nw.n.signingStates())
	return countLive(c, nodes, nw.n.syncingNodes())
}

// countLive moves active and standby validators of nodes that are
// catching up to the syncing count, and adds the syncing nodes that are
// not validators (full nodes).
func countLive(c backend.NodeCounts, nodes []backend.NodeInfo, syncing map[types.Address]bool) backend.NodeCounts {
	if len(syncing) == 0 {
		return c
	}
	validators := make(map[types.Address]bool, len(nodes))
	for _, nd := range nodes {
		if id, ok := nodeID(nd.PublicKey); ok {
			validators[id] = true
		}
	}
	a, s := markSyncing(nodes, syncing)
	c.Active, c.Standby = max(c.Active-a, 0), max(c.Standby-s, 0)
	c.Syncing += a + s
	for id := range syncing {
		if !validators[id] {
			c.Syncing++ // a full node catching up
		}
	}
	return c
}

// Node states from the chain's signing records, the same on every node
// at the same head. The staking state says which validators a cycle
// selected ("active" there: bonded, selected); whether a selected
// validator is really taking part is in the blocks: each block's
// consensus data lists the validators of its parent's height whose
// precommit did not reach its proposer (pos.ConsensusData.Absent). Over
// the recorded blocks of the last cycle length (ending with the head's
// parent), a selected validator is
//   - standby when it signed none of the last silentAfter of them: it is
//     selected but not signing (down, cut off, or still catching up);
//   - syncing when it signed the latest one but went silentAfter or more
//     blocks in a row without signing within the window: it came back and
//     is catching up with the others;
//   - active otherwise: bonded, selected and signing.
// So a validator that stops leaves active after silentAfter blocks (well
// within a cycle), shows syncing from its first signature after a
// restart, and is active again once its silent stretch has left the
// window (at most one cycle later). Jailing and the liveness penalty
// read the same records (staking punish) over their longer window.
//
// On top of that, peers and full nodes that announce they are catching
// up (p2p status) are shown syncing (markSyncing, countLive): what the
// chain cannot know yet.

// silentAfter is how many recorded blocks in a row a selected validator
// leaves unsigned before it is standby.
const silentAfter = 5

// signingState says what a validator's recent records make of it: "" for
// active, or "standby" or "syncing". missed lists its records, the most
// recent first: true for a block it did not sign.
func signingState(missed []bool) string {
	if len(missed) >= silentAfter {
		silent := true
		for _, m := range missed[:silentAfter] {
			silent = silent && m
		}
		if silent {
			return "standby"
		}
	}
	run := 0
	for _, m := range missed {
		if run++; !m {
			run = 0
		}
		if run >= silentAfter {
			return "syncing"
		}
	}
	return ""
}

// signingStates returns the validators of the recent heights that
// signingState does not find active, by consensus address.
func (n *Backend) signingStates() map[types.Address]string {
	c := n.Chain
	e := pos.Of(c)
	if e == nil {
		return nil
	}
	head := c.Head().Number()
	cycles, err := e.Cycles(c)
	if err != nil {
		return nil
	}
	window := cycles.Rule(cycles.Of(head)).Length
	records := map[types.Address][]bool{}
	for k := uint64(0); k < window && head >= k+2; k++ {
		b, err := c.BlockByNumber(head - k)
		if err != nil {
			break
		}
		d, err := pos.DecodeConsensusData(b.HeaderRef().Extra)
		if err != nil {
			break
		}
		set, err := e.ValidatorSet(c, b.Number()-1)
		if err != nil {
			break
		}
		absent := map[types.Address]bool{}
		for _, a := range d.Absent {
			absent[a] = true
		}
		for _, v := range set.Validators() {
			if r := records[v.Address]; uint64(len(r)) == k { // in every set so far: a continuous record
				records[v.Address] = append(r, absent[v.Address])
			}
		}
	}
	out := map[types.Address]string{}
	for a, r := range records {
		if s := signingState(r); s != "" {
			out[a] = s
		}
	}
	return out
}

// applySigning shows as standby or syncing the active validators the
// signing records say are (signingStates), and moves them in c.
func applySigning(c backend.NodeCounts, nodes []backend.NodeInfo, states map[types.Address]string) backend.NodeCounts {
	for i, nd := range nodes {
		if nd.Status != "active" {
			continue
		}
		id, ok := nodeID(nd.PublicKey)
		if !ok {
			continue
		}
		switch states[id] {
		case "standby":
			nodes[i].Status = "standby"
			c.Active, c.Standby = max(c.Active-1, 0), c.Standby+1
		case "syncing":
			nodes[i].Status = "syncing"
			c.Active, c.Syncing = max(c.Active-1, 0), c.Syncing+1
		}
	}
	return c
}
