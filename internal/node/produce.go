package node

import (
	"time"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/txpool"
	"github.com/chaind/chaind/internal/types"
)

// produce is the single-proposer engine of a one-validator network: it
// seals a block every BlockTime, or, with BlockTime 0, as soon as
// transactions are pending. It stands behind the same build-and-commit
// steps the BFT driver uses, so swapping engines changes no block rule.
func (n *Node) produce() {
	defer n.wg.Done()
	coinbase := types.Address(crypto.PrivkeyToAddress(n.cfg.Validator))
	var tick <-chan time.Time
	var txs <-chan *types.Transaction
	if n.cfg.BlockTime > 0 {
		t := time.NewTicker(n.cfg.BlockTime)
		defer t.Stop()
		tick = t.C
	} else {
		ch, cancel := n.Pool.Subscribe(1024)
		defer cancel()
		txs = ch
	}
	// Transactions pooled before the subscription sent no notification:
	// seal them at once.
	pendingAtStart := txs != nil && n.Pool.Len() > 0
	for {
		if pendingAtStart {
			pendingAtStart = false
		} else {
			select {
			case <-n.stop:
				return
			case <-tick:
			case <-txs:
				// Let a burst of submissions land in one block.
				time.Sleep(5 * time.Millisecond)
				for len(txs) > 0 {
					<-txs
				}
			}
		}
		for {
			more, err := n.sealOne(coinbase)
			if err != nil {
				n.log.Error("block production failed", "err", err)
				break
			}
			// With BlockTime 0, keep sealing while the pool holds more than
			// one block can take.
			if !more || n.cfg.BlockTime > 0 {
				break
			}
		}
	}
}

// sealOne builds and commits one block; it reports whether pending
// transactions were left out for lack of gas.
func (n *Node) sealOne(coinbase types.Address) (bool, error) {
	head := n.Chain.Head()
	pending := n.Pool.Pending()
	if len(pending) == 0 && n.cfg.BlockTime == 0 {
		return false, nil // only queued transactions: nothing to seal yet
	}
	ordered := txpool.ByPrice(pending, n.Chain.Config.CalcBaseFee(head.HeaderRef()))
	now := uint64(time.Now().Unix())
	built, err := n.Chain.BuildBlock(chain.BuildParams{
		Coinbase: coinbase,
		Time:     now,
		GasLimit: n.cfg.GasLimit,
		Random:   types.Hash(crypto.Keccak256(head.Hash().Bytes())),
	}, ordered)
	if err != nil {
		return false, err
	}
	if len(built.Dropped) > 0 {
		n.Pool.Remove(built.Dropped...)
	}
	if err := n.Chain.CommitBuilt(built.Block, built.State, built.Receipts); err != nil {
		return false, err
	}
	n.resetPool()
	b := built.Block
	n.log.Debug("sealed block", "number", b.Number(), "txs", len(b.Transactions()), "gas", b.GasUsed(), "hash", b.Hash())
	return len(b.Transactions()) < len(ordered) && len(b.Transactions()) > 0, nil
}
