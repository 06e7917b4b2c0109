package chain

import (
	"errors"
	"time"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/holiman/uint256"
)

// BuildParams are the proposer's choices for a new block.
type BuildParams struct {
	Coinbase types.Address
	Time     uint64
	// TimeMs, when set, is the block's time in Unix milliseconds and
	// replaces Time: on an engine that records it (a TimeRule) the block
	// may share its parent's second, so blocks faster than one a second
	// keep to the clock. Without it, or on other engines, Time is moved
	// past the parent's.
	TimeMs           uint64
	GasLimit         uint64 // 0 keeps the parent's
	Extra            []byte
	Random           types.Hash // PREVRANDAO
	ParentBeaconRoot types.Hash // commitment to consensus data of the parent
	// ParentCert, if set, is the parent's commit certificate the engine
	// makes the block commit to instead of the stored one (see
	// Attributes.ParentCert).
	ParentCert []byte
	// BaseFee, if set, replaces the parent's EIP-1559 base fee for this
	// block (see Attributes.BaseFee).
	BaseFee *uint256.Int
	// DevGasLimit, if set, is the block's gas limit exactly (see
	// Attributes.DevGasLimit).
	DevGasLimit uint64
	// Deadline, if set, stops adding transactions once it has passed: the
	// block must leave its validators time to execute it too.
	Deadline time.Time
	// MinTxs is how many of the candidates are tried before the deadline
	// is first looked at: a proposer whose budget went on ordering a full
	// pool (a starved CPU) still moves the pool on rather than proposing
	// an empty block. It bounds the overrun: a transfer takes tens of
	// microseconds.
	MinTxs int
	// MaxTxBytes, if positive, caps the encoded size of the transactions,
	// so that the block fits the messages that carry it.
	MaxTxBytes int
	// State, if set, is the root of the state the block builds on instead
	// of the head's own: a development node's test helpers changed the
	// head's state (internal/node/chainview).
	State types.Hash
}

// Built is a block assembled from the pool and its execution results.
type Built struct {
	Block    *types.Block
	State    *state.StateDB
	Receipts types.Receipts
	Dropped  []types.Hash // transactions that can never apply on this chain
	// Transfers are, per transaction, the addresses that received value
	// inside it: the history index lists the transaction for them too.
	Transfers [][]types.Address
	// Validators is the validator set the block decided, if any: the
	// commit records it in the block's batch (ValidatorUpdate).
	Validators *ValidatorUpdate
}

// BuildBlock assembles a block on top of the current head from candidate
// transactions in the given order, skipping those that do not apply (a
// nonce gap or a fee below the base fee only defers a transaction; other
// errors drop it).
func (c *Chain) BuildBlock(p BuildParams, candidates []*types.Transaction) (*Built, error) {
	parent := c.Head()
	ph := parent.HeaderRef()
	cfg := c.Config
	if _, ok := c.engine.(TimeRule); !ok {
		p.TimeMs = 0
	}
	if p.TimeMs != 0 {
		p.Time = max(p.TimeMs/1000, ph.Time) // the engine's Prepare orders the milliseconds
	} else if p.Time <= ph.Time {
		p.Time = ph.Time + 1
	}
	br := p.ParentBeaconRoot
	attrs := Attributes{
		Coinbase: p.Coinbase, Time: p.Time, TimeMs: p.TimeMs, GasLimit: p.GasLimit, Extra: p.Extra,
		Random: p.Random, ParentBeaconRoot: &br, BaseFee: p.BaseFee, DevGasLimit: p.DevGasLimit, ParentCert: p.ParentCert,
	}
	if err := c.engine.Prepare(c, ph, &attrs); err != nil {
		return nil, err
	}
	h, err := cfg.NextHeader(ph, attrs)
	if err != nil {
		return nil, err
	}
	root := ph.Root
	if p.State != (types.Hash{}) {
		root = p.State
	}
	st, err := c.StateAt(root)
	if err != nil {
		return nil, err
	}
	// The trie paths of what the transactions change load beside them,
	// ready for the root (Finish); stopped by then, or here on an error.
	st.Prefetch()
	defer st.StopPrefetch()
	start := time.Now()
	x, err := c.Rules().Open(h, st, c.GetHash, &ExecOptions{Transfers: true})
	if err != nil {
		return nil, err
	}
	out := &Built{State: st, Dropped: x.fill(candidates, fillLimits{deadline: p.Deadline, minTxs: p.MinTxs, maxBytes: p.MaxTxBytes})}
	res, err := x.Finish(nil, nil)
	if err != nil {
		return nil, err
	}
	out.Block = x.Seal(res)
	out.Receipts = res.Receipts
	out.Transfers = res.Transfers
	out.Validators = res.Validators
	c.observeExec(out.Block, true, start)
	return out, nil
}

// Fill applies candidate transactions in the given order as a proposer
// does, skipping those that do not apply and leaving the state as it was
// for them. A sender whose transaction is skipped has its later ones
// skipped too (their nonces cannot apply). It stops when no simple
// transfer fits any more. It returns the skipped transactions that can
// never apply on this chain (a bad signature, a nonce already used, too
// little balance...), which a pool can forget; a nonce gap, a fee below
// the base fee or a full block only defers a transaction.
func (x *Exec) Fill(candidates []*types.Transaction) (dropped []types.Hash) {
	return x.fill(candidates, fillLimits{})
}

// fillLimits are a proposer's limits on a block's transactions (see
// BuildParams): a deadline (zero: none) looked at once minTxs candidates
// have been tried, and a cap on their encoded bytes (0: none).
type fillLimits struct {
	deadline time.Time
	minTxs   int
	maxBytes int
}

// fill is Fill within the limits of a proposer that must keep to the
// block time.
func (x *Exec) fill(candidates []*types.Transaction, lim fillLimits) (dropped []types.Hash) {
	deadline, maxBytes := lim.deadline, lim.maxBytes
	maxBlobs := x.Config.Blob(x.Header.Number, x.Header.Time).Max * evm.BlobGasPerBlob
	skipFrom := map[types.Address]bool{}
	txBytes := 0
	for i, tx := range candidates {
		if x.GasLeft() < 21000 {
			break
		}
		// The clock is read every few transactions: a transfer takes tens
		// of microseconds, a call to time.Now a few dozen nanoseconds.
		if !deadline.IsZero() && i >= lim.minTxs && (i-lim.minTxs)%8 == 0 && time.Now().After(deadline) {
			break
		}
		if maxBytes > 0 && txBytes+int(tx.Size()) > maxBytes {
			break
		}
		from, err := x.Signer.Sender(tx)
		if err != nil {
			dropped = append(dropped, tx.Hash())
			continue
		}
		if skipFrom[from] || tx.Gas() > x.GasLeft() || x.BlobGasUsed+tx.BlobGas() > maxBlobs {
			skipFrom[from] = true
			continue
		}
		if _, _, err := x.TryApply(tx, evm.TransactionToMessage(tx, from)); err != nil {
			skipFrom[from] = true
			if !errors.Is(err, evm.ErrNonceTooHigh) && !errors.Is(err, evm.ErrFeeCapTooLow) && !errors.Is(err, evm.ErrGasLimitReached) {
				dropped = append(dropped, tx.Hash())
			}
			continue
		}
		txBytes += int(tx.Size())
	}
	return dropped
}
