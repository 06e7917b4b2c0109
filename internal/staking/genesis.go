package staking

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Genesis is the "staking" section of a genesis file: the network
// parameters, the initial validators and delegations. Amounts are wei and
// rates 18-decimal fractions ("100000000000000000" is 10%), as decimal or
// 0x-hex strings. Genesis stake is created with the chain: it is part of
// the initial supply, held by the staking contract.
type Genesis struct {
	Params      *Params             `json:"params,omitempty"` // absent: DefaultParams
	Validators  []GenesisValidator  `json:"validators"`
	Delegations []GenesisDelegation `json:"delegations,omitempty"`
}

// GenesisValidator is one initial validator, active from block 1.
type GenesisValidator struct {
	Operator          types.Address `json:"operator"`
	Pubkey            Hex           `json:"pubkey"` // compressed secp256k1 consensus key
	NetAddress        string        `json:"netAddress"`
	Moniker           string        `json:"moniker"`
	Identity          string        `json:"identity,omitempty"`
	Website           string        `json:"website,omitempty"`
	SecurityContact   string        `json:"securityContact,omitempty"`
	Details           string        `json:"details,omitempty"`
	CommissionRate    *uint256.Int  `json:"commissionRate"`
	MaxRate           *uint256.Int  `json:"maxRate"`
	MaxChangeRate     *uint256.Int  `json:"maxChangeRate"`
	MinSelfDelegation *uint256.Int  `json:"minSelfDelegation"`
	Stake             *uint256.Int  `json:"stake"` // self-delegation
}

// GenesisDelegation is one initial delegation.
type GenesisDelegation struct {
	Delegator types.Address `json:"delegator"`
	Validator types.Address `json:"validator"`
	Amount    *uint256.Int  `json:"amount"`
}

// Hex is bytes written as 0x-hex in JSON.
type Hex []byte

// UnmarshalJSON implements json.Unmarshaler.
func (h *Hex) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if len(s) < 2 || (s[:2] != "0x" && s[:2] != "0X") {
		return errors.New("hex string without 0x prefix")
	}
	v, err := hex.DecodeString(s[2:])
	if err != nil {
		return err
	}
	*h = v
	return nil
}

// MarshalJSON implements json.Marshaler.
func (h Hex) MarshalJSON() ([]byte, error) { return json.Marshal("0x" + hex.EncodeToString(h)) }

// ParseGenesis decodes a genesis section. A section without validators
// is accepted: a network before its launch genesis (the public presets) is
// served with its parameters in state, but no node can validate it.
func ParseGenesis(raw []byte) (*Genesis, error) {
	var g Genesis
	if err := json.Unmarshal(raw, &g); err != nil {
		return nil, fmt.Errorf("staking genesis: %w", err)
	}
	return &g, nil
}

// InitGenesis writes the genesis staking state: parameters, validators
// and delegations (their coins created in the staking contract's balance),
// the supply (allocSupply, the sum of the other genesis balances, plus the
// genesis stake), the validator set of cycle 0 and cycle 0's record.
func InitGenesis(st State, g *Genesis, time uint64, allocSupply *uint256.Int) error {
	p := DefaultParams()
	if g.Params != nil {
		p = *g.Params
		if p.CycleLength == 0 && p.SelectionOffset == 0 {
			// A genesis written before the cycle rule was a parameter.
			p.CycleLength, p.SelectionOffset = types.DefaultCycleRule.Length, types.DefaultCycleRule.Selection
		}
	}
	if err := p.Check(); err != nil {
		return fmt.Errorf("staking genesis: %w", err)
	}
	p.Timestamp = time * 1000
	writeParams(st, &p)
	l := &ledger{s: store{st}, now: time}
	supply := new(uint256.Int).Set(allocSupply)
	for i, v := range g.Validators {
		if v.Stake == nil || v.CommissionRate == nil || v.MaxRate == nil || v.MaxChangeRate == nil || v.MinSelfDelegation == nil {
			return fmt.Errorf("staking genesis: validator %d: stake, commissionRate, maxRate, maxChangeRate and minSelfDelegation are required", i)
		}
		st.AddBalance(StakingAddress, v.Stake)
		supply.Add(supply, v.Stake)
		err := l.createValidator(&p, &NewValidator{
			Operator: v.Operator,
			Description: Description{Moniker: v.Moniker, Identity: v.Identity, Website: v.Website,
				SecurityContact: v.SecurityContact, Details: v.Details},
			Rate: v.CommissionRate, MaxRate: v.MaxRate, MaxChangeRate: v.MaxChangeRate,
			MinSelfDelegation: v.MinSelfDelegation, Pubkey: v.Pubkey, NetAddress: v.NetAddress, Stake: v.Stake,
		})
		if err != nil {
			return fmt.Errorf("staking genesis: validator %d (%s): %w", i, v.Operator, err)
		}
	}
	for i, d := range g.Delegations {
		if d.Amount == nil || d.Amount.IsZero() {
			return fmt.Errorf("staking genesis: delegation %d: amount must be positive", i)
		}
		if !l.exists(d.Validator) {
			return fmt.Errorf("staking genesis: delegation %d: no validator %s", i, d.Validator)
		}
		st.AddBalance(StakingAddress, d.Amount)
		supply.Add(supply, d.Amount)
		if _, err := l.bond(d.Delegator, d.Validator, d.Amount); err != nil {
			return fmt.Errorf("staking genesis: delegation %d: %w", i, err)
		}
	}
	sr := supplyRec()
	l.s.setU256(sr.field(sTotal), supply)
	l.s.setU64(sr.field(sRewardedUntil), time)
	l.selectValidators(&p, 0)
	l.copySet(nextRec(), activeRec())
	if len(g.Validators) > 0 && len(ReadActiveSet(st)) == 0 {
		return errors.New("staking genesis: no validator has the required stake")
	}
	writeCycles(st, types.NewCycles(p.CycleRule()))
	l.openCycle(0)
	return nil
}
