// Package pos is chaind's proof-of-stake engine: the chain's own rules
// beyond Ethereum's, behind the chain.Engine interface that
// internal/chain owns and calls on every path that builds, validates or
// executes a block.
//
// What it decides:
//   - genesis: the staking section of a genesis becomes the system
//     contracts' code and storage in block 0 (GenesisAlloc);
//   - a header: the consensus data in its extra data (the parent's absent
//     validators, double-sign evidence) and its commitment to the
//     parent's certificate (Prepare builds them, VerifyHeader checks
//     them);
//   - the end of a block: the staking rule (staking.EndBlock) fed the fees
//     the block burned, returning the validator set a selection block
//     chose and the height it takes over (Finalize);
//   - the validator set of every height (ValidatorSet): the set a
//     selection block recorded with itself (chain.ValidatorUpdate), placed
//     by the cycle schedule the staking state keeps (Cycles), which the
//     consensus driver hands to the core and the certificate checks use.
//
// The staking, distribution and governance contracts themselves are
// internal/staking; the BFT core is consensus; this package joins them to
// the chain.
//
// A delegation, from eth_sendRawTransaction to chain_getCycleInfo (down
// the layers once, and back up once):
//
//	rpc/ethapi/eth.go: ethAPI.sendRawTransaction          decode, hand to the backend
//	internal/node/ethbackend/backend.go: SendPooledTransaction
//	internal/txpool/txpool.go: Pool.AddPooled             checked against the head state, pending
//	internal/node/bft/app.go: ChainApp.Propose, build     the proposer takes the pool's pending
//	internal/chain/builder.go: Chain.BuildBlock           NextHeader, then this engine's Prepare
//	internal/pos/engine.go: Engine.Prepare                consensus data, parent-certificate commitment
//	internal/chain/exec.go: Rules.Open, Exec.Apply        the one executor; natives from Engine.Natives
//	evm/evm.go: EVM.Call -> runNative                     the Staking address runs Go code
//	internal/staking/contract.go: Contract.RunNative      ABI dispatch
//	internal/staking/staking.go: delegate -> ledger.bond  shares and stake in the contract's storage
//	internal/chain/exec.go: Exec.Finish                   counts the burned fees, calls Finalize
//	internal/pos/engine.go: Engine.Finalize               staking.EndBlock; a selection block returns the chosen set
//	internal/staking/cycle.go: EndBlock -> selectValidators, endCycle (types.Cycles says which block is which)
//	internal/chain/certs.go: Chain.CommitCertified        the block, its state and certificate in one write
//	rpc/ethapi/chainns.go: RegisterChain "chain_getCycleInfo"
//	internal/node/stakebackend/network.go: network.CycleInfo  staking.ReadCycle on the head state
//
// A block, from proposal to commit:
//
//	consensus/core.go: State.Step -> RequestValue        the core asks its proposer for a value
//	internal/node/bft/driver.go: Driver.apply -> work.propose (work.go)  off the driver's goroutine
//	internal/node/bft/app.go: ChainApp.Propose -> build -> Chain.BuildBlock (Prepare, Open, fill, Finish, Seal)
//	internal/node/bft/value.go: EncodeValue              rlp([block, parent certificate])
//	consensus/core.go: State.Step -> BroadcastProposal, then RequestValidation on every validator
//	internal/node/bft/work.go: work.validate -> ChainApp.Validate (app.go)  DecodeValue
//	internal/pos/engine.go: Engine.VerifyHeader          CheckParentCert, checkConsensusData (evidence.go)
//	internal/chain/chain.go: Chain.Validate              Rules.ValidateHeader, execution, Engine.Finalize, root check
//	consensus/core.go: ValidatedEvent -> prevotes, precommits -> Decide
//	internal/node/bft/driver.go: Driver.commit           the certificate from the precommits
//	internal/node/bft/app.go: ChainApp.Commit -> Chain.CommitCertified (certs.go), Engine.Committed
package pos

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"sync"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/staking"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/internal/version"
	"github.com/holiman/uint256"
)

