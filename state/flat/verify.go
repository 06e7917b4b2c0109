package flat

import (
	"bytes"
	"fmt"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
)

// ComputeRoot recomputes the state root from the persisted copy alone:
// the storage root of every account from its slots, then the account
// root, both in key order with a stack trie. It also checks that every
// account's storage root is the one its slots give and that no slot
// belongs to a missing account, so a copy that drifted from the tries in
// any key shows. It reads the whole copy: for tests and `chaind` checks.
func ComputeRoot(kv Store) (types.Hash, error) {
	roots := map[types.Hash]types.Hash{}
	var (
		cur  types.Hash
		have bool
		st   = trie.NewStackTrie()
	)
	finish := func() {
		if have {
			roots[cur] = st.Hash()
			st.Reset()
		}
	}
	err := kv.Iterate(prefixStorage, func(k, v []byte) bool {
		ah := types.Hash(k[len(prefixStorage) : len(prefixStorage)+32])
		if !have || ah != cur {
			finish()
			cur, have = ah, true
		}
		st.Update(k[len(prefixStorage)+32:], v)
		return true
	})
	if err != nil {
		return types.Hash{}, err
	}
	finish()
	at := trie.NewStackTrie()
	var bad error
	err = kv.Iterate(prefixAccount, func(k, v []byte) bool {
		ah := types.Hash(k[len(prefixAccount):])
		acct, err := state.DecodeAccount(v)
		if err != nil {
			bad = fmt.Errorf("flat state: account %s: %w", ah, err)
			return false
		}
		want, ok := roots[ah]
		if !ok {
			want = state.EmptyRoot
		}
		delete(roots, ah)
		if acct.Root != want {
			bad = fmt.Errorf("flat state: account %s has storage root %s, its slots give %s", ah, acct.Root, want)
			return false
		}
		at.Update(bytes.Clone(k[len(prefixAccount):]), v)
		return true
	})
	if err == nil {
		err = bad
	}
	if err != nil {
		return types.Hash{}, err
	}
	for ah := range roots {
		return types.Hash{}, fmt.Errorf("flat state: slots of %s, which has no account", ah)
	}
	return types.Hash(at.Hash()), nil
}
