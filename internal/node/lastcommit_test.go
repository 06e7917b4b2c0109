package node

import (
	"bytes"
	"math/bits"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/pos"
)

// Four validators on p2p: the certificate each block commits to holds the
// precommits that reached its proposer after the decision too, not only
// the quorum (consensus.LastCommit), and every node stores, for every block
// but the head, exactly the certificate the next block commits to.
func TestP2PLastCommitHoldsLatePrecommits(t *testing.T) {
	pn := newP2PNet(t, 4)
	for i := range 4 {
		pn.startValidator(i)
	}
	waitHeight(t, pn.nodes[0], 16, 120*time.Second)
	top := pn.nodes[0].Chain.Head().Number() - 1 // the head's certificate is still each node's own
	for _, n := range pn.nodes {
		waitHeight(t, n, top+1, 30*time.Second)
	}
	full := 0
	for num := uint64(1); num < top; num++ {
		want, err := pn.nodes[0].Chain.Certificate(num)
		if err != nil {
			t.Fatalf("certificate %d: %v", num, err)
		}
		next, err := pn.nodes[0].Chain.BlockByNumber(num + 1)
		if err != nil {
			t.Fatal(err)
		}
		if r := next.HeaderRef().ParentBeaconRoot; r == nil || *r != pos.CertRoot(want) {
			t.Fatalf("node 0 stores a certificate of block %d that block %d does not commit to", num, num+1)
		}
		for i, n := range pn.nodes[1:] {
			if got, _ := n.Chain.Certificate(num); !bytes.Equal(got, want) {
				t.Fatalf("node %d stores another certificate of block %d than node 0", i+1, num)
			}
		}
		cert, err := pn.nodes[0].Certificate(num)
		if err != nil {
			t.Fatal(err)
		}
		signers := 0
		for _, b := range cert.Signers {
			signers += bits.OnesCount8(b)
		}
		if signers == 4 {
			full++
		}
	}
	// A quorum is 3 of 4, and a core decides on the third precommit: only
	// precommits gathered after the decision make a certificate of 4. On
	// loopback the fourth arrives within milliseconds of the third, well
	// inside the 500 ms block time, so nearly every block has it.
	if full*2 < int(top-1) {
		t.Fatalf("%d of %d certificates hold all four precommits", full, top-1)
	}
	t.Logf("%d of %d certificates hold all four precommits", full, top-1)
}