// Engine is the proof-of-stake engine of one chain. Besides the rules it
// holds the validator sets it has read (by genesis and cycle) and the
// double-sign evidence this node has seen and no block has carried yet.
type Engine struct {
	// vals, when set, replaces the sets the staking state decides: a test
	// checking the consensus-data rules against a fixed set.
	vals consensus.ValidatorSource

	mu     sync.Mutex
	sets   map[setKey]*consensus.ValidatorSet // at each cycle's first height
	cycles headCycles                         // the schedule at the last head asked about

	ev evidencePool

	// binary is the version of the software running the engine, which
	// scheduled upgrades and the network's minVersion are checked
	// against (staking.UpgradeNeeded).
	binary string
}

type setKey struct {
	genesis types.Hash // a development chain's reset changes the genesis
	first   uint64     // the cycle's first height
}

// New returns the engine of a proof-of-stake chain.
func New() *Engine {
	return &Engine{sets: map[setKey]*consensus.ValidatorSet{}, binary: version.Binary}
}

// SetBinaryVersion makes the engine check upgrades against v instead of
// this build's version: a test of an old node facing an upgrade.
func (e *Engine) SetBinaryVersion(v string) { e.binary = v }

// UpgradeNeeded says whether this engine's binary may execute block
// number on the parent state st (staking.UpgradeNeeded): the rule
// Finalize applies, for the node to halt before it is asked.
func (e *Engine) UpgradeNeeded(st staking.State, number uint64) error {
	return staking.UpgradeNeeded(st, number, e.binary)
}

// HeadUpgradeNeeded says whether this binary may go on past c's head: nil,
// or the error naming the version to run, when a scheduled upgrade's
// height is the next block or the network's minVersion is above this
// binary's version. Chains without this engine never need one. A node
// that needs an upgrade refuses to start (no p2p handshakes, no
// signatures) and a running one halts at the plan's height, as a Cosmos
// SDK node does.
func HeadUpgradeNeeded(c *chain.Chain) error {
	e := Of(c)
	if e == nil {
		return nil
	}
	head := c.Head()
	st, err := c.StateAt(head.Root())
	if err != nil {
		return nil // the head's state is checked again by the block that needs it
	}
	defer st.Release()
	return e.UpgradeNeeded(st, head.Number()+1)
}

// Releases returns the release this binary runs (the engine's) and the
// network's minVersion at c's head ("" when c's head state cannot be
// read), the two the p2p handshake compares with a peer's. Chains without
// this engine have no minVersion.
func Releases(c *chain.Chain) (binary, minVersion string) {
	e := Of(c)
	if e == nil {
		return version.Binary, ""
	}
	st, err := c.StateAt(c.Head().Root())
	if err != nil {
		return e.binary, ""
	}
	defer st.Release()
	return e.binary, staking.ReadParams(st).MinVersion
}

// NewWithValidators returns an engine that takes every height's validator
// set from vals instead of the staking state: for tests of the header
// rules on chains without staking state.
func NewWithValidators(vals consensus.ValidatorSource) *Engine {
	e := New()
	e.vals = vals
	return e
}

// ForGenesis returns the engine g's chain runs: this package's when g has
// a staking section, Ethereum's otherwise.
func ForGenesis(g *chain.Genesis) chain.Engine {
	if len(g.Staking) == 0 {
		return chain.Ethereum{}
	}
	return New()
}

// Of returns c's proof-of-stake engine, or nil when c runs another.
func Of(c *chain.Chain) *Engine {
	e, _ := c.Engine().(*Engine)
	return e
}

// ProofOfStake implements chain.Engine.
func (*Engine) ProofOfStake() bool { return true }

// MaxExtra is the extra-data limit of chains that carry consensus data.
const MaxExtra = 64 << 10

// MaxExtra implements chain.Engine: the header's extra data carries the
// consensus data.
func (*Engine) MaxExtra() int { return MaxExtra }

// Natives implements chain.Engine: the staking, distribution and
// governance contracts.
func (*Engine) Natives() map[types.Address]evm.NativeContract { return natives }

var natives = staking.Natives()

