package bft

import (
	"sync"
	"time"

	"github.com/chaind/chaind/internal/txpool"
	"github.com/chaind/chaind/internal/types"
)

// Pacing of blocks under load. A block is on the critical path three
// times: the proposer executes it while building, every validator
// executes it again before voting, and then it is stored. So the
// proposer spends only part of the block time adding transactions, and a
// validator's next block time counts from when the previous block
// arrived, not from when it was stored: blocks then follow each other at
// the block time whatever their size, as long as building, validating
// and storing one fit in it.

// maxProposalTxBytes caps the transactions of one proposal, well under the
// 4 MiB frame cap of the transport that carries it (the value also holds
// the header and the parent's certificate).
const maxProposalTxBytes = 2 << 20

// minBuildTime is the build budget of the shortest block times: below it,
// per-block costs would dominate and blocks would carry nearly nothing.
const minBuildTime = 50 * time.Millisecond

// buildBudget is how long a proposer adds transactions to a block: three
// tenths of the block time. The block is on the critical path twice more
// (every validator executes it before voting, then stores it) and the next
// proposer can build only on it, so under load a block's interval is about
// its build plus its validation plus the votes. Transactions arrive with
// their senders already recovered by the pool, so the budget still holds
// thousands of transfers. (Measured on 2 cores with 4 validator processes
// at a 500 ms block time: a fifth kept intervals nearest the block time
// but halved throughput; two fifths gave the most throughput but the
// longest intervals.)
func buildBudget(blockTime time.Duration) time.Duration {
	return max(blockTime*3/10, minBuildTime)
}

// buildLead is how long this proposer's recent builds took (a moving
// average; only builds others execute count). Propose starts a build that
// long before the block is due, at most the build budget: an idle chain's
// builds take next to nothing, so its blocks keep the block time, and a
// loaded chain's proposal still goes out when its block is due.
// Guarded by the application's mutex.
type buildLead struct{ avg time.Duration }

func (l *buildLead) observe(took time.Duration) {
	if l.avg == 0 {
		l.avg = took
		return
	}
	l.avg = (3*l.avg + took) / 4
}

func (l *buildLead) get(budget time.Duration) time.Duration { return min(l.avg, budget) }

// validationBudget is how long the others may take to validate a block
// and store it (it caps the proposal by their measured cost per
// transaction): half the block time, which with the build's three tenths
// leaves a fifth for the votes and moving the pool, so a loaded chain's
// block fits in about its block time. (Two fifths while the cost counted
// the validation alone and the commit went unbudgeted.)
func validationBudget(blockTime time.Duration) time.Duration {
	return max(blockTime/2, minBuildTime)
}

// validationCost tracks how long this validator takes to validate a
// transaction of others' blocks (recovering senders the pool did not have
// yet included) and then to commit it, a moving average over blocks big
// enough to tell. The proposer caps its blocks with it: the others must
// validate and store a block in about the time it took to build, or their
// propose timeouts fire and the round is lost while the pool, and the next
// block, grows. The commit counts because it is on the critical path as
// much as the execution (the next height starts when it is stored) and
// its share moves with the storage design: the flat copy of the state made
// execution's reads cheaper and the commit dearer, and a cap on execution
// alone then let blocks grow past the block time.
type validationCost struct {
	mu    sync.Mutex
	perTx time.Duration
}

// minCostSample is the smallest block whose validation time says anything
// about the cost of a transaction.
const minCostSample = 64

func (c *validationCost) observe(txs int, took time.Duration) {
	if txs < minCostSample {
		return
	}
	per := took / time.Duration(txs)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.perTx == 0 {
		c.perTx = per
	} else {
		c.perTx = (c.perTx + per) / 2
	}
}

// maxTxs is how many transactions others can validate within budget, or
// 0 while nothing has been measured.
func (c *validationCost) maxTxs(budget time.Duration) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.perTx <= 0 {
		return 0
	}
	return max(int(budget/c.perTx), minCostSample)
}

// adoptSenders gives the transactions of a proposed block the senders the
// pool already recovered for them: they arrived by gossip before the
// block, so their signatures need not be checked twice.
func adoptSenders(pool *txpool.Pool, b *types.Block) {
	for _, tx := range b.Transactions() {
		if pooled, _, ok := pool.Get(tx.Hash()); ok {
			tx.ShareSender(pooled)
		}
	}
}
