package stakebackend

import (
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// Node states are partly local knowledge: whether a node is catching up is
// not in the chain, so chain_getNodeList and the counts of the running
// cycle in chain_getCycleInfo add what this node knows: itself, and the
// peers whose last status said they sync.

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
