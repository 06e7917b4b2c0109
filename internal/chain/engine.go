package chain

import (
	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Engine is the part of a chain's rules that is the chain's own rather
// than Ethereum's, in the spirit of go-ethereum's consensus.Engine and
// the Cosmos SDK's EndBlocker: what a header carries beyond Ethereum's
// fields, the system state at genesis, and what happens at the end of
// every block. The chain owns the interface and calls it on every path
// that builds, validates or executes a block; an implementation (chaind's
// proof-of-stake rules live in internal/pos) is handed to Open.
//
// Ethereum is the engine of chains with no rules of their own: imported
// proof-of-work history, conformance vectors, plain development chains.
type Engine interface {
	// ProofOfStake reports whether the chain runs chaind's proof-of-stake
	// rules (system contracts, consensus data, validator sets from state).
	// It is the one answer to that question.
	ProofOfStake() bool
	// MaxExtra is the longest header extra data the engine accepts:
	// Ethereum's 32 bytes unless the engine carries data there.
	MaxExtra() int
	// Natives are the system contracts the EVM runs as Go code, by
	// address; nil for none.
	Natives() map[types.Address]evm.NativeContract
	// GenesisAlloc returns the accounts the engine adds to g's allocation
	// (its system contracts with their genesis storage), nil for none. It
	// must not change g and must give the same answer for the same g: a
	// node reopening its data directory rebuilds the same block 0.
	GenesisAlloc(g *Genesis) (Alloc, error)
	// Prepare fills in what the engine decides in a header about to be
	// built on parent (the consensus data in the extra data and the
	// commitment to the parent's certificate), on c's stored chain.
	Prepare(c *Chain, parent *types.Header, a *Attributes) error
	// VerifyHeader checks what the engine decides in h, a child of parent
	// whose certificate, as the proposal carries it or the store holds it,
	// is parentCert. It runs on every proposal a validator checks and on
	// every certified block inserted (InsertCertified, a syncing node's
	// InsertCertifiedChain). Ethereum's part of validity is
	// ValidateHeader's.
	VerifyHeader(c *Chain, parent, h *types.Header, parentCert []byte) error
	// Finalize runs the engine's end-of-block rule on x's state, after
	// the transactions and withdrawals; burned is what the block's base
	// and blob fees destroyed, as the executor counted it. It returns the
	// validator update the block decided, if any.
	Finalize(x *Exec, burned *uint256.Int) (*ValidatorUpdate, error)
}

// TimeRule is an engine's own rule for a header's time against its
// parent's, replacing Ethereum's (a timestamp strictly after the
// parent's): pos.Engine's millisecond time. Engines without one keep
// Ethereum's.
type TimeRule interface {
	CheckTime(parent, h *types.Header) error
}

// ValidatorUpdate is a validator set a block decided and the first height
// it runs.
type ValidatorUpdate struct {
	Height     uint64
	Validators []Validator
}

// Validator is one member of a validator set: its consensus address and
// voting power.
type Validator struct {
	Address types.Address
	Power   int64
}

// Ethereum is the engine of a chain with no rules beyond Ethereum's: no
// system contracts, no consensus data, nothing at the end of a block.
type Ethereum struct{}

// ProofOfStake implements Engine.
func (Ethereum) ProofOfStake() bool { return false }

// MaxExtra implements Engine: Ethereum's 32 bytes.
func (Ethereum) MaxExtra() int { return 32 }

// Natives implements Engine.
func (Ethereum) Natives() map[types.Address]evm.NativeContract { return nil }

// GenesisAlloc implements Engine.
func (Ethereum) GenesisAlloc(*Genesis) (Alloc, error) { return nil, nil }

// Prepare implements Engine: the builder's attributes stand.
func (Ethereum) Prepare(*Chain, *types.Header, *Attributes) error { return nil }

// VerifyHeader implements Engine.
func (Ethereum) VerifyHeader(*Chain, *types.Header, *types.Header, []byte) error { return nil }

// Finalize implements Engine.
func (Ethereum) Finalize(*Exec, *uint256.Int) (*ValidatorUpdate, error) { return nil, nil }

// Rules are everything that decides a block: the chain's configuration
// (data: chain ID, fork schedule) and its engine (code).
type Rules struct {
	*Config
	Engine Engine // nil: Ethereum
}

// engine is r's engine, Ethereum when none is set.
func (r Rules) engine() Engine {
	if r.Engine == nil {
		return Ethereum{}
	}
	return r.Engine
}

// EthereumRules are cfg's rules with no engine of the chain's own.
func EthereumRules(cfg *Config) Rules { return Rules{Config: cfg} }

// burnedFees is what a block's transactions destroyed: the base fee of
// every unit of gas (EIP-1559) and the blob base fee of every unit of blob
// gas (EIP-4844).
func burnedFees(h *types.Header, blobBaseFee *uint256.Int, gasUsed, blobGasUsed uint64) *uint256.Int {
	burned := new(uint256.Int)
	if h.BaseFee != nil {
		burned.Mul(h.BaseFee, uint256.NewInt(gasUsed))
	}
	if blobBaseFee != nil && blobGasUsed > 0 {
		burned.Add(burned, new(uint256.Int).Mul(blobBaseFee, uint256.NewInt(blobGasUsed)))
	}
	return burned
}

// genesisWith returns g with the engine's genesis accounts added to its
// allocation (g itself unchanged).
func genesisWith(g *Genesis, e Engine) (*Genesis, error) {
	if g.allocOmitted {
		return nil, ErrAllocNotLoaded
	}
	extra, err := e.GenesisAlloc(g)
	if err != nil || len(extra) == 0 {
		return g, err
	}
	ng := *g
	ng.Alloc = make(Alloc, len(g.Alloc)+len(extra))
	for a, acc := range g.Alloc {
		ng.Alloc[a] = acc
	}
	for a, acc := range extra {
		ng.Alloc[a] = acc
	}
	return &ng, nil
}
