package ethbackend

import (
	"context"
	"errors"
	"fmt"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

// builderGasLimit is the gas limit testing_buildBlockV1 steers toward, as
// far as the 1/1024 rule allows per block (go-ethereum's miner default).
const builderGasLimit = 60_000_000

// BuildBlock is testing_buildBlockV1: it builds (but does not import) a
// block on the given parent from exactly the given transactions, failing
// when one of them does not apply.
func (b *Backend) BuildBlock(_ context.Context, req *backend.BuildRequest) (*backend.BuiltBlock, error) {
	parentHash, raws, extra := req.Parent, req.Transactions, req.Extra
	parentBlk, err := b.BlockByHash(parentHash)
	if errors.Is(err, backend.ErrNotFound) {
		return nil, fmt.Errorf("parent block %s not found", parentHash)
	}
	if err != nil {
		return nil, err
	}
	parent := parentBlk.HeaderRef()
	cfg := b.chain.Config
	h := &types.Header{
		ParentHash:  parentHash,
		UncleHash:   types.EmptyUncleHash,
		Coinbase:    req.FeeRecipient,
		Number:      parent.Number + 1,
		GasLimit:    towardGasLimit(parent.GasLimit, builderGasLimit),
		Time:        req.Timestamp,
		Extra:       extra,
		MixDigest:   req.PrevRandao,
		TxHash:      types.EmptyRootHash,
		ReceiptHash: types.EmptyRootHash,
	}
	if h.Time <= parent.Time {
		return nil, &backend.ParamError{Msg: fmt.Sprintf("timestamp %d not after parent's %d", h.Time, parent.Time)}
	}
	fork := cfg.Fork(h.Number, h.Time)
	if fork >= forks.London {
		h.BaseFee = cfg.CalcBaseFee(parent)
	}
	if fork >= forks.Cancun {
		var excess, used uint64
		if cfg.IsCancunAt(parent) && parent.ExcessBlobGas != nil && parent.BlobGasUsed != nil {
			excess = cfg.Blob(h.Number, h.Time).ExcessBlobGas(fork, *parent.ExcessBlobGas, *parent.BlobGasUsed, parent.BaseFee)
		}
		h.ExcessBlobGas, h.BlobGasUsed = &excess, &used
		br := types.Hash{}
		if req.ParentBeaconRoot != nil {
			br = *req.ParentBeaconRoot
		}
		h.ParentBeaconRoot = &br
	}
	st, err := b.chain.StateAt(parent.Root)
	if err != nil {
		return nil, err
	}
	deleteEmpty := fork >= forks.SpuriousDragon
	vm := evm.NewEVM(cfg.BlockContext(h, b.chain.GetHash), st, cfg.ChainID, fork)
	if fork >= forks.Prague {
		st.BeginTx(types.Hash{}, -1)
		if _, err := vm.SystemCall(evm.HistoryStorageAddress, h.ParentHash[:]); err != nil {
			return nil, err
		}
		st.Finalise(deleteEmpty)
	}
	if h.ParentBeaconRoot != nil {
		st.BeginTx(types.Hash{}, -1)
		if _, err := vm.SystemCall(evm.BeaconRootsAddress, h.ParentBeaconRoot[:]); err != nil {
			return nil, err
		}
		st.Finalise(deleteEmpty)
	}
	signer := cfg.Signer(h.Number, h.Time)
	var (
		txs      []*types.Transaction
		receipts types.Receipts
		logs     []*types.Log
		gp       = evm.GasPool(h.GasLimit)
		gasUsed  uint64
		blobGas  uint64
		value    = new(uint256.Int)
	)
	for i, raw := range raws {
		tx := new(types.Transaction)
		if err := tx.UnmarshalBinary(raw); err != nil {
			return nil, &backend.ParamError{Msg: fmt.Sprintf("transaction %d: %v", i, err)}
		}
		from, err := signer.Sender(tx)
		if err != nil {
			return nil, fmt.Errorf("transaction %d: %w", i, err)
		}
		st.BeginTx(tx.Hash(), i)
		res, err := evm.ApplyMessage(vm, evm.TransactionToMessage(tx, from), &gp)
		if err != nil {
			return nil, fmt.Errorf("%w: address %s", err, from)
		}
		if fork >= forks.Byzantium {
			st.Finalise(true)
		}
		gasUsed += res.UsedGas
		blobGas += tx.BlobGas()
		if tip, err := tx.EffectiveGasTip(h.BaseFee); err == nil {
			value.Add(value, new(uint256.Int).Mul(tip, uint256.NewInt(res.UsedGas)))
		}
		rc := &types.Receipt{Type: tx.Type(), CumulativeGasUsed: gasUsed}
		if fork < forks.Byzantium {
			r := st.IntermediateRoot(deleteEmpty)
			rc.PostState = r[:]
		} else if !res.Failed() {
			rc.Status = types.ReceiptStatusSuccessful
		}
		rc.Logs = append([]*types.Log(nil), st.Logs()...)
		rc.Bloom = types.LogsBloom(rc.Logs)
		logs = append(logs, rc.Logs...)
		receipts = append(receipts, rc)
		txs = append(txs, tx)
	}
	h.GasUsed = gasUsed
	if h.BlobGasUsed != nil {
		*h.BlobGasUsed = blobGas
	}
	requests := [][]byte{}
	if fork >= forks.Prague {
		sim := &simulator{cfg: cfg, st: st}
		reqs, err := sim.requestList(vm, logs, deleteEmpty)
		if err != nil {
			return nil, err
		}
		for _, r := range reqs {
			if len(r) > 1 {
				requests = append(requests, r)
			}
		}
		rh := requestsHash(reqs)
		h.RequestsHash = &rh
	}
	body := types.Body{Transactions: txs}
	if fork >= forks.Shanghai {
		body.Withdrawals = creditWithdrawals(st, req.Withdrawals)
		wr := types.DeriveWithdrawalsRoot(body.Withdrawals, trie.NewStackTrie())
		h.WithdrawalsHash = &wr
	}
	h.Root = st.IntermediateRoot(deleteEmpty)
	h.TxHash = types.DeriveTxRoot(txs, trie.NewStackTrie())
	h.ReceiptHash = types.DeriveReceiptRoot(receipts, trie.NewStackTrie())
	h.Bloom = types.CreateBloom(receipts)
	blk := types.NewBlock(h, &body)
	return &backend.BuiltBlock{Block: blk, Value: value, Requests: requests}, nil
}

// towardGasLimit moves a parent's gas limit toward desired by at most the
// 1/1024 step the protocol allows.
func towardGasLimit(parent, desired uint64) uint64 {
	delta := parent/1024 - 1
	switch {
	case desired > parent:
		return min(desired, parent+delta)
	case desired < parent:
		return max(desired, parent-delta, 5000)
	}
	return parent
}
