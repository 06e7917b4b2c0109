package flat

import "github.com/chaind/chaind/internal/types"

// A state written into an empty store in one pass (a genesis streamed in
// by chain.InitGenesis) writes its copy beside its tries with these, then
// names its root: the copy opens valid at that state, with no journal.

// PutAccount stages the RLP account enc under addrHash.
func PutAccount(b Batch, addrHash types.Hash, enc []byte) { b.Put(accountKey(addrHash), enc) }

// PutSlot stages the RLP value enc of a slot.
func PutSlot(b Batch, addrHash, slotHash types.Hash, enc []byte) {
	b.Put(storageKey(addrHash, slotHash), enc)
}

// PutRoot stages the copy's metadata: it holds the state at root.
func PutRoot(b Batch, root types.Hash) { b.Put(keyMeta, metaValue(root, 0)) }
