package chain

import (
	"errors"
	"testing"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

func TestDAOExtraData(t *testing.T) {
	fork := uint64(100)
	for _, tc := range []struct {
		name    string
		support bool
		number  uint64
		extra   []byte
		ok      bool
	}{
		{"before the range", true, 99, nil, true},
		{"fork block marked", true, 100, daoForkExtra, true},
		{"fork block unmarked", true, 100, []byte("x"), false},
		{"last block of the range unmarked", true, 109, nil, false},
		{"after the range", true, 110, nil, true},
		{"declining chain marked", false, 105, daoForkExtra, false},
		{"declining chain unmarked", false, 105, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Config{ChainID: 1, DAOForkBlock: &fork, DAOForkSupport: tc.support}
			err := c.checkDAOExtra(&types.Header{Number: tc.number, Extra: tc.extra})
			if tc.ok != (err == nil) || (err != nil && !errors.Is(err, ErrDAOExtra)) {
				t.Fatalf("err = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

func TestDAOForkMovesBalances(t *testing.T) {
	st, err := state.New(types.Hash(trie.EmptyRoot), trie.NewMemoryDB())
	if err != nil {
		t.Fatal(err)
	}
	st.AddBalance(daoDrainList[0], uint256.NewInt(7))
	st.AddBalance(daoDrainList[115], uint256.NewInt(5))
	applyDAOFork(st)
	if got := st.GetBalance(daoRefundContract); !got.Eq(uint256.NewInt(12)) {
		t.Fatalf("refund contract holds %s, want 12", got)
	}
	for _, a := range daoDrainList {
		if !st.Exist(a) || !st.GetBalance(a).IsZero() {
			t.Fatalf("%s: exists %v, balance %s; want an existing empty account", a, st.Exist(a), st.GetBalance(a))
		}
	}
	if len(daoDrainList) != 116 {
		t.Fatalf("drain list has %d accounts, want 116", len(daoDrainList))
	}
}
