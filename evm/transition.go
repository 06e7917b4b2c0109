package evm

import (
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Transaction gas parameters.
const (
	txGas                  = 21000
	txGasContractCreation  = 53000
	txDataZeroGas          = 4
	txDataNonZeroFrontier  = 68
	txDataNonZeroIstanbul  = 16 // EIP-2028
	txAccessListAddressGas = 2400
	txAccessListSlotGas    = 1900
	initCodeWordGas        = 2     // EIP-3860
	txAuthNewAccount       = 25000 // EIP-7702 PER_EMPTY_ACCOUNT_COST
	txAuthBase             = 12500 // EIP-7702 PER_AUTH_BASE_COST
	txCostFloorPerToken    = 10    // EIP-7623
	// MaxTxGas caps a transaction's gas limit from Osaka on (EIP-7825).
	MaxTxGas = 1 << 24
	// BlobGasPerBlob is the blob gas one blob costs (EIP-4844).
	BlobGasPerBlob = 1 << 17
)

// BlobHashVersionKZG is the only valid first byte of a blob versioned hash.
const BlobHashVersionKZG = 0x01

// ErrTxTypeNotSupported is returned for blob and set-code messages before
// the forks that introduced them.
var ErrTxTypeNotSupported = errorString("transaction type not supported")

type errorString string

func (e errorString) Error() string { return string(e) }

// IntrinsicGas is the gas a transaction costs before any code runs.
func IntrinsicGas(fork forks.Fork, data []byte, accessList types.AccessList, authCount int, isCreate bool) (uint64, error) {
	gas := uint64(txGas)
	if isCreate && fork >= forks.Homestead {
		gas = txGasContractCreation
	}
	if n := uint64(len(data)); n > 0 {
		var nz uint64
		for _, b := range data {
			if b != 0 {
				nz++
			}
		}
		perNZ := uint64(txDataNonZeroFrontier)
		if fork >= forks.Istanbul {
			perNZ = txDataNonZeroIstanbul
		}
		d, err := safeMul(nz, perNZ)
		if err != nil {
			return 0, err
		}
		z, err := safeMul(n-nz, txDataZeroGas)
		if err != nil {
			return 0, err
		}
		if gas, err = safeAdd(gas, d+z); err != nil {
			return 0, err
		}
		if isCreate && fork >= forks.Shanghai {
			if gas, err = safeAdd(gas, toWords(n)*initCodeWordGas); err != nil {
				return 0, err
			}
		}
	}
	gas += uint64(len(accessList))*txAccessListAddressGas + uint64(accessList.StorageKeys())*txAccessListSlotGas
	gas += uint64(authCount) * txAuthNewAccount
	return gas, nil
}

// FloorDataGas is EIP-7623's minimum charge for a transaction's calldata.
func FloorDataGas(data []byte) uint64 {
	var tokens uint64
	for _, b := range data {
		if b != 0 {
			tokens += 4
		} else {
			tokens++
		}
	}
	return txGas + tokens*txCostFloorPerToken
}

// MaxBlobsPerTx is the most blobs one transaction may carry under fork
// with blob schedule cfg: the block maximum, and from Osaka at most 6
// (EIP-7594).
func MaxBlobsPerTx(fork forks.Fork, cfg BlobConfig) int {
	n := int(cfg.Max)
	if fork >= forks.Osaka {
		n = min(n, 6)
	}
	return n
}

func (evm *EVM) blobConfig() BlobConfig {
	if evm.Context.Blob != (BlobConfig{}) {
		return evm.Context.Blob
	}
	return BlobSchedule(evm.fork)
}

// msgPrices are the fee fields of a message with defaults applied.
type msgPrices struct {
	feeCap, tipCap, gasPrice uint256.Int
}

func (evm *EVM) prices(msg *Message) msgPrices {
	var p msgPrices
	if msg.GasFeeCap == nil {
		if msg.GasPrice != nil {
			p.feeCap.Set(msg.GasPrice)
			p.tipCap.Set(msg.GasPrice)
		}
	} else {
		p.feeCap.Set(msg.GasFeeCap)
		if msg.GasTipCap != nil {
			p.tipCap.Set(msg.GasTipCap)
		}
	}
	if evm.fork >= forks.London && evm.Context.BaseFee != nil && !(evm.Config.NoBaseFee && p.feeCap.IsZero() && p.tipCap.IsZero()) {
		// Effective price: base fee plus the tip, capped by the fee cap.
		p.gasPrice.Add(evm.Context.BaseFee, &p.tipCap)
		if p.gasPrice.Gt(&p.feeCap) {
			p.gasPrice.Set(&p.feeCap)
		}
	} else {
		p.gasPrice.Set(&p.feeCap)
	}
	return p
}

// validate checks everything that makes a transaction invalid, before any
// state is touched. It returns the intrinsic gas, the EIP-7623 floor and
// the amount the sender pays upfront.
func (evm *EVM) validate(msg *Message, p *msgPrices, gp *GasPool) (intrinsic, floor uint64, upfront *uint256.Int, err error) {
	st := evm.StateDB
	fork := evm.fork
	if msg.BlobHashes != nil && fork < forks.Cancun || msg.AuthList != nil && fork < forks.Prague {
		return 0, 0, nil, ErrTxTypeNotSupported
	}
	if !msg.SkipNonceChecks {
		have := st.GetNonce(msg.From)
		switch {
		case have < msg.Nonce:
			return 0, 0, nil, ErrNonceTooHigh
		case have > msg.Nonce:
			return 0, 0, nil, ErrNonceTooLow
		case have+1 < have:
			return 0, 0, nil, ErrNonceMax
		}
	}
	if !msg.SkipFromEOACheck {
		code := st.GetCode(msg.From)
		if _, delegated := ParseDelegation(code); len(code) > 0 && !delegated {
			return 0, 0, nil, ErrSenderNoEOA
		}
	}
	if fork >= forks.Osaka && msg.GasLimit > MaxTxGas && !msg.SkipGasLimitCap {
		return 0, 0, nil, ErrGasLimitTooHigh
	}
	if fork >= forks.London {
		skip := evm.Config.NoBaseFee && p.feeCap.IsZero() && p.tipCap.IsZero()
		if !skip {
			if p.tipCap.Gt(&p.feeCap) {
				return 0, 0, nil, ErrTipAboveFeeCap
			}
			if evm.Context.BaseFee != nil && p.feeCap.Lt(evm.Context.BaseFee) {
				return 0, 0, nil, ErrFeeCapTooLow
			}
		}
	}
	if msg.BlobHashes != nil {
		if msg.To == nil {
			return 0, 0, nil, ErrBlobTxCreate
		}
		if len(msg.BlobHashes) == 0 {
			return 0, 0, nil, ErrMissingBlobHashes
		}
		if len(msg.BlobHashes) > MaxBlobsPerTx(fork, evm.blobConfig()) {
			return 0, 0, nil, ErrTooManyBlobs
		}
		for _, h := range msg.BlobHashes {
			if h[0] != BlobHashVersionKZG {
				return 0, 0, nil, ErrInvalidBlobHashVersion
			}
		}
		if evm.Context.BlobBaseFee != nil && !(evm.Config.NoBaseFee && (msg.BlobGasFeeCap == nil || msg.BlobGasFeeCap.IsZero())) {
			if msg.BlobGasFeeCap == nil || msg.BlobGasFeeCap.Lt(evm.Context.BlobBaseFee) {
				return 0, 0, nil, ErrBlobFeeCapTooLow
			}
		}
	}
	if msg.AuthList != nil {
		if msg.To == nil {
			return 0, 0, nil, ErrSetCodeTxCreate
		}
		if len(msg.AuthList) == 0 {
			return 0, 0, nil, ErrEmptyAuthList
		}
	}
	isCreate := msg.To == nil
	if _, limit := CodeSizeLimits(evm.Config.MaxCodeSize); isCreate && fork >= forks.Shanghai && uint64(len(msg.Data)) > limit {
		return 0, 0, nil, ErrMaxInitCodeSizeExceeded
	}
	intrinsic, err = IntrinsicGas(fork, msg.Data, msg.AccessList, len(msg.AuthList), isCreate)
	if err != nil {
		return 0, 0, nil, err
	}
	if msg.GasLimit < intrinsic {
		return 0, 0, nil, ErrIntrinsicGas
	}
	if fork >= forks.Prague {
		floor = FloorDataGas(msg.Data)
		if msg.GasLimit < floor {
			return 0, 0, nil, ErrFloorDataGas
		}
	}

	// The sender must afford the worst case: the whole gas limit at the fee
	// cap, the blob fee cap and the value.
	var gasLimit, need, overflowCheck uint256.Int
	gasLimit.SetUint64(msg.GasLimit)
	upfront = new(uint256.Int)
	if _, of := upfront.MulOverflow(&gasLimit, &p.gasPrice); of {
		return 0, 0, nil, ErrInsufficientFunds
	}
	if _, of := need.MulOverflow(&gasLimit, &p.feeCap); of {
		return 0, 0, nil, ErrInsufficientFunds
	}
	if n := len(msg.BlobHashes); n > 0 {
		var blobGas, t uint256.Int
		blobGas.SetUint64(uint64(n) * BlobGasPerBlob)
		if msg.BlobGasFeeCap != nil {
			if _, of := t.MulOverflow(&blobGas, msg.BlobGasFeeCap); of {
				return 0, 0, nil, ErrInsufficientFunds
			}
			if _, of := need.AddOverflow(&need, &t); of {
				return 0, 0, nil, ErrInsufficientFunds
			}
		}
		if evm.Context.BlobBaseFee != nil {
			t.Mul(&blobGas, evm.Context.BlobBaseFee)
			upfront.Add(upfront, &t)
		}
	}
	value := msg.Value
	if value == nil {
		value = new(uint256.Int)
	}
	if _, of := need.AddOverflow(&need, value); of {
		return 0, 0, nil, ErrInsufficientFunds
	}
	balance := st.GetBalance(msg.From)
	if balance.Lt(&need) {
		return 0, 0, nil, ErrInsufficientFunds
	}
	if _, of := overflowCheck.AddOverflow(upfront, value); of || balance.Lt(&overflowCheck) {
		return 0, 0, nil, ErrInsufficientFundsValue
	}
	if gp != nil && gp.Gas() < msg.GasLimit {
		return 0, 0, nil, ErrGasLimitReached
	}
	return intrinsic, floor, upfront, nil
}

// ApplyMessage validates msg and, if it is valid, executes it, settles
// gas with the sender and the coinbase, and returns the result. A non-nil
// error means the transaction is invalid and the state is unchanged. gp,
// the block's remaining gas, may be nil for calls outside a block.
//
// Per-transaction state (access list, transient storage, refund counter,
// created-contract set) must be reset by the caller beforehand.
func ApplyMessage(evm *EVM, msg *Message, gp *GasPool) (*Result, error) {
	if h := evm.Config.Tracer; h != nil && (h.OnTxStart != nil || h.OnTxEnd != nil) {
		if h.OnTxStart != nil {
			h.OnTxStart(evm, msg)
		}
		res, err := applyMessage(evm, msg, gp)
		if h.OnTxEnd != nil {
			h.OnTxEnd(res, err)
		}
		return res, err
	}
	return applyMessage(evm, msg, gp)
}

func applyMessage(evm *EVM, msg *Message, gp *GasPool) (*Result, error) {
	p := evm.prices(msg)
	intrinsic, floor, upfront, err := evm.validate(msg, &p, gp)
	if err != nil {
		return nil, err
	}
	st := evm.StateDB
	fork := evm.fork
	if gp != nil {
		_ = gp.SubGas(msg.GasLimit)
	}
	st.SubBalance(msg.From, upfront)
	value := msg.Value
	if value == nil {
		value = new(uint256.Int)
	}
	evm.SetTxContext(TxContext{Origin: msg.From, GasPrice: &p.gasPrice, BlobHashes: msg.BlobHashes, BlobFeeCap: msg.BlobGasFeeCap})
	evm.missing = nil

	if fork >= forks.Berlin {
		st.AddAddressToAccessList(msg.From)
		if msg.To != nil {
			st.AddAddressToAccessList(*msg.To)
		}
		// The fork's precompiles are warm too, answered by rule
		// (addressWarm) instead of entered here.
		for _, t := range msg.AccessList {
			st.AddAddressToAccessList(t.Address)
			for _, k := range t.StorageKeys {
				st.AddSlotToAccessList(t.Address, k)
			}
		}
		if fork >= forks.Shanghai {
			st.AddAddressToAccessList(evm.Context.Coinbase) // EIP-3651
		}
	}

	gas := msg.GasLimit - intrinsic
	var (
		ret   []byte
		vmerr error
	)
	if msg.To == nil {
		ret, _, gas, vmerr = evm.Create(msg.From, msg.Data, gas, value)
	} else {
		st.SetNonce(msg.From, st.GetNonce(msg.From)+1)
		if fork >= forks.Prague {
			for i := range msg.AuthList {
				_ = evm.applyAuthorization(&msg.AuthList[i]) // invalid ones are skipped
			}
			if target, ok := ParseDelegation(st.GetCode(*msg.To)); ok {
				st.AddAddressToAccessList(target)
			}
		}
		ret, gas, vmerr = evm.Call(msg.From, *msg.To, msg.Data, gas, value)
	}

	// Refund: capped at a half (a fifth from London, EIP-3529) of the gas used.
	quotient := uint64(2)
	if fork >= forks.London {
		quotient = 5
	}
	used := msg.GasLimit - gas
	refund := min(used/quotient, st.GetRefund())
	gas += refund
	used -= refund
	if fork >= forks.Prague && used < floor {
		used = floor
		gas = msg.GasLimit - floor
	}
	var t uint256.Int
	t.SetUint64(gas)
	t.Mul(&t, &p.gasPrice)
	st.AddBalance(msg.From, &t)
	if gp != nil {
		gp.AddGas(gas)
	}

	// The coinbase gets the tip; from London the base fee is burned.
	tip := p.gasPrice
	if fork >= forks.London && evm.Context.BaseFee != nil {
		if tip.Lt(evm.Context.BaseFee) {
			tip.Clear()
		} else {
			tip.Sub(&tip, evm.Context.BaseFee)
		}
	}
	t.SetUint64(used)
	t.Mul(&t, &tip)
	st.AddBalance(evm.Context.Coinbase, &t)

	return &Result{
		UsedGas:            used,
		Refund:             refund,
		ReturnData:         ret,
		Err:                vmerr,
		MissingPrecompiles: evm.missing,
	}, nil
}
