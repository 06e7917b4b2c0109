package bft

import (
	"context"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/types"
)

// The proposer's side of consensus.LastCommit: the block it builds
// commits to a certificate of its parent holding every precommit for the
// parent that reached it by then, and it waits a little for those still
// missing, so that validators whose precommits come after the quorum's are
// not counted absent (the chain's liveness penalties read the absent list
// derived from that certificate).

// commitWait is how long after deciding a block a proposer of the next
// one waits, at most, for the precommits still missing from validators
// that signed recently: CometBFT's timeout_commit, cut short as soon as
// they are in. On an idle chain the block time covers it (the decision
// comes well before the next block is due, and every precommit with it);
// under load a block is built as soon as the previous one is decided, and
// a validator that executes blocks a little slower than the quorum would
// be counted absent from nearly every block without this pause.
func commitWait(blockTime time.Duration) time.Duration { return 2 * blockTime }

// awaitedFor is how many heights a validator stays awaited after its last
// precommit seen in a certificate: one that went down holds up only the
// next few blocks, not every block until it returns.
const awaitedFor = 10

// LastCommit implements LastCommitter: the next block we propose carries
// cert as its parent's certificate if it still is the head's and holds
// more precommits than the one we have.
func (a *ChainApp) LastCommit(cert *consensus.Certificate) {
	set, err := a.cfg.Validators.ValidatorSet(cert.Height)
	a.mu.Lock()
	defer a.mu.Unlock()
	if err == nil {
		for i, v := range set.Validators() {
			if i/8 < len(cert.Signers) && cert.Signers[i/8]&(1<<(i%8)) != 0 {
				a.lastSigned[v.Address] = max(a.lastSigned[v.Address], cert.Height)
			}
		}
	}
	if old := a.lastCert; old == nil || old.Height != cert.Height || old.BlockHash != cert.BlockHash || len(old.Signatures) < len(cert.Signatures) {
		a.lastCert = cert
		select {
		case a.gathered <- struct{}{}:
		default:
		}
	}
}

// awaitLastCommit waits, before building the block at height, until the
// certificate of its parent holds the precommit of every validator seen
// signing in the last awaitedFor heights, or commitWait has passed since
// the parent was decided here.
func (a *ChainApp) awaitLastCommit(ctx context.Context, height uint64) error {
	if height < 2 {
		return nil // the genesis block has no certificate
	}
	set, err := a.cfg.Validators.ValidatorSet(height - 1)
	if err != nil || set.Len() < 2 {
		return nil // nothing to gather from others
	}
	for {
		a.mu.Lock()
		lc, until := a.lastCert, a.committed.Add(commitWait(a.cfg.BlockTime))
		missing := lc != nil && lc.Height == height-1 && a.awaitedMissing(set, lc)
		a.mu.Unlock()
		if !missing {
			return nil // all in, or a restart forgot the late precommits
		}
		wait := time.Until(until)
		if wait <= 0 {
			return nil
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
			return nil
		case <-a.gathered:
			t.Stop()
		}
	}
}

// awaitedMissing reports whether a validator of set that signed in the
// last awaitedFor heights has no precommit in lc. Guarded by a.mu.
func (a *ChainApp) awaitedMissing(set *consensus.ValidatorSet, lc *consensus.Certificate) bool {
	for i, v := range set.Validators() {
		if i/8 < len(lc.Signers) && lc.Signers[i/8]&(1<<(i%8)) != 0 {
			continue
		}
		if last, ok := a.lastSigned[v.Address]; ok && last+awaitedFor >= lc.Height {
			return true
		}
	}
	return false
}

// committedTo is parentCert if b commits to it (its ParentBeaconRoot is
// the certificate's hash), else nil: only a certificate the decided block
// commits to replaces the stored one. A block a quorum decided had its
// certificate verified by that quorum (Engine.VerifyHeader); one that
// commits to nothing (a chain without certificates) replaces nothing.
func committedTo(b *types.Block, parentCert []byte) []byte {
	if parentCert == nil {
		return nil
	}
	if r := b.Header().ParentBeaconRoot; r == nil || *r != pos.CertRoot(parentCert) {
		return nil
	}
	return parentCert
}
