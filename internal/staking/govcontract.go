package staking

import (
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Events of the governance contract.
var (
	evSubmitProposal = newEvent("SubmitProposal", "uint256 indexed proposalId", "address indexed proposer", "uint8 kind")
	evDeposit        = newEvent("ProposalDeposit", "uint256 indexed proposalId", "address indexed depositor", "uint256 amount")
	evVote           = newEvent("ProposalVote", "uint256 indexed proposalId", "address indexed voter", "uint256 yes", "uint256 abstain", "uint256 no", "uint256 noWithVeto")
)

var governanceEvents = []*event{evSubmitProposal, evDeposit, evVote}

var tallyOut = []string{"uint256 yes", "uint256 abstain", "uint256 no", "uint256 noWithVeto"}

var governanceMethods = []*method{
	{name: "submitProposal", payable: true, write: true, gas: gasSubmitProposal, run: submitProposal,
		in: []string{"uint8 kind", "string title", "string description", "string param", "string value"}, out: []string{"uint256 proposalId"}},
	{name: "deposit", payable: true, write: true, gas: gasDeposit, run: depositMethod, in: []string{"uint256 proposalId"}, out: []string{"bool success"}},
	{name: "vote", write: true, gas: gasVote, run: voteMethod, in: []string{"uint256 proposalId", "uint8 option"}, out: []string{"bool success"}},
	{name: "voteWeighted", write: true, gas: gasVote, run: voteWeighted,
		in: []string{"uint256 proposalId", "uint256 yes", "uint256 abstain", "uint256 no", "uint256 noWithVeto"}, out: []string{"bool success"}},
	{name: "getProposal", gas: gasView, run: getProposal, in: []string{"uint256 proposalId"},
		out: []string{"uint8 kind", "uint8 status", "address proposer", "string title", "string description", "string param", "string value",
			"uint256 submitTime", "uint256 depositEnd", "uint256 votingStart", "uint256 votingEnd", "uint256 totalDeposit"}},
	{name: "getTally", gas: gasView, run: getTally, in: []string{"uint256 proposalId"}, out: tallyOut},
	{name: "getVote", gas: gasView, run: getVote, in: []string{"uint256 proposalId", "address voter"}, out: tallyOut},
	{name: "proposalCount", gas: gasView, run: proposalCount, out: []string{"uint256 count"}},
}

// weightUnit converts an 18-decimal weight to parts per million.
var weightUnit = uint256.NewInt(1e12)

func idArg(a *args, i int) uint64 {
	v := a.uint(i)
	if !v.IsUint64() {
		a.err = errBadInput
		return 0
	}
	return v.Uint64()
}

func submitProposal(c *call, a *args) ([]byte, error) {
	kind := a.uint(0)
	title, desc, param, value := a.string(1), a.string(2), a.string(3), a.string(4)
	if err := a.done(); err != nil {
		return nil, err
	}
	if !kind.IsUint64() || kind.Uint64() > 255 {
		return nil, revert("unknown proposal kind")
	}
	p := ReadParams(c.EVM.StateDB)
	id, err := c.l.submitProposal(&p, c.Caller, ProposalKind(kind.Uint64()), title, desc, param, value, c.Value)
	if err != nil {
		return nil, err
	}
	c.emit([]types.Hash{evSubmitProposal.topic, types.Hash(uint256.NewInt(id).Bytes32()), addrTopic(c.Caller)}, new(encoder).uint(kind).encode())
	if !c.Value.IsZero() {
		c.emit([]types.Hash{evDeposit.topic, types.Hash(uint256.NewInt(id).Bytes32()), addrTopic(c.Caller)}, new(encoder).uint(c.Value).encode())
	}
	return new(encoder).u64(id).encode(), nil
}

func depositMethod(c *call, a *args) ([]byte, error) {
	id := idArg(a, 0)
	if err := a.done(); err != nil {
		return nil, err
	}
	p := ReadParams(c.EVM.StateDB)
	if err := c.l.deposit(&p, id, c.Caller, c.Value); err != nil {
		return nil, err
	}
	c.emit([]types.Hash{evDeposit.topic, types.Hash(uint256.NewInt(id).Bytes32()), addrTopic(c.Caller)}, new(encoder).uint(c.Value).encode())
	return new(encoder).bool(true).encode(), nil
}

func castVote(c *call, id uint64, w [4]uint64) ([]byte, error) {
	if err := c.l.vote(id, c.Caller, w); err != nil {
		return nil, err
	}
	enc := new(encoder)
	for _, x := range w {
		enc.uint(new(uint256.Int).Mul(uint256.NewInt(x), weightUnit))
	}
	c.emit([]types.Hash{evVote.topic, types.Hash(uint256.NewInt(id).Bytes32()), addrTopic(c.Caller)}, enc.encode())
	return new(encoder).bool(true).encode(), nil
}

func voteMethod(c *call, a *args) ([]byte, error) {
	id, opt := idArg(a, 0), a.uint(1)
	if err := a.done(); err != nil {
		return nil, err
	}
	if !opt.IsUint64() || opt.Uint64() < OptionYes || opt.Uint64() > OptionNoWithVeto {
		return nil, revert("option must be 1 (yes), 2 (abstain), 3 (no) or 4 (no with veto)")
	}
	var w [4]uint64
	w[opt.Uint64()-1] = PPM
	return castVote(c, id, w)
}

func voteWeighted(c *call, a *args) ([]byte, error) {
	id := idArg(a, 0)
	var w [4]uint64
	raw := [4]*uint256.Int{a.uint(1), a.uint(2), a.uint(3), a.uint(4)}
	if err := a.done(); err != nil {
		return nil, err
	}
	for i, x := range raw {
		q, r := new(uint256.Int).DivMod(x, weightUnit, new(uint256.Int))
		if !r.IsZero() || !q.IsUint64() || q.Uint64() > PPM {
			return nil, revert("weights are 18-decimal fractions with at most 6 decimals, summing to 1")
		}
		w[i] = q.Uint64()
	}
	return castVote(c, id, w)
}

func getProposal(c *call, a *args) ([]byte, error) {
	id := idArg(a, 0)
	if err := a.done(); err != nil {
		return nil, err
	}
	p, ok := ReadProposal(c.EVM.StateDB, id)
	if !ok {
		return nil, revert("no such proposal")
	}
	return new(encoder).u64(uint64(p.Kind)).u64(uint64(p.Status)).address(p.Proposer).string(p.Title).string(p.Description).
		string(p.Param).string(p.Value).u64(p.SubmitTime).u64(p.DepositEnd).u64(p.VotingStart).u64(p.VotingEnd).uint(p.TotalDeposit).encode(), nil
}

func getTally(c *call, a *args) ([]byte, error) {
	id := idArg(a, 0)
	if err := a.done(); err != nil {
		return nil, err
	}
	if _, ok := ReadProposal(c.EVM.StateDB, id); !ok {
		return nil, revert("no such proposal")
	}
	if err := c.UseGas(gasPerItem * votersOf(id).len(c.l.s)); err != nil {
		return nil, err
	}
	t := ReadTally(c.EVM.StateDB, id)
	return new(encoder).uint(t.Yes).uint(t.Abstain).uint(t.No).uint(t.NoWithVeto).encode(), nil
}

func getVote(c *call, a *args) ([]byte, error) {
	id, voter := idArg(a, 0), a.address(1)
	if err := a.done(); err != nil {
		return nil, err
	}
	vr := voteRec(id, voter)
	enc := new(encoder)
	for i := range uint64(4) {
		enc.uint(new(uint256.Int).Mul(uint256.NewInt(c.l.s.u64(vr.field(i))), weightUnit))
	}
	return enc.encode(), nil
}

func proposalCount(c *call, a *args) ([]byte, error) {
	return new(encoder).u64(c.l.s.u64(govCountRec())).encode(), nil
}
