package staking

import (
	"errors"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/types"
)

// RevertError is a rule the call broke; the call reverts with its reason
// (ABI Error(string)), keeping the unused gas, as Solidity's require does.
type RevertError struct{ Reason string }

func (e *RevertError) Error() string { return "staking: " + e.Reason }

func revert(reason string) error { return &RevertError{reason} }

// Contract is one system contract: a table of ABI methods run natively.
type Contract struct {
	addr    types.Address
	methods methodTable
}

// call is one invocation of a method.
type call struct {
	*evm.NativeCall
	l *ledger
}

// emit adds a log of the called contract.
func (c *call) emit(topics []types.Hash, data []byte) {
	c.EVM.StateDB.AddLog(&types.Log{Address: c.Address, Topics: topics, Data: data})
}

// addrTopic is an indexed address argument.
func addrTopic(a types.Address) types.Hash {
	var h types.Hash
	copy(h[12:], a[:])
	return h
}

// RunNative implements evm.NativeContract.
func (ct *Contract) RunNative(nc *evm.NativeCall) ([]byte, error) {
	if len(nc.Input) < 4 {
		return revertData("missing method selector"), evm.ErrExecutionReverted
	}
	m, ok := ct.methods[[4]byte(nc.Input[:4])]
	if !ok {
		return revertData("unknown method"), evm.ErrExecutionReverted
	}
	if !m.payable && !nc.Value.IsZero() {
		return revertData(m.name + " is not payable"), evm.ErrExecutionReverted
	}
	if m.write && nc.ReadOnly {
		return nil, evm.ErrWriteProtection
	}
	if err := nc.UseGas(m.gas); err != nil {
		return nil, err
	}
	bctx := nc.EVM.Context
	c := &call{NativeCall: nc, l: &ledger{s: store{nc.EVM.StateDB}, now: bctx.Time, height: bctx.Number}}
	a := &args{data: nc.Input[4:]}
	out, err := m.run(c, a)
	if err == nil && a.err != nil {
		err = revert(a.err.Error())
	}
	var re *RevertError
	if errors.As(err, &re) {
		return revertData(re.Reason), evm.ErrExecutionReverted
	}
	return out, err
}

// Natives returns the system contracts by address, for the EVM.
func Natives() map[types.Address]evm.NativeContract {
	return map[types.Address]evm.NativeContract{
		StakingAddress:      &Contract{addr: StakingAddress, methods: newMethodTable(stakingMethods)},
		DistributionAddress: &Contract{addr: DistributionAddress, methods: newMethodTable(distributionMethods)},
		GovernanceAddress:   &Contract{addr: GovernanceAddress, methods: newMethodTable(governanceMethods)},
	}
}

// ContractCode is the code each system contract account holds: the single
// byte INVALID. It makes the account a contract for tools that look
// (eth_getCode is not empty) and makes DELEGATECALL and CALLCODE into it
// fail, since only CALL and STATICCALL reach the native code.
var ContractCode = []byte{0xfe}
