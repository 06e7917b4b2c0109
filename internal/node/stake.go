package node

import (
	"encoding/json"
	"fmt"
	"net"
	"sort"
	"strconv"
	"sync"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/node/bft"
	"github.com/chaind/chaind/internal/staking"
	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/holiman/uint256"
)

// PrepareGenesis turns a genesis with a "staking" section into a chain
// with system contracts: the section's validators, delegations and
// parameters become the contracts' genesis storage (added to Alloc, with
// the contracts' code), and the chain config gets the contracts and the
// end-of-block rules. A genesis without the section is left alone, so
// Ethereum test chains never see the contracts. It is idempotent: a
// genesis read back from a data directory prepares to the same block 0.
func PrepareGenesis(g *chain.Genesis) error {
	if len(g.Staking) == 0 {
		return nil
	}
	if g.Config.Natives != nil {
		// Prepared already: nodes sharing one genesis (a devnet) must not
		// rewrite what a running one reads.
		return nil
	}
	sg, err := staking.ParseGenesis(g.Staking)
	if err != nil {
		return err
	}
	system := map[types.Address]bool{}
	for _, a := range staking.Addresses() {
		system[a] = true
	}
	supply := new(uint256.Int)
	for a, acc := range g.Alloc {
		if !system[a] {
			supply.Add(supply, &acc.Balance.Int)
		}
	}
	mem := staking.NewMemState()
	if err := staking.InitGenesis(mem, sg, uint64(g.Timestamp), supply); err != nil {
		return err
	}
	if g.Alloc == nil {
		g.Alloc = chain.Alloc{}
	}
	for _, a := range staking.Addresses() {
		acc := chain.Account{Nonce: 1, Code: staking.ContractCode, Storage: mem.Storage[a]}
		if b := mem.Balances[a]; b != nil {
			acc.Balance = chain.U256{Int: *b}
		}
		g.Alloc[a] = acc
	}
	g.Config.Natives = staking.Natives()
	g.Config.EndBlock = stakingEndBlock
	g.Config.MaxExtra = bft.MaxExtra
	return nil
}

// stakingEndBlock runs the staking rules at the end of every block. The
// base fee and blob fee the block's transactions paid are burned by the
// EVM; the supply records them. The block's consensus data (in its extra
// data: the parent's absent validators and double-sign evidence, checked
// by the validators that certified the block) feeds the penalties.
func stakingEndBlock(x *chain.Exec) error {
	cd, err := bft.DecodeConsensusData(x.Header.Extra)
	if err != nil {
		return err
	}
	burned := new(uint256.Int)
	if bf := x.Header.BaseFee; bf != nil {
		burned.Mul(bf, uint256.NewInt(x.GasUsed))
	}
	if bbf := x.EVM.Context.BlobBaseFee; bbf != nil && x.BlobGasUsed > 0 {
		burned.Add(burned, new(uint256.Int).Mul(bbf, uint256.NewInt(x.BlobGasUsed)))
	}
	b := staking.Block{Number: x.Header.Number, Time: x.Header.Time, Burned: burned, Absent: cd.Absent}
	for _, ev := range cd.Evidence {
		b.DoubleSigns = append(b.DoubleSigns, staking.DoubleSign{ConsensusAddress: ev.A.Validator, Height: ev.A.Height})
	}
	return staking.EndBlock(x.State, b)
}

// stakeSchedule is the validator set of every height, read from the
// staking state: the set chosen at the selection block of the previous
// cycle (for cycle 0, the genesis set) with proposer priorities advanced
// once per height from the cycle's first block. Every node derives the
// same set from the same chain.
type stakeSchedule struct {
	c *chain.Chain

	mu    sync.Mutex
	cache map[uint64]*consensus.ValidatorSet // cycle → set at its first height
}

func newStakeSchedule(c *chain.Chain) *stakeSchedule {
	return &stakeSchedule{c: c, cache: map[uint64]*consensus.ValidatorSet{}}
}

// setBlock is the block whose state holds the validators of cycle cy.
func setBlock(cy uint64) uint64 {
	if cy == 0 {
		return 0
	}
	return (cy-1)*staking.CycleLength + staking.SelectionBlock
}

