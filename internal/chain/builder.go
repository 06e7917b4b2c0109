package chain

import (
	"errors"
	"fmt"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
)

// BuildParams are the proposer's choices for a new block.
type BuildParams struct {
	Coinbase         types.Address
	Time             uint64
	GasLimit         uint64 // 0 keeps the parent's
	Extra            []byte
	Random           types.Hash // PREVRANDAO
	ParentBeaconRoot types.Hash // commitment to consensus data of the parent
}

// Built is a block assembled from the pool and its execution results.
type Built struct {
	Block    *types.Block
	State    *state.StateDB
	Receipts types.Receipts
	Dropped  []types.Hash // transactions that can never apply on this chain
}

// BuildBlock assembles a block on top of the current head from candidate
// transactions in the given order, skipping those that do not apply (a
// nonce gap or a fee below the base fee only defers a transaction; other
// errors drop it).
func (c *Chain) BuildBlock(p BuildParams, candidates []*types.Transaction) (*Built, error) {
	parent := c.Head()
	ph := parent.HeaderRef()
	cfg := c.Config
	if p.Time <= ph.Time {
		p.Time = ph.Time + 1
	}
	h := &types.Header{
		ParentHash: parent.Hash(),
		UncleHash:  types.EmptyUncleHash,
		Coinbase:   p.Coinbase,
		Number:     ph.Number + 1,
		GasLimit:   ph.GasLimit,
		Time:       p.Time,
		Extra:      p.Extra,
		MixDigest:  p.Random,
	}
	if p.GasLimit != 0 {
		h.GasLimit = nextGasLimit(ph.GasLimit, p.GasLimit)
	}
	fork := cfg.Fork(h.Number, h.Time)
	if !cfg.IsMerged(h.Number) {
		return nil, errors.New("chaind builds proof-of-stake blocks only; the chain config is pre-merge at this height")
	}
	if fork >= forks.London {
		h.BaseFee = cfg.CalcBaseFee(ph)
	}
	if fork >= forks.Shanghai {
		wr := types.EmptyRootHash
		h.WithdrawalsHash = &wr
	}
	if fork >= forks.Cancun {
		var pe, pu uint64
		if ph.ExcessBlobGas != nil {
			pe, pu = *ph.ExcessBlobGas, *ph.BlobGasUsed
		}
		excess := cfg.Blob(h.Number, h.Time).ExcessBlobGas(fork, pe, pu, ph.BaseFee)
		if !cfg.IsCancunAt(ph) {
			excess = 0
		}
		var used uint64
		h.ExcessBlobGas, h.BlobGasUsed = &excess, &used
		br := p.ParentBeaconRoot
		h.ParentBeaconRoot = &br
	}
	st, err := c.StateAt(ph.Root)
	if err != nil {
		return nil, err
	}
	deleteEmpty := fork >= forks.SpuriousDragon
	vm := evm.NewEVM(cfg.BlockContext(h, c.GetHash), st, cfg.ChainID, fork)
	if err := preBlockCalls(vm, st, h, fork, deleteEmpty); err != nil {
		return nil, err
	}
	signer := cfg.Signer(h.Number, h.Time)
	var (
		out      = &Built{State: st}
		txs      []*types.Transaction
		gp       = evm.GasPool(h.GasLimit)
		gasUsed  uint64
		blobGas  uint64
		maxBlobs = cfg.Blob(h.Number, h.Time).Max * evm.BlobGasPerBlob
		skipFrom = map[types.Address]bool{} // senders with a skipped tx: their later nonces cannot apply
	)
	for _, tx := range candidates {
		if gp.Gas() < 21000 {
			break
		}
		from, err := signer.Sender(tx)
		if err != nil {
			out.Dropped = append(out.Dropped, tx.Hash())
			continue
		}
		if skipFrom[from] || tx.Gas() > gp.Gas() || blobGas+tx.BlobGas() > maxBlobs {
			skipFrom[from] = true
			continue
		}
		snap := st.Snapshot()
		st.BeginTx(tx.Hash(), len(txs))
		res, err := evm.ApplyMessage(vm, evm.TransactionToMessage(tx, from), &gp)
		if err == nil && len(res.MissingPrecompiles) > 0 {
			err = fmt.Errorf("precompile %s is not available", res.MissingPrecompiles[0])
		}
		if err != nil {
			st.RevertToSnapshot(snap)
			skipFrom[from] = true
			if !errors.Is(err, evm.ErrNonceTooHigh) && !errors.Is(err, evm.ErrFeeCapTooLow) && !errors.Is(err, evm.ErrGasLimitReached) {
				out.Dropped = append(out.Dropped, tx.Hash())
			}
			continue
		}
		st.Finalise(deleteEmpty)
		gasUsed += res.UsedGas
		blobGas += tx.BlobGas()
		rc := &types.Receipt{Type: tx.Type(), CumulativeGasUsed: gasUsed}
		if !res.Failed() {
			rc.Status = types.ReceiptStatusSuccessful
		}
		rc.Logs = append([]*types.Log(nil), st.Logs()...)
		rc.Bloom = types.LogsBloom(rc.Logs)
		out.Receipts = append(out.Receipts, rc)
		txs = append(txs, tx)
	}
	if fork >= forks.Prague {
		reqs, err := cfg.collectRequests(vm, st, out.Receipts, deleteEmpty)
		if err != nil {
			return nil, err
		}
		rh := RequestsHash(reqs)
		h.RequestsHash = &rh
	}
	h.GasUsed = gasUsed
	if h.BlobGasUsed != nil {
		*h.BlobGasUsed = blobGas
	}
	h.Root = st.IntermediateRoot(deleteEmpty)
	h.TxHash = types.DeriveTxRoot(txs, trie.NewStackTrie())
	h.ReceiptHash = types.DeriveReceiptRoot(out.Receipts, trie.NewStackTrie())
	h.Bloom = types.CreateBloom(out.Receipts)
	body := &types.Body{Transactions: txs}
	if fork >= forks.Shanghai {
		body.Withdrawals = []*types.Withdrawal{}
	}
	out.Block = types.NewBlock(h, body)
	return out, nil
}

// nextGasLimit moves the gas limit toward the desired one as far as the
// 1/1024 bound allows.
func nextGasLimit(parent, desired uint64) uint64 {
	delta := parent/gasLimitBoundDivisor - 1
	switch {
	case desired > parent:
		return min(desired, parent+delta)
	case desired < parent:
		return max(desired, parent-delta, minGasLimit)
	}
	return parent
}
