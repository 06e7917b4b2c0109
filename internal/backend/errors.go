package backend

import (
	"errors"

	"github.com/chaind/chaind/internal/types"
)

// ErrNotFound is returned for a block, receipt or other record the node
// does not have.
var ErrNotFound = errors.New("not found")

// ErrUnprotectedTx refuses a transaction whose signature commits to no
// chain ID (pre-EIP-155): anyone could replay it on every chain where its
// sender has funds. The wording is go-ethereum's.
var ErrUnprotectedTx = errors.New("only replay-protected (EIP-155) transactions allowed over RPC")

// RevertError is a call the EVM reverted: the decoded reason in the
// message and the raw revert bytes in Data.
type RevertError struct {
	msg  string
	Data []byte
}

// NewRevertError describes a revert with the given output.
func NewRevertError(data []byte) *RevertError {
	msg := "execution reverted"
	if reason, ok := UnpackRevert(data); ok {
		msg += ": " + reason
	}
	return &RevertError{msg: msg, Data: data}
}

func (e *RevertError) Error() string { return e.msg }

// ParamError is a request whose parameters only execution finds wrong
// (a timestamp before the parent's, a transaction that does not decode).
type ParamError struct {
	Arg int // the call's argument at fault
	Msg string
}

func (e *ParamError) Error() string { return e.Msg }

// SimulateError is a simulation failure of a kind eth_simulateV1 gives its
// own error code.
type SimulateError struct {
	Kind SimulateErrorKind
	Msg  string
}

func (e *SimulateError) Error() string { return e.Msg }

// SimulateErrorKind says why a simulation failed.
type SimulateErrorKind int

const (
	SimInternal          SimulateErrorKind = iota // a call failed validation for another reason
	SimNonceTooLow                                // a call's nonce is below the sender's
	SimNonceTooHigh                               // a call's nonce is above the sender's
	SimFeeTooLow                                  // a fee cap is below the base fee
	SimIntrinsicGas                               // a call's gas is below its intrinsic cost
	SimInsufficientFunds                          // the sender cannot pay gas and value
	SimBlockGasLimit                              // the calls exceed the block's gas limit
	SimBlockNumber                                // block numbers out of order
	SimBlockTimestamp                             // block times out of order
	SimSenderNotEOA                               // the sender has code
	SimInitCodeTooLarge                           // creation code over the EIP-3860 limit
	SimClientLimit                                // more blocks than the node simulates
)

// UnpackRevert decodes Solidity's Error(string) and Panic(uint256) revert
// payloads (the one decoder lives in internal/types, where the tracers
// reach it too).
func UnpackRevert(data []byte) (string, bool) { return types.UnpackRevert(data) }