// ValidatorSet implements consensus.ValidatorSource.
func (s *stakeSchedule) ValidatorSet(height uint64) (*consensus.ValidatorSet, error) {
	if height == 0 {
		return nil, fmt.Errorf("staking: the genesis block has no validators")
	}
	cy := height / staking.CycleLength
	first := max(cy*staking.CycleLength, 1)
	s.mu.Lock()
	set, ok := s.cache[cy]
	s.mu.Unlock()
	if !ok {
		var err error
		if set, err = s.load(cy); err != nil {
			return nil, err
		}
		s.mu.Lock()
		s.cache[cy] = set
		if len(s.cache) > 64 {
			for k := range s.cache {
				if k+32 < cy {
					delete(s.cache, k)
				}
			}
		}
		s.mu.Unlock()
	}
	for h := first; h < height; h++ {
		set = set.Next()
	}
	return set, nil
}

func (s *stakeSchedule) load(cy uint64) (*consensus.ValidatorSet, error) {
	// A chain whose genesis is not block 0 (a fork of another chain) takes
	// the sets of the cycles its genesis reaches into from the genesis
	// state: no selection ran before it.
	num, fromGenesis := setBlock(cy), false
	if g := s.c.Genesis().Number(); num <= g {
		num, fromGenesis = g, true
	}
	b, err := s.c.BlockByNumber(num)
	if err != nil {
		return nil, fmt.Errorf("staking: validators of cycle %d: block %d: %w", cy, num, err)
	}
	st, err := s.c.StateAt(b.Root())
	if err != nil {
		return nil, fmt.Errorf("staking: validators of cycle %d: %w", cy, err)
	}
	active := staking.ReadActiveSet(st)
	if !fromGenesis {
		active = staking.ReadNextSet(st)
	}
	if len(active) == 0 {
		return nil, fmt.Errorf("staking: cycle %d has no validators (the genesis names none)", cy)
	}
	vals := make([]consensus.Validator, 0, len(active))
	for _, a := range active {
		vals = append(vals, consensus.Validator{Address: a.ConsensusAddress, Power: a.Power})
	}
	sort.Slice(vals, func(i, j int) bool { return string(vals[i].Address[:]) < string(vals[j].Address[:]) })
	return consensus.NewValidatorSet(vals)
}

// devValidatorStake is what each dev validator has bonded at genesis:
// created with the chain, not taken from the dev accounts.
var devValidatorStake = new(uint256.Int).Mul(uint256.NewInt(1_000), uint256.NewInt(1e18))

// DevParams are the network parameters of --dev and devnet chains: the
// defaults with periods short enough to watch in a test (a one-minute
// unbonding cooldown, one-minute deposit and voting periods).
func DevParams() staking.Params {
	p := staking.DefaultParams()
	p.RestakeCooldown = 60_000
	p.DepositPeriod = 60_000
	p.VotingPeriod = 60_000
	return p
}

// SetDevStaking gives a dev genesis its staking section: one validator per
// key, each with its own operator (the key's address, none of the dev
// accounts), the same stake and a 10% commission, at host:26656+i.
func SetDevStaking(g *chain.Genesis, keys []*secp256k1.PrivateKey, host string) error {
	if host == "" {
		host = "127.0.0.1"
	}
	addrs := make([]string, len(keys))
	for i := range keys {
		addrs[i] = net.JoinHostPort(host, strconv.Itoa(26656+i))
	}
	return SetTestStaking(g, keys, addrs)
}

// SetTestStaking gives a test network's genesis its staking section: one
// validator per key at the matching p2p address, as SetDevStaking, with
// the dev parameters.
func SetTestStaking(g *chain.Genesis, keys []*secp256k1.PrivateKey, netAddrs []string) error {
	if len(netAddrs) != len(keys) {
		return fmt.Errorf("staking genesis: %d keys but %d network addresses", len(keys), len(netAddrs))
	}
	p := DevParams()
	sg := staking.Genesis{Params: &p}
	tenPct := new(uint256.Int).Mul(uint256.NewInt(10), uint256.NewInt(1e16))
	for i, k := range keys {
		pub := crypto.PublicKey(k).SerializeCompressed()
		op, err := staking.ConsensusAddress(pub)
		if err != nil {
			return err
		}
		sg.Validators = append(sg.Validators, staking.GenesisValidator{
			Operator: op, Pubkey: pub, NetAddress: netAddrs[i],
			Moniker: fmt.Sprintf("dev-validator-%d", i), CommissionRate: tenPct, MaxRate: new(uint256.Int).Mul(tenPct, uint256.NewInt(5)),
			MaxChangeRate: new(uint256.Int).Div(tenPct, uint256.NewInt(10)), MinSelfDelegation: uint256.NewInt(1e18), Stake: devValidatorStake,
		})
	}
	raw, err := json.Marshal(sg)
	if err != nil {
		return err
	}
	g.Staking = raw
	return nil
}
