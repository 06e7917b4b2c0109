package stakebackend

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/staking"
	"github.com/chaind/chaind/internal/types"
)

// Signing returns the node's reader of block signatures, penalties and the
// system contracts' ABI, for the explorer.
func (n *Backend) Signing() backend.Signing { return &signing{n: n} }

// signing implements backend.Signing. A block's signers are its height's
// validator set (pos.Engine.ValidatorSet) less those its successor's
// consensus data lists as absent: the record the chain's missed-block
// accounting reads, so the explorer shows what the penalties count.
type signing struct {
	n *Backend

	mu       sync.Mutex
	opsRoot  types.Hash                      // the state root ops was read from
	ops      map[types.Address]types.Address // consensus address -> operator
	abiOnce  sync.Once
	contract []backend.SystemContract
}

func (s *signing) BlockSigning(num uint64) (*backend.BlockSigning, error) {
	c := s.n.Chain
	e := pos.Of(c)
	if e == nil {
		return nil, backend.ErrStakingDisabled
	}
	if num == 0 {
		return nil, fmt.Errorf("%w: the genesis block has no signers", backend.ErrNotFound)
	}
	blk, err := c.BlockByNumber(num)
	if err != nil {
		return nil, fmt.Errorf("%w: block %d", backend.ErrNotFound, num)
	}
	set, err := e.ValidatorSet(c, num)
	if err != nil {
		return nil, err
	}
	ops, err := s.operators()
	if err != nil {
		return nil, err
	}
	out := &backend.BlockSigning{Number: num, Hash: blk.Hash(), Proposer: operatorOf(ops, blk.Coinbase())}
	absent := map[types.Address]bool{}
	if next, err := c.BlockByNumber(num + 1); err == nil {
		cd, err := pos.DecodeConsensusData(next.HeaderRef().Extra)
		if err != nil {
			return nil, fmt.Errorf("block %d: %w", num+1, err)
		}
		for _, a := range cd.Absent {
			absent[a] = true
		}
		out.Recorded = true
	}
	for _, v := range set.Validators() {
		out.Members = append(out.Members, backend.BlockSigner{Operator: operatorOf(ops, v.Address), Consensus: v.Address,
			Power: v.Power, Signed: out.Recorded && !absent[v.Address]})
	}
	return out, nil
}

func (s *signing) Uptime(window uint64) (*backend.Uptime, error) {
	c := s.n.Chain
	if pos.Of(c) == nil {
		return nil, backend.ErrStakingDisabled
	}
	if window == 0 {
		p, err := stakingAPI{s.n}.StakingParams(nil)
		if err != nil {
			return nil, err
		}
		window = p.MissedBlocksWindow
	}
	window = min(max(window, 1), backend.MaxUptimeWindow)
	out := &backend.Uptime{}
	head := c.Head().Number()
	if head < 2 {
		return out, nil
	}
	out.To = head - 1
	out.From = max(out.To-min(out.To, window-1), c.Genesis().Number()+1)
	var blocks []*backend.BlockSigning
	for n := out.From; n <= out.To; n++ {
		b, err := s.BlockSigning(n)
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, b)
	}
	index := map[types.Address]int{}
	var records [][]byte
	for k, b := range blocks {
		for _, m := range b.Members {
			i, ok := index[m.Consensus]
			if !ok {
				i = len(out.Validators)
				index[m.Consensus] = i
				out.Validators = append(out.Validators, backend.ValidatorUptime{Operator: m.Operator, Consensus: m.Consensus})
				records = append(records, bytes.Repeat([]byte{'-'}, len(blocks)))
			}
			v := &out.Validators[i]
			if m.Signed {
				v.Signed++
				records[i][k] = 's'
			} else {
				v.Missed++
				records[i][k] = 'm'
			}
		}
	}
	for i := range out.Validators {
		out.Validators[i].Blocks = string(records[i])
	}
	return out, nil
}

func operatorOf(ops map[types.Address]types.Address, consensus types.Address) types.Address {
	if op, ok := ops[consensus]; ok {
		return op
	}
	return consensus
}

// operators maps consensus addresses to operators, read from the head
// state once per head: a validator's consensus key is fixed when it is
// created, so the head knows every validator of earlier heights.
func (s *signing) operators() (map[types.Address]types.Address, error) {
	c := s.n.Chain
	root := c.Head().Root()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ops != nil && s.opsRoot == root {
		return s.ops, nil
	}
	st, err := c.StateAt(root)
	if err != nil {
		return nil, err
	}
	defer st.Release()
	ops := map[types.Address]types.Address{}
	for _, v := range staking.ReadValidators(st) {
		ops[v.ConsensusAddress] = v.Operator
	}
	s.ops, s.opsRoot = ops, root
	return ops, nil
}

func (s *signing) SlashEvents(height *uint64, op types.Address) ([]backend.SlashEvent, error) {
	st, err := stakingAPI{s.n}.stateAt(height)
	if err != nil {
		return nil, err
	}
	defer st.Release()
	var out []backend.SlashEvent
	for _, e := range staking.ReadSlashEvents(st, op) {
		out = append(out, backend.SlashEvent{Height: e.Height, Infraction: e.Infraction, Reason: e.Reason.String(),
			PPM: e.PPM, Amount: e.Amount, Time: e.Time})
	}
	return out, nil
}

func (s *signing) TimeMs(h *types.Header) uint64 { return pos.TimeMs(h) }

// SystemContracts reads the contracts' ABI as ethers would, from the JSON
// the staking package generates, so the explorer decodes exactly what
// clients call.
func (s *signing) SystemContracts() []backend.SystemContract {
	if pos.Of(s.n.Chain) == nil {
		return nil
	}
	s.abiOnce.Do(func() {
		for _, spec := range staking.Specs() {
			s.contract = append(s.contract, systemContract(spec))
		}
	})
	return s.contract
}

func systemContract(spec staking.ContractSpec) backend.SystemContract {
	var entries []struct {
		Type   string `json:"type"`
		Name   string `json:"name"`
		Inputs []struct {
			Name    string `json:"name"`
			Type    string `json:"type"`
			Indexed bool   `json:"indexed"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal(spec.ABI(), &entries); err != nil {
		panic("staking: the generated ABI does not parse: " + err.Error())
	}
	out := backend.SystemContract{Name: spec.Name, Address: spec.Address}
	for _, e := range entries {
		f := backend.ABIFunction{Name: e.Name}
		for _, in := range e.Inputs {
			f.Inputs = append(f.Inputs, backend.ABIParam{Name: in.Name, Type: strings.TrimSpace(in.Type), Indexed: in.Indexed})
		}
		switch e.Type {
		case "function":
			out.Methods = append(out.Methods, f)
		case "event":
			out.Events = append(out.Events, f)
		}
	}
	return out
}
