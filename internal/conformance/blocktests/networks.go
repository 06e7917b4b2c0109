package blocktests

import (
	"math/big"
	"regexp"
	"strings"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/types"
)

// chainID is the chain every blockchain test is signed for.
const chainID = 1

func at(v uint64) *uint64 { return &v }

// step is one upgrade of the ethereum-tests fork sequence, with the names
// the vectors give it and how it is switched on at a block or a time.
type step struct {
	names []string
	// block switches the upgrade on from block n; nil for the
	// time-scheduled upgrades.
	block func(c *chain.Config, n uint64)
	// time switches the upgrade on from timestamp t; nil for the
	// block-scheduled ones.
	time func(c *chain.Config, t uint64)
	// targetOnly upgrades (the DAO fork) are applied only when a network
	// names them as its target, not as part of every later fork.
	targetOnly bool
}

// sequence is the order in which the vectors' networks stack upgrades:
// a network "X" has X and every upgrade before it; a transition
// "AToBAt…" has everything up to A from genesis and the rest up to B
// from the given block, time or total difficulty.
var sequence = []step{
	{names: []string{"Frontier"}, block: func(*chain.Config, uint64) {}},
	{names: []string{"Homestead"}, block: func(c *chain.Config, n uint64) { c.HomesteadBlock = at(n) }},
	{names: []string{"Dao"}, targetOnly: true, block: func(c *chain.Config, n uint64) {
		c.DAOForkBlock, c.DAOForkSupport = at(n), true
	}},
	{names: []string{"EIP150", "TangerineWhistle"}, block: func(c *chain.Config, n uint64) { c.EIP150Block = at(n) }},
	{names: []string{"EIP158", "SpuriousDragon"}, block: func(c *chain.Config, n uint64) {
		c.EIP155Block, c.EIP158Block = at(n), at(n)
	}},
	{names: []string{"Byzantium"}, block: func(c *chain.Config, n uint64) { c.ByzantiumBlock = at(n) }},
	{names: []string{"Constantinople"}, block: func(c *chain.Config, n uint64) { c.ConstantinopleBlock = at(n) }},
	{names: []string{"ConstantinopleFix", "Petersburg"}, block: func(c *chain.Config, n uint64) { c.PetersburgBlock = at(n) }},
	{names: []string{"Istanbul"}, block: func(c *chain.Config, n uint64) { c.IstanbulBlock = at(n) }},
	{names: []string{"MuirGlacier"}, block: func(c *chain.Config, n uint64) { c.MuirGlacierBlock = at(n) }},
	{names: []string{"Berlin"}, block: func(c *chain.Config, n uint64) { c.BerlinBlock = at(n) }},
	{names: []string{"London"}, block: func(c *chain.Config, n uint64) { c.LondonBlock = at(n) }},
	{names: []string{"ArrowGlacier"}, block: func(c *chain.Config, n uint64) { c.ArrowGlacierBlock = at(n) }},
	{names: []string{"GrayGlacier"}, block: func(c *chain.Config, n uint64) { c.GrayGlacierBlock = at(n) }},
	// The Merge happens at a total difficulty, not at a block or time:
	// Network never schedules it at a block, so this runs only from
	// genesis (n is 0), where it is a merge at block 0.
	{names: []string{"Paris", "Merge"}, block: func(c *chain.Config, n uint64) {
		c.MergeNetsplitBlock = at(n)
		c.TerminalTotalDifficulty, c.TerminalTotalDifficultyPassed = new(chain.BigInt), true
	}},
	{names: []string{"Shanghai"}, time: func(c *chain.Config, t uint64) { c.ShanghaiTime = at(t) }},
	{names: []string{"Cancun"}, time: func(c *chain.Config, t uint64) { c.CancunTime = at(t) }},
	{names: []string{"Prague"}, time: func(c *chain.Config, t uint64) { c.PragueTime = at(t) }},
	{names: []string{"Osaka"}, time: func(c *chain.Config, t uint64) { c.OsakaTime = at(t) }},
}

// stepIndex returns the position of the upgrade called name in sequence.
func stepIndex(name string) (int, bool) {
	for i, s := range sequence {
		for _, n := range s.names {
			if strings.EqualFold(n, name) {
				return i, true
			}
		}
	}
	return 0, false
}

// mergeIndex is the position of the Merge in sequence.
var mergeIndex, _ = stepIndex("Paris")