// GenesisAlloc implements chain.Engine: the genesis's staking section
// (validators, delegations, parameters) becomes the system contracts'
// storage, next to their code. The supply they record is what the rest of
// the allocation holds. A genesis without the section gets nothing (only
// a test runs the engine's header rules on such a chain; ForGenesis picks
// Ethereum for it).
func (*Engine) GenesisAlloc(g *chain.Genesis) (chain.Alloc, error) {
	if len(g.Staking) == 0 {
		return nil, nil
	}
	sg, err := staking.ParseGenesis(g.Staking)
	if err != nil {
		return nil, err
	}
	system := map[types.Address]bool{}
	for _, a := range staking.Addresses() {
		system[a] = true
	}
	supply := new(uint256.Int)
	err = g.ForEachAlloc(func(a types.Address, acc *chain.Account) error {
		if !system[a] {
			supply.Add(supply, &acc.Balance.Int)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	mem := staking.NewMemState()
	if err := staking.InitGenesis(mem, sg, uint64(g.Timestamp), supply); err != nil {
		return nil, err
	}
	out := chain.Alloc{}
	for _, a := range staking.Addresses() {
		acc := chain.Account{Nonce: 1, Code: staking.ContractCode, Storage: mem.Storage[a]}
		if b := mem.Balances[a]; b != nil {
			acc.Balance = chain.U256{Int: *b}
		}
		out[a] = acc
	}
	return out, nil
}

// Finalize implements chain.Engine: the staking rules at the end of every
// block. The base and blob fees the block's transactions paid were burned
// by the EVM; the supply records them. The block's consensus data (checked
// by the validators that certified it) feeds the penalties. At a cycle's
// selection block the chosen set is returned with the first height it
// runs.
//
// A binary older than a scheduled upgrade's version (at or past its
// height) or than the network's minVersion executes nothing: every path
// that builds, validates or imports a block fails here with
// staking.ErrUpgradeNeeded saying which version to run, so such a node
// neither signs nor extends its chain.
func (e *Engine) Finalize(x *chain.Exec, burned *uint256.Int) (*chain.ValidatorUpdate, error) {
	if err := e.UpgradeNeeded(x.State, x.Header.Number); err != nil {
		return nil, err
	}
	cd, err := DecodeConsensusData(x.Header.Extra)
	if err != nil {
		return nil, err
	}
	b := staking.Block{Number: x.Header.Number, Time: x.Header.Time, TimeMs: cd.TimeMs, Burned: burned, Absent: cd.Absent}
	for _, ev := range cd.Evidence {
		b.DoubleSigns = append(b.DoubleSigns, staking.DoubleSign{ConsensusAddress: ev.A.Validator, Height: ev.A.Height})
	}
	if err := staking.EndBlock(x.State, b); err != nil {
		return nil, err
	}
	cycles, err := staking.ReadCycles(x.State)
	if err != nil {
		return nil, err
	}
	if !cycles.IsSelection(x.Header.Number) {
		return nil, nil
	}
	up := &chain.ValidatorUpdate{Height: cycles.First(cycles.Of(x.Header.Number) + 1)}
	for _, a := range staking.ReadNextSet(x.State) {
		up.Validators = append(up.Validators, chain.Validator{Address: a.ConsensusAddress, Power: a.Power})
	}
	return up, nil
}

// CertRoot is what a block's ParentBeaconRoot holds: keccak256 of the
// parent's certificate, or zero when there is none.
func CertRoot(cert []byte) types.Hash {
	if len(cert) == 0 {
		return types.Hash{}
	}
	return crypto.Keccak256(cert)
}

// parentCert is the stored certificate of block n: nil for the genesis
// block and for blocks decided before certificates were kept.
func parentCert(c *chain.Chain, n uint64) ([]byte, error) {
	cert, err := c.Certificate(n)
	if errors.Is(err, chain.ErrNotFound) {
		return nil, nil
	}
	return cert, err
}

// Prepare implements chain.Engine: a block on parent commits to the
// parent's certificate (the proposer's widest, a.ParentCert, or else the
// stored one) and carries the consensus data this node can vouch for:
// the parent's validators missing from that certificate and the pooled
// evidence still punishable. Extra data the builder chose itself stands
// (a test forging consensus data).
func (e *Engine) Prepare(c *chain.Chain, parent *types.Header, a *chain.Attributes) error {
	cert := a.ParentCert
	if cert == nil {
		var err error
		if cert, err = parentCert(c, parent.Number); err != nil {
			return err
		}
	}
	root := CertRoot(cert)
	a.ParentBeaconRoot = &root
	prepareTime(parent, a)
	if a.Extra != nil {
		return nil
	}
	d, err := e.consensusData(c, parent, cert)
	if err != nil {
		return err
	}
	d.TimeMs = a.TimeMs
	a.Extra = d.Encode()
	return nil
}

// VerifyHeader implements chain.Engine: the parent's certificate verifies
// and h commits to it, and h's consensus data is exactly what the
// certificate and the evidence rules allow.
func (e *Engine) VerifyHeader(c *chain.Chain, parent, h *types.Header, cert []byte) error {
	if storedCert(c, parent, cert) {
		// Verified when it was stored: only the commitment is left.
		if err := commitsTo(h, cert); err != nil {
			return err
		}
	} else if err := CheckParentCert(c.Config.ChainID, e.Validators(c), parent, h, cert); err != nil {
		return err
	}
	return e.checkConsensusData(c, parent, h, cert)
}

// storedCert reports whether cert is the stored certificate of parent, a
// canonical block: every certificate the chain stores was verified first
// (built by the driver from verified precommits, or checked by block sync
// before the insert), so a syncing node or a validator checking a
// proposal does not recover its signatures again.
func storedCert(c *chain.Chain, parent *types.Header, cert []byte) bool {
	if len(cert) == 0 || c.GetHash(parent.Number) != parent.Hash() {
		return false
	}
	stored, err := c.Certificate(parent.Number)
	return err == nil && bytes.Equal(stored, cert)
}

// commitsTo checks that h commits to exactly cert.
func commitsTo(h *types.Header, cert []byte) error {
	if r := h.ParentBeaconRoot; r == nil || *r != CertRoot(cert) {
		return errors.New("pos: block does not commit to its parent's certificate")
	}
	return nil
}

// CheckParentCert checks what a proposed block says about its parent: the
// certificate verifies against the validator set of the parent's height
// and the parent's hash, and the block commits to exactly that
// certificate. A block on top of the genesis block carries none. It is
// the rule of every chain the BFT core runs, whatever its engine.
func CheckParentCert(chainID uint64, vals consensus.ValidatorSource, parent, h *types.Header, cert []byte) error {
	if parent.Number == 0 {
		if cert != nil {
			return errors.New("pos: a certificate for the genesis block")
		}
	} else {
		c, err := consensus.DecodeCertificate(cert)
		if err != nil {
			return fmt.Errorf("pos: parent certificate: %w", err)
		}
		set, err := vals.ValidatorSet(parent.Number)
		if err != nil {
			return err
		}
		if err := consensus.VerifyCertificate(chainID, set, parent.Number, parent.Hash(), c); err != nil {
			return fmt.Errorf("pos: parent certificate: %w", err)
		}
	}
	return commitsTo(h, cert)
}

// Validators returns the validator sets of c's heights, as the consensus
// core and the certificate checks take them.
func (e *Engine) Validators(c *chain.Chain) consensus.ValidatorSource {
	if e.vals != nil {
		return e.vals
	}
	return source{e, c}
}

type source struct {
	e *Engine
	c *chain.Chain
}

func (s source) ValidatorSet(height uint64) (*consensus.ValidatorSet, error) {
	return s.e.ValidatorSet(s.c, height)
}

// headCycles is the cycle schedule in the state of one head block.
type headCycles struct {
	head   types.Hash
	cycles types.Cycles
}

// Cycles returns c's cycle schedule as its head's state records it: every
// era the chain ran, so it answers for old heights too (types.Cycles).
// It is read once per head.
func (e *Engine) Cycles(c *chain.Chain) (types.Cycles, error) {
	head := c.Head()
	e.mu.Lock()
	hc := e.cycles
	e.mu.Unlock()
	if hc.head == head.Hash() {
		return hc.cycles, nil
	}
	st, err := c.StateAt(head.Root())
	if err != nil {
		return types.Cycles{}, fmt.Errorf("pos: cycle schedule at block %d: %w", head.Number(), err)
	}
	defer st.Release()
	cycles, err := staking.ReadCycles(st)
	if err != nil {
		return types.Cycles{}, err
	}
	e.mu.Lock()
	e.cycles = headCycles{head.Hash(), cycles}
	e.mu.Unlock()
	return cycles, nil
}

// ValidatorSet returns the validator set of height on c: the set the
// selection block of the previous cycle recorded when it was committed
// (for cycle 0, the genesis state's), with proposer priorities advanced
// once per height from the cycle's first block. Every node derives the
// same set from the same chain. A set not decided yet is
// chain.ErrNotFound.
func (e *Engine) ValidatorSet(c *chain.Chain, height uint64) (*consensus.ValidatorSet, error) {
	if e.vals != nil {
		return e.vals.ValidatorSet(height)
	}
	if height == 0 {
		return nil, fmt.Errorf("staking: the genesis block has no validators")
	}
	cycles, err := e.Cycles(c)
	if err != nil {
		return nil, err
	}
	cy := cycles.Of(height)
	first := max(cycles.First(cy), 1)
	key := setKey{c.Genesis().Hash(), first}
	e.mu.Lock()
	set, ok := e.sets[key]
	e.mu.Unlock()
	if !ok {
		var err error
		if set, err = loadSet(c, cycles, cy); err != nil {
			return nil, err
		}
		e.mu.Lock()
		e.sets[key] = set
		if len(e.sets) > 64 {
			for k := range e.sets {
				if k.first+32*cycles.Rule(cy).Length < first || k.genesis != key.genesis {
					delete(e.sets, k)
				}
			}
		}
		e.mu.Unlock()
	}
	for h := first; h < height; h++ {
		set = set.Next()
	}
	return set, nil
}

func loadSet(c *chain.Chain, cycles types.Cycles, cy uint64) (*consensus.ValidatorSet, error) {
	// A chain whose genesis is not block 0 (a fork of another chain) takes
	// the sets of the cycles its genesis reaches into from the genesis
	// state: no selection ran before it.
	num := cycles.SetBlock(cy)
	if g := c.Genesis(); num <= g.Number() {
		return genesisSet(c, g, cy)
	}
	// Any later set was decided by a selection block, which recorded it
	// with itself (chain.ValidatorUpdate).
	hash, ok := c.DB().CanonicalHash(num)
	if !ok {
		return nil, fmt.Errorf("staking: validators of cycle %d are decided by block %d: %w", cy, num, chain.ErrNotFound)
	}
	up, err := c.ValidatorUpdate(hash)
	if errors.Is(err, chain.ErrNotFound) {
		return nil, fmt.Errorf("staking: block %d, the selection block of cycle %d, recorded no validator set", num, cy-1)
	}
	if err != nil {
		return nil, err
	}
	if first := cycles.First(cy); up.Height != first {
		return nil, fmt.Errorf("staking: block %d chose a set for height %d, cycle %d starts at %d", num, up.Height, cy, first)
	}
	vals := make([]consensus.Validator, 0, len(up.Validators))
	for _, v := range up.Validators {
		vals = append(vals, consensus.Validator{Address: v.Address, Power: v.Power})
	}
	return newSet(vals, cy)
}

// genesisSet is the set of cycle cy read from the genesis block's state.
func genesisSet(c *chain.Chain, g *types.Block, cy uint64) (*consensus.ValidatorSet, error) {
	st, err := c.StateAt(g.Root())
	if err != nil {
		return nil, fmt.Errorf("staking: validators of cycle %d: %w", cy, err)
	}
	defer st.Release()
	var vals []consensus.Validator
	for _, a := range staking.ReadActiveSet(st) {
		vals = append(vals, consensus.Validator{Address: a.ConsensusAddress, Power: a.Power})
	}
	return newSet(vals, cy)
}

// newSet is the consensus set of vals, in address order.
func newSet(vals []consensus.Validator, cy uint64) (*consensus.ValidatorSet, error) {
	if len(vals) == 0 {
		return nil, fmt.Errorf("staking: cycle %d has no validators (the genesis names none)", cy)
	}
	sort.Slice(vals, func(i, j int) bool { return string(vals[i].Address[:]) < string(vals[j].Address[:]) })
	return consensus.NewValidatorSet(vals)
}
