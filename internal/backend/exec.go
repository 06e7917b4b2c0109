package backend

import (
	"context"
	"encoding/json"
	"time"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Executor runs the EVM over the state of a block without changing the
// chain: calls, gas estimates, access lists and simulated blocks.
type Executor interface {
	// Call runs a call and returns its output. A revert is a
	// *RevertError; any other failure of the execution is an error.
	Call(ctx context.Context, req *CallRequest) ([]byte, error)
	// EstimateGas finds the smallest gas limit with which the call
	// succeeds (within 1.5%, as go-ethereum does).
	EstimateGas(ctx context.Context, req *CallRequest) (uint64, error)
	// CreateAccessList runs the call until the access list it needs
	// stops changing.
	CreateAccessList(ctx context.Context, req *CallRequest) (*AccessListResult, error)
	// Simulate executes a sequence of blocks of calls on the state of
	// req.Base (eth_simulateV1). Failures with a defined meaning are
	// *SimulateError or *ParamError.
	Simulate(ctx context.Context, req *SimulateRequest) ([]*SimulatedBlock, error)
}

// CallRequest is one call on the state and context of a block.
type CallRequest struct {
	Block          *types.Block
	Args           CallArgs
	StateOverrides map[types.Address]StateOverride
	BlockOverrides *BlockOverrides
}

// CallArgs is a transaction to run as a call: every field is optional.
type CallArgs struct {
	From                 *types.Address
	To                   *types.Address // nil: contract creation
	Gas                  *uint64
	GasPrice             *uint256.Int
	MaxFeePerGas         *uint256.Int
	MaxPriorityFeePerGas *uint256.Int
	Value                *uint256.Int
	Nonce                *uint64
	// Input is the call data and Data its older name: clients send either,
	// and both given must agree.
	Input, Data       *[]byte
	AccessList        *types.AccessList
	ChainID           *uint256.Int
	BlobHashes        []types.Hash
	MaxFeePerBlobGas  *uint256.Int
	AuthorizationList []types.SetCodeAuthorization
}

// StateOverride replaces parts of an account for one call or simulated
// block.
type StateOverride struct {
	Balance *uint256.Int
	Nonce   *uint64
	Code    *[]byte
	// State replaces the whole storage; StateDiff sets single slots. At
	// most one may be given.
	State     map[types.Hash]types.Hash
	StateDiff map[types.Hash]types.Hash
	// MovePrecompileTo moves the precompile at this address to another
	// one (simulations only).
	MovePrecompileTo *types.Address
}

// BlockOverrides changes the block context of a call.
type BlockOverrides struct {
	Number, Time, GasLimit *uint64
	Coinbase               *types.Address
	PrevRandao             *types.Hash
	BaseFee, BlobBaseFee   *uint256.Int
}

// AccessListResult is the access list a call needs and what the call did
// with it.
type AccessListResult struct {
	AccessList types.AccessList
	GasUsed    uint64
	Err        error // the call's failure in the EVM, nil when it succeeded
}

// SimulateRequest is an eth_simulateV1 request.
type SimulateRequest struct {
	Base           *types.Block // the simulation starts on its state
	Blocks         []SimBlock
	TraceTransfers bool // report value transfers as ERC-7528 logs
	Validation     bool // check nonces, fees and balances as a block would
}

// SimBlock is one simulated block: its header fields, the state changed
// before it runs and its calls.
type SimBlock struct {
	Overrides      *SimBlockOverrides
	StateOverrides map[types.Address]StateOverride
	Calls          []CallArgs
}

// SimBlockOverrides are the header fields a simulated block may set.
type SimBlockOverrides struct {
	Number, Time, GasLimit *uint64
	Difficulty             *uint256.Int
	FeeRecipient           *types.Address
	PrevRandao, BeaconRoot *types.Hash
	BaseFee, BlobBaseFee   *uint256.Int
	Withdrawals            []types.Withdrawal // amounts in gwei
}

// SimulatedBlock is one executed simulated block. Its transactions are
// unsigned; Senders gives the sender each call named.
type SimulatedBlock struct {
	Block   *types.Block
	Senders []types.Address
	Calls   []SimCallResult
}

// SimCallResult is what one simulated call did.
type SimCallResult struct {
	ReturnData []byte
	Logs       []*types.Log
	GasUsed    uint64
	MaxUsedGas uint64 // gas used before the refund
	Status     uint64 // receipt status
	// Err is the call's failure in the EVM: a *RevertError, or another
	// error for any other failure; nil when the call succeeded.
	Err error
}

// Tracer replays stored blocks, and runs calls, with the EVM's hooks on.
type Tracer interface {
	// TraceBlock replays blk on its parent's state and traces every
	// transaction.
	TraceBlock(ctx context.Context, blk *types.Block, cfg *TraceConfig) ([]TxTrace, error)
	// TraceTransaction replays blk up to its transaction at index and
	// traces that one.
	TraceTransaction(ctx context.Context, blk *types.Block, index int, cfg *TraceConfig) (json.RawMessage, error)
	// TraceCall runs a call on the state of req.Block (with its state
	// and block overrides) and traces it.
	TraceCall(ctx context.Context, req *CallRequest, cfg *TraceConfig) (json.RawMessage, error)
	// TraceCallMany runs calls one after the other on the state of block,
	// each seeing what the ones before changed, and traces each with its
	// own config.
	TraceCallMany(ctx context.Context, block *types.Block, calls []CallArgs, cfgs []*TraceConfig) ([]json.RawMessage, error)
	// StorageRangeAt lists up to max storage slots of addr, in the
	// storage trie's (hashed-key) order from start, as the transaction
	// of blk at txIndex finds them (debug_storageRangeAt).
	StorageRangeAt(ctx context.Context, blk *types.Block, txIndex int, addr types.Address, start types.Hash, max int) (*StorageRange, error)
}

// StorageRange is a page of an account's storage: slots by key hash,
// and the key hash the next page starts at (nil: none).
type StorageRange struct {
	Slots []StorageSlot
	Next  *types.Hash
}

// StorageSlot is one slot of a StorageRange.
type StorageSlot struct {
	KeyHash, Value types.Hash
}

// TraceConfig chooses a tracer and what it records.
type TraceConfig struct {
	// Tracer names the tracer: "" for the opcode-level struct logger, or
	// one of go-ethereum's native tracers (callTracer, prestateTracer,
	// flatCallTracer, 4byteTracer, muxTracer, noopTracer). JavaScript
	// tracers are refused.
	Tracer string
	// The struct logger's options.
	DisableStack     bool
	DisableStorage   bool
	EnableMemory     bool
	EnableReturnData bool
	// Limit is the most opcode entries the struct logger records (later
	// ones are left out); 0: no limit.
	Limit int
	// TracerConfig is the named tracer's own options, as JSON
	// ({"onlyTopCall": true} for the callTracer...); nil: none.
	TracerConfig json.RawMessage
	// Timeout shortens the node's time cap of the trace (0: the cap).
	Timeout time.Duration
}

// TxTrace is the trace of one transaction. Result is the tracer's output
// in the tracer's own format (go-ethereum's JSON), which every interface
// serves as is.
type TxTrace struct {
	TxHash types.Hash
	Result json.RawMessage
}

// BlockBuilder builds blocks on request without importing them (the
// testing_buildBlockV1 method).
type BlockBuilder interface {
	// BuildBlock builds a block on req.Parent from exactly the given
	// transactions, failing when one of them does not apply.
	BuildBlock(ctx context.Context, req *BuildRequest) (*BuiltBlock, error)
}

// BuildRequest is what a built block is made of.
type BuildRequest struct {
	Parent           types.Hash
	Timestamp        uint64
	PrevRandao       types.Hash
	FeeRecipient     types.Address
	Withdrawals      []types.Withdrawal
	ParentBeaconRoot *types.Hash
	Transactions     [][]byte // binary encoded, applied in order
	Extra            []byte
	// FromPool asks for the pool's pending transactions, picked as a
	// proposer picks them, instead of Transactions.
	FromPool bool
}

// BuiltBlock is a built block, what it pays its fee recipient and its
// EIP-7685 requests (the non-empty ones, type byte first).
type BuiltBlock struct {
	Block    *types.Block
	Value    *uint256.Int
	Requests [][]byte
}

// CallData returns Input, or Data when Input is absent; both given must
// agree (a ParamError of the call object, argument 0, when they do not).
func (a *CallArgs) CallData() ([]byte, error) {
	if a.Input != nil && a.Data != nil && string(*a.Input) != string(*a.Data) {
		return nil, &ParamError{Msg: `both "data" and "input" are set and not equal. Please use "input" to pass transaction call data`}
	}
	if a.Input != nil {
		return *a.Input, nil
	}
	if a.Data != nil {
		return *a.Data, nil
	}
	return nil, nil
}

// MaxSimulateBlocks is the most blocks one simulation may span.
const MaxSimulateBlocks = 256
