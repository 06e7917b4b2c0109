package chain

import (
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rlp"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

// System contracts that blocks call before or after their transactions.
var (
	// The system contracts are the EVM's (one definition of the system-call rules).
	SystemAddress         = evm.SystemAddress
	BeaconRootsAddress    = evm.BeaconRootsAddress        // EIP-4788
	HistoryStorageAddress = evm.HistoryStorageAddress     // EIP-2935
	WithdrawalQueue       = evm.WithdrawalQueueAddress    // EIP-7002
	ConsolidationQueue    = evm.ConsolidationQueueAddress // EIP-7251

	// keccak256("DepositEvent(bytes,bytes,bytes,bytes,bytes)"), EIP-6110.
	depositEventTopic = types.MustHash("0x649bbc62d0e31342afea4e5cd82d4049e7e1ee912fc0889aa790803be39038c5")
)

// Errors of block processing.
var (
	ErrBadBody       = errors.New("block body does not match its header")
	ErrInvalidTx     = errors.New("invalid transaction")
	ErrBadPostState  = errors.New("block result does not match its header")
	ErrSystemCall    = errors.New("system contract call failed")
	ErrBadDepositLog = errors.New("invalid deposit contract log")
)

// Result is the outcome of executing a block's body.
type Result struct {
	Receipts    types.Receipts
	GasUsed     uint64
	BlobGasUsed uint64
	Requests    [][]byte // EIP-7685 requests, type byte first; nil before Prague
	Root        types.Hash
	// Transfers are, per transaction, the addresses that received value
	// inside it, when the executor recorded them.
	Transfers [][]types.Address
	// Validators is the validator set the block decided, if the engine's
	// end-of-block rule decided one.
	Validators *ValidatorUpdate
}

// Signer returns the transaction signer in force for a block, for the
// chain ID of that block (ChainIDAt). EIP-155
// replay protection belongs to SpuriousDragon in the fork enum, but a
// genesis file may schedule eip155Block apart from eip158Block; the signer
// follows eip155Block.
func (c *Config) Signer(number, time uint64) types.Signer {
	f := c.Fork(number, time)
	switch eip155 := c.IsEIP155(number); {
	case eip155 && f < forks.SpuriousDragon:
		f = forks.SpuriousDragon
	case !eip155 && f >= forks.SpuriousDragon && f < forks.Berlin:
		f = forks.TangerineWhistle
	}
	if c.Impersonation {
		return types.NewSigner(c.ChainIDAt(number), f).WithImpersonation()
	}
	return types.NewSigner(c.ChainIDAt(number), f)
}

// BlockContext returns the EVM's view of header.
func (c *Config) BlockContext(h *types.Header, getHash func(uint64) types.Hash) evm.BlockContext {
	ctx := evm.BlockContext{
		Coinbase: h.Coinbase,
		Number:   h.Number,
		Time:     h.Time,
		GasLimit: h.GasLimit,
		GetHash:  getHash,
	}
	if h.BaseFee != nil {
		ctx.BaseFee = new(uint256.Int).Set(h.BaseFee)
	}
	if h.ExcessBlobGas != nil {
		ctx.Blob = c.Blob(h.Number, h.Time)
		ctx.BlobBaseFee = ctx.Blob.BaseFee(*h.ExcessBlobGas)
	}
	if c.IsPoSHeader(h) {
		r := h.MixDigest
		ctx.Random = &r
	} else {
		ctx.Difficulty = new(uint256.Int).Set(&h.Difficulty)
	}
	return ctx
}

// ValidateBody checks the parts of a block its header commits to without
// executing it: transactions, uncles and withdrawals.
func (c *Config) ValidateBody(b *types.Block) error {
	h := b.HeaderRef()
	if root := types.DeriveTxRoot(b.Transactions(), trie.NewStackTrie()); root != h.TxHash {
		return fmt.Errorf("%w: transaction root %s, header says %s", ErrBadBody, root, h.TxHash)
	}
	if uh := uncleHash(b.Uncles()); uh != h.UncleHash {
		return fmt.Errorf("%w: uncle hash %s, header says %s", ErrBadBody, uh, h.UncleHash)
	}
	if len(b.Uncles()) > 2 {
		return fmt.Errorf("%w: %d uncles, at most 2", ErrBadBody, len(b.Uncles()))
	}
	fork := c.Fork(h.Number, h.Time)
	if fork >= forks.Shanghai {
		if b.Withdrawals() == nil {
			return fmt.Errorf("%w: missing withdrawals", ErrBadBody)
		}
		if root := types.DeriveWithdrawalsRoot(b.Withdrawals(), trie.NewStackTrie()); root != *h.WithdrawalsHash {
			return fmt.Errorf("%w: withdrawals root %s, header says %s", ErrBadBody, root, *h.WithdrawalsHash)
		}
	} else if b.Withdrawals() != nil {
		return fmt.Errorf("%w: withdrawals before Shanghai", ErrBadBody)
	}
	signer := c.Signer(h.Number, h.Time)
	var blobs uint64
	for i, tx := range b.Transactions() {
		if !signer.Supports(tx.Type()) {
			return fmt.Errorf("%w %d: type %d not supported in %v", ErrInvalidTx, i, tx.Type(), fork)
		}
		blobs += uint64(len(tx.BlobHashes()))
	}
	if fork >= forks.Cancun && blobs*evm.BlobGasPerBlob != *h.BlobGasUsed {
		return fmt.Errorf("%w: blob gas used %d, header says %d", ErrBadBody, blobs*evm.BlobGasPerBlob, *h.BlobGasUsed)
	}
	return nil
}

// Process executes block b on st, which must hold the parent's post-state.
// getHash answers BLOCKHASH for the block's ancestors. It returns the
// receipts and the new state root; st holds the post-state afterwards.
// Senders are recovered in parallel ahead of execution.
func (r Rules) Process(b *types.Block, st *state.StateDB, getHash func(uint64) types.Hash) (*Result, error) {
	rec := recoverBlocks([]*types.Block{b}, r.blockSigner)
	defer rec.stop()
	return r.process(b, st, getHash, senders{r: rec})
}

// blockSigner is the signer in force for b.
func (c *Config) blockSigner(b *types.Block) types.Signer { return c.Signer(b.Number(), b.Time()) }

// process is Process with the block's senders recovered by the caller's
// background recovery (a chain segment's, started before the block).
func (r Rules) process(b *types.Block, st *state.StateDB, getHash func(uint64) types.Hash, senders senders) (*Result, error) {
	x, err := r.Open(b.HeaderRef(), st, getHash, &ExecOptions{Transfers: true})
	if err != nil {
		return nil, err
	}
	for i, tx := range b.Transactions() {
		senders.wait(i)
		from, err := x.Signer.Sender(tx)
		if err != nil {
			return nil, fmt.Errorf("%w %d (%s): %v", ErrInvalidTx, i, tx.Hash(), err)
		}
		if _, _, err := x.Apply(tx, evm.TransactionToMessage(tx, from)); err != nil {
			return nil, fmt.Errorf("%w %d (%s): %v", ErrInvalidTx, i, tx.Hash(), err)
		}
	}
	return x.Finish(b.Withdrawals(), b.Uncles())
}

// parseDeposit turns the ABI-encoded DepositEvent data (five dynamic byte
// strings) into the 192-byte deposit request of EIP-6110, checking every
// offset and length so a malformed log cannot be misread.
func parseDeposit(data []byte) ([]byte, error) {
	sizes := [5]int{48, 32, 8, 96, 8} // pubkey, withdrawal credentials, amount, signature, index
	if len(data) != 576 {
		return nil, fmt.Errorf("%w: %d bytes of data", ErrBadDepositLog, len(data))
	}
	out := make([]byte, 0, 192)
	for i, size := range sizes {
		off := new(uint256.Int).SetBytes(data[32*i : 32*i+32])
		if !off.IsUint64() || off.Uint64()+32 > uint64(len(data)) {
			return nil, fmt.Errorf("%w: field %d offset", ErrBadDepositLog, i)
		}
		o := off.Uint64()
		n := new(uint256.Int).SetBytes(data[o : o+32])
		if !n.IsUint64() || n.Uint64() != uint64(size) || o+32+uint64(size) > uint64(len(data)) {
			return nil, fmt.Errorf("%w: field %d length", ErrBadDepositLog, i)
		}
		out = append(out, data[o+32:o+32+uint64(size)]...)
	}
	return out, nil
}

// RequestsHash is the EIP-7685 commitment: sha256 over the sha256 of each
// non-empty request list (type byte included).
func RequestsHash(reqs [][]byte) types.Hash {
	outer := sha256.New()
	for _, r := range reqs {
		if len(r) <= 1 {
			continue
		}
		h := sha256.Sum256(r)
		outer.Write(h[:])
	}
	var out types.Hash
	outer.Sum(out[:0])
	return out
}

// accumulateRewards pays proof-of-work block and uncle rewards.
func (c *Config) accumulateRewards(fork forks.Fork, h *types.Header, uncles []*types.Header, st *state.StateDB) {
	reward := uint256.NewInt(5e18)
	switch {
	case fork >= forks.Constantinople:
		reward = uint256.NewInt(2e18)
	case fork >= forks.Byzantium:
		reward = uint256.NewInt(3e18)
	}
	total := new(uint256.Int).Set(reward)
	for _, u := range uncles {
		// The uncle's miner gets (u + 8 - h) / 8 of the reward.
		r := new(uint256.Int).Mul(reward, uint256.NewInt(u.Number+8-h.Number))
		r.Rsh(r, 3)
		st.AddBalance(u.Coinbase, r)
		total.Add(total, new(uint256.Int).Rsh(reward, 5))
	}
	st.AddBalance(h.Coinbase, total)
}

// ValidateResult compares what executing a block produced with what its
// header claims.
func (c *Config) ValidateResult(b *types.Block, res *Result) error {
	h := b.HeaderRef()
	if res.GasUsed != h.GasUsed {
		return fmt.Errorf("%w: gas used %d, header says %d", ErrBadPostState, res.GasUsed, h.GasUsed)
	}
	if bloom := types.CreateBloom(res.Receipts); bloom != h.Bloom {
		return fmt.Errorf("%w: logs bloom differs", ErrBadPostState)
	}
	if root := types.DeriveReceiptRoot(res.Receipts, trie.NewStackTrie()); root != h.ReceiptHash {
		return fmt.Errorf("%w: receipt root %s, header says %s", ErrBadPostState, root, h.ReceiptHash)
	}
	if h.RequestsHash != nil {
		if rh := RequestsHash(res.Requests); rh != *h.RequestsHash {
			return fmt.Errorf("%w: requests hash %s, header says %s", ErrBadPostState, rh, *h.RequestsHash)
		}
	}
	if res.Root != h.Root {
		return fmt.Errorf("%w: state root %s, header says %s", ErrBadPostState, res.Root, h.Root)
	}
	return nil
}

// uncleHash is keccak256 of the RLP list of the uncle headers.
func uncleHash(uncles []*types.Header) types.Hash {
	size := 0
	for _, u := range uncles {
		size += u.EncodedSize()
	}
	enc := rlp.AppendListHeader(make([]byte, 0, rlp.ListSize(size)), size)
	for _, u := range uncles {
		enc = u.AppendRLP(enc)
	}
	return crypto.Keccak256(enc)
}