// transition is the pattern of a fork-transition network name:
// "AToBAt5" (block 5), "AToBAtTime15k" (timestamp 15,000) or
// "AToBAtDiffC0000" (terminal total difficulty 0xC0000).
var transition = regexp.MustCompile(`^([A-Za-z0-9]+?)To([A-Za-z0-9]+?)At(Time|Diff)?([0-9A-Fa-f]+)(k?)$`)

// Network returns the chain configuration a test's "network" names: a
// fork from genesis ("Cancun", "EIP158", ...) or a transition between two
// forks at a block, a time or a total difficulty. Names the vectors use
// for the same fork (EIP150 and TangerineWhistle, ConstantinopleFix and
// Petersburg, Merge and Paris) are accepted alike.
func Network(name string) (*chain.Config, bool) {
	cfg := &chain.Config{ChainID: chainID}
	if i, ok := stepIndex(name); ok {
		if sequence[i].targetOnly {
			return nil, false
		}
		upTo(cfg, i)
		return cfg, true
	}
	m := transition.FindStringSubmatch(name)
	if m == nil {
		return nil, false
	}
	from, ok1 := stepIndex(m[1])
	to, ok2 := stepIndex(m[2])
	if !ok1 || !ok2 || from >= to || sequence[from].targetOnly {
		return nil, false
	}
	base := 10
	if m[3] == "Diff" {
		base = 16
	}
	n, ok := new(big.Int).SetString(m[4], base)
	if !ok || (m[5] == "k" && m[3] == "Diff") {
		return nil, false
	}
	if m[5] == "k" {
		n.Mul(n, big.NewInt(1000))
	}
	upTo(cfg, from)
	switch m[3] {
	case "Diff":
		// Proof of work until the total difficulty reaches n, then the
		// Merge; nothing after the Merge can be switched on by difficulty.
		if to != mergeIndex {
			return nil, false
		}
		cfg.TerminalTotalDifficulty, cfg.TerminalTotalDifficultyPassed = (*chain.BigInt)(n), true
		return cfg, true
	case "Time":
		if !n.IsUint64() {
			return nil, false
		}
		for i := from + 1; i <= to; i++ {
			if sequence[i].time == nil {
				return nil, false // a block upgrade cannot wait for a time
			}
			if !sequence[i].targetOnly || i == to {
				sequence[i].time(cfg, n.Uint64())
			}
		}
		return cfg, true
	default:
		if !n.IsUint64() {
			return nil, false
		}
		for i := from + 1; i <= to; i++ {
			if sequence[i].block == nil || i == mergeIndex {
				return nil, false // time upgrades and the Merge have no block
			}
			if !sequence[i].targetOnly || i == to {
				sequence[i].block(cfg, n.Uint64())
			}
		}
		return cfg, true
	}
}

// upTo switches on every upgrade of sequence up to and including index
// last from genesis.
func upTo(c *chain.Config, last int) {
	for i := 0; i <= last; i++ {
		s := sequence[i]
		switch {
		case s.targetOnly && i != last:
		case s.block != nil:
			s.block(c, 0)
		default:
			s.time(c, 0)
		}
	}
}

// GenesisOf is the genesis whose block 0 has h's fields and alloc as its
// state.
func GenesisOf(cfg *chain.Config, h *types.Header, alloc chain.Alloc) *chain.Genesis {
	g := &chain.Genesis{
		Config:     cfg,
		Nonce:      chain.Uint64(h.Nonce.Uint64()),
		Timestamp:  chain.Uint64(h.Time),
		ExtraData:  append(chain.Bytes(nil), h.Extra...),
		GasLimit:   chain.Uint64(h.GasLimit),
		Mixhash:    h.MixDigest,
		Coinbase:   h.Coinbase,
		Alloc:      alloc,
		Number:     chain.Uint64(h.Number),
		GasUsed:    chain.Uint64(h.GasUsed),
		ParentHash: h.ParentHash,
	}
	g.Difficulty.Int = h.Difficulty
	if h.BaseFee != nil {
		g.BaseFee = &chain.U256{}
		g.BaseFee.Int = *h.BaseFee
	}
	if h.ExcessBlobGas != nil {
		v := chain.Uint64(*h.ExcessBlobGas)
		g.ExcessBlobGas = &v
	}
	if h.BlobGasUsed != nil {
		v := chain.Uint64(*h.BlobGasUsed)
		g.BlobGasUsed = &v
	}
	return g
}
