package staking

import (
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Gas costs of the distribution methods (see the staking costs).
const (
	gasWithdrawRewards    = 25_000
	gasWithdrawCommission = 20_000
	gasSetWithdrawAddress = 10_000
)

// Events of the distribution contract.
var (
	evWithdrawReward     = newEvent("WithdrawDelegatorReward", "address indexed delegator", "address indexed validator", "uint256 amount")
	evWithdrawCommission = newEvent("WithdrawValidatorCommission", "address indexed validator", "uint256 amount")
	evSetWithdrawAddress = newEvent("SetWithdrawAddress", "address indexed delegator", "address indexed withdrawAddress")
)

var distributionEvents = []*event{evWithdrawReward, evWithdrawCommission, evSetWithdrawAddress}

var distributionMethods = []*method{
	{name: "withdrawDelegatorRewards", write: true, gas: gasWithdrawRewards, run: withdrawDelegatorRewards, in: []string{"address validator"}, out: []string{"uint256 amount"}},
	{name: "withdrawValidatorCommission", write: true, gas: gasWithdrawCommission, run: withdrawValidatorCommission, out: []string{"uint256 amount"}},
	{name: "setWithdrawAddress", write: true, gas: gasSetWithdrawAddress, run: setWithdrawAddress, in: []string{"address withdrawAddress"}, out: []string{"bool success"}},
	{name: "delegationRewards", gas: gasView, run: delegationRewards, in: []string{"address delegator", "address validator"}, out: []string{"uint256 amount"}},
	{name: "validatorCommission", gas: gasView, run: validatorCommission, in: []string{"address validator"}, out: []string{"uint256 amount"}},
	{name: "withdrawAddress", gas: gasView, run: withdrawAddressView, in: []string{"address delegator"}, out: []string{"address withdrawAddress"}},
	{name: "communityPool", gas: gasView, run: communityPool, out: []string{"uint256 amount"}},
}

// withdrawRewards pays delegation (d, v)'s rewards to d's withdraw address.
func (l *ledger) withdrawRewards(d, v types.Address) (*uint256.Int, error) {
	if l.delShares(d, v).IsZero() && l.s.u256(delRewardRec(d, v).field(rdUnclaimed)).IsZero() {
		return nil, revert("no delegation to this validator")
	}
	l.settle(d, v)
	at := delRewardRec(d, v).field(rdUnclaimed)
	amt := l.s.u256(at)
	l.s.setU256(at, new(uint256.Int))
	l.payOut(DistributionAddress, l.withdrawAddress(d), amt)
	l.dropIfEmpty(d, v)
	return amt, nil
}

func (l *ledger) withdrawCommission(v types.Address) (*uint256.Int, error) {
	if !l.exists(v) {
		return nil, revert("not a validator")
	}
	at := valRewardRec(v).field(rCommission)
	amt := l.s.u256(at)
	l.s.setU256(at, new(uint256.Int))
	l.payOut(DistributionAddress, l.withdrawAddress(v), amt)
	return amt, nil
}

func withdrawDelegatorRewards(c *call, a *args) ([]byte, error) {
	v := a.address(0)
	if err := a.done(); err != nil {
		return nil, err
	}
	amt, err := c.l.withdrawRewards(c.Caller, v)
	if err != nil {
		return nil, err
	}
	c.emit([]types.Hash{evWithdrawReward.topic, addrTopic(c.Caller), addrTopic(v)}, new(encoder).uint(amt).encode())
	return new(encoder).uint(amt).encode(), nil
}

func withdrawValidatorCommission(c *call, a *args) ([]byte, error) {
	amt, err := c.l.withdrawCommission(c.Caller)
	if err != nil {
		return nil, err
	}
	c.emit([]types.Hash{evWithdrawCommission.topic, addrTopic(c.Caller)}, new(encoder).uint(amt).encode())
	return new(encoder).uint(amt).encode(), nil
}

func setWithdrawAddress(c *call, a *args) ([]byte, error) {
	to := a.address(0)
	if err := a.done(); err != nil {
		return nil, err
	}
	if to == (types.Address{}) {
		return nil, revert("withdraw address must not be zero")
	}
	c.l.s.setAddr(withdrawRec(c.Caller), to)
	c.emit([]types.Hash{evSetWithdrawAddress.topic, addrTopic(c.Caller), addrTopic(to)}, nil)
	return new(encoder).bool(true).encode(), nil
}

func delegationRewards(c *call, a *args) ([]byte, error) {
	d, v := a.address(0), a.address(1)
	if err := a.done(); err != nil {
		return nil, err
	}
	return new(encoder).uint(c.l.pendingRewards(d, v)).encode(), nil
}

func validatorCommission(c *call, a *args) ([]byte, error) {
	v := a.address(0)
	if err := a.done(); err != nil {
		return nil, err
	}
	return new(encoder).uint(c.l.s.u256(valRewardRec(v).field(rCommission))).encode(), nil
}

func withdrawAddressView(c *call, a *args) ([]byte, error) {
	d := a.address(0)
	if err := a.done(); err != nil {
		return nil, err
	}
	return new(encoder).address(c.l.withdrawAddress(d)).encode(), nil
}

func communityPool(c *call, a *args) ([]byte, error) {
	return new(encoder).uint(c.l.s.u256(poolRec())).encode(), nil
}
