package state

import (
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/trie"
)

// Remote supplies the parts of a state that the local database does not
// hold: a forked chain starts on another chain's state root and copies its
// trie nodes and code in on first touch. The state package does no I/O of
// its own; it asks a Remote only when a trie walk runs into a node that is
// missing, for the key it was walking to, and stores what comes back in
// its database, so every later read (and every restart on the same
// database) finds it locally.
//
// Nodes are stored under their own keccak256 hash and reached only by
// following hashes down from a root the caller trusts, so a wrong node can
// never be mistaken for a right one; it just leaves the node still
// missing, which then is an error.
type Remote interface {
	// Prove returns the trie nodes on the path of addr in the account
	// trie and, for each of slots, on its path in addr's storage trie, as
	// the remote state has them (an eth_getProof answer).
	Prove(addr types.Address, slots []types.Hash) ([][]byte, error)
	// Code returns the code of addr, whose hash is codeHash.
	Code(addr types.Address, codeHash types.Hash) ([]byte, error)
}

// ErrRemote wraps every failure of a Remote, so callers can tell "the
// upstream of this fork failed" apart from a corrupt local database.
var ErrRemote = errors.New("state not held locally")

// NewWithRemote opens the state at root like New, fetching through remote
// whatever part of it the database lacks. A nil remote is New.
func NewWithRemote(root types.Hash, db trie.Database, remote Remote) (*StateDB, error) {
	s, err := New(root, db)
	if remote == nil {
		return s, err
	}
	if errors.Is(err, trie.ErrMissingNode) {
		// Any proof starts with the root node.
		if err = fetchProof(db, remote, types.Address{}, nil); err != nil {
			return nil, err
		}
		s, err = New(root, db)
	}
	if err != nil {
		return nil, err
	}
	s.remote = remote
	s.flat, s.diff = nil, nil // a partial state is no flat copy's
	return s, nil
}

// Keeper is a trie.Database that stores what a Remote supplied at once and
// durably (Keep), not with the next block as Update does. What a remote
// supplies is the remote's state, the same whichever block comes next, and
// a restart must find it even when no block was made: a fork read and
// restarted with its upstream down answers what it read before.
type Keeper interface {
	trie.Database
	Keep(nodes *trie.NodeSet) error
}

// keep stores nodes fetched from a remote in db: durably at once when db
// is a Keeper.
func keep(db trie.Database, set *trie.NodeSet) error {
	if k, ok := db.(Keeper); ok {
		return k.Keep(set)
	}
	return db.Update(set)
}

// fetchProof stores the proof nodes of addr (and slots) in db.
func fetchProof(db trie.Database, remote Remote, addr types.Address, slots []types.Hash) error {
	nodes, err := remote.Prove(addr, slots)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrRemote, err)
	}
	set := trie.NewNodeSet()
	for _, n := range nodes {
		set.Add(crypto.Keccak256(n), n)
	}
	return keep(db, set)
}

// withRemote runs op and, when it stops at a missing node and the state
// has a remote, fetches the proof of addr (and slot) and runs it again.
// Two fetches are allowed: a storage read may first miss in the account
// trie's nodes of a pruned state and then in the storage trie.
func (s *StateDB) withRemote(addr types.Address, slot *types.Hash, op func() error) error {
	err := op()
	for try := 0; try < 2 && s.remote != nil && errors.Is(err, trie.ErrMissingNode); try++ {
		var slots []types.Hash
		if slot != nil {
			slots = []types.Hash{*slot}
		}
		if ferr := fetchProof(s.db, s.remote, addr, slots); ferr != nil {
			return ferr
		}
		err = op()
	}
	return err
}

// remoteCode fetches code the database lacks and stores it under its hash
// once the hash is checked.
func (s *StateDB) remoteCode(addr types.Address, h types.Hash) ([]byte, error) {
	code, err := s.remote.Code(addr, h)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRemote, err)
	}
	if codeHash(code) != h {
		return nil, fmt.Errorf("%w: code of %s does not hash to %s", ErrRemote, addr.Hex(), h)
	}
	set := trie.NewNodeSet()
	set.Add(h, code)
	if err := keep(s.db, set); err != nil {
		return nil, err
	}
	return code, nil
}

// A partial state never deletes from its tries: removing a key can fold a
// branch into its remaining child, and that child may be a node only the
// remote has and no proof of the removed key contains. So a zero slot is
// stored as an explicit zero value and a deleted account as the empty
// account, which reads as absent. The roots differ from what the same
// state would have without the remote, but they are a function of the
// same changes, as every root must be.
var partialZero = []byte{0x80}
