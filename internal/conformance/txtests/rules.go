package txtests

import (
	"math"

	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
)

// Rules are the parts of a fork that stateless transaction validation
// depends on.
type Rules struct {
	Signer    forks.Fork // which types and signature rules apply
	Homestead bool       // contract creation costs 53000
	Istanbul  bool       // EIP-2028: 16 gas per non-zero calldata byte
	Shanghai  bool       // EIP-3860: initcode word cost and size limit
	Prague    bool       // EIP-7623: calldata floor
}

// ruleSets maps the fork names of the vectors to their rules.
var ruleSets = map[string]Rules{
	"Frontier":          {Signer: forks.Frontier},
	"Homestead":         {Signer: forks.Homestead, Homestead: true},
	"EIP150":            {Signer: forks.Homestead, Homestead: true},
	"EIP158":            {Signer: forks.SpuriousDragon, Homestead: true},
	"Byzantium":         {Signer: forks.SpuriousDragon, Homestead: true},
	"Constantinople":    {Signer: forks.SpuriousDragon, Homestead: true},
	"ConstantinopleFix": {Signer: forks.SpuriousDragon, Homestead: true},
	"Istanbul":          {Signer: forks.SpuriousDragon, Homestead: true, Istanbul: true},
	"Berlin":            {Signer: forks.Berlin, Homestead: true, Istanbul: true},
	"London":            {Signer: forks.London, Homestead: true, Istanbul: true},
	"Paris":             {Signer: forks.London, Homestead: true, Istanbul: true},
	"Shanghai":          {Signer: forks.London, Homestead: true, Istanbul: true, Shanghai: true},
	"Cancun":            {Signer: forks.Cancun, Homestead: true, Istanbul: true, Shanghai: true},
	"Prague":            {Signer: forks.Prague, Homestead: true, Istanbul: true, Shanghai: true, Prague: true},
}

// Gas constants of intrinsic gas. The EVM package holds the authoritative
// copy used for execution; this one exists so the transaction vectors can
// be checked at the types layer, and is checked by them.
const (
	TxGas                    = 21000
	TxGasContractCreation    = 53000
	TxDataZeroGas            = 4
	TxDataNonZeroGasFrontier = 68
	TxDataNonZeroGasEIP2028  = 16
	TxAccessListAddressGas   = 2400
	TxAccessListStorageGas   = 1900
	InitCodeWordGas          = 2
	MaxInitCodeSize          = 2 * 24576
	TxAuthTupleGas           = 25000 // PER_EMPTY_ACCOUNT_COST of EIP-7702
	TxCostFloorPerToken      = 10
)

// IntrinsicGas is the gas a transaction costs before any code runs.
func IntrinsicGas(tx *types.Transaction, r Rules) (uint64, error) {
	data := tx.Data()
	gas := uint64(TxGas)
	create := tx.To() == nil
	if create && r.Homestead {
		gas = TxGasContractCreation
	}
	nz := uint64(0)
	for _, b := range data {
		if b != 0 {
			nz++
		}
	}
	z := uint64(len(data)) - nz
	nzGas := uint64(TxDataNonZeroGasFrontier)
	if r.Istanbul {
		nzGas = TxDataNonZeroGasEIP2028
	}
	add := func(x, mul uint64) bool {
		if mul != 0 && x > (math.MaxUint64-gas)/mul {
			return false
		}
		gas += x * mul
		return true
	}
	if !add(nz, nzGas) || !add(z, TxDataZeroGas) {
		return 0, ErrGasUintOverflow
	}
	if create && r.Shanghai {
		if !add((uint64(len(data))+31)/32, InitCodeWordGas) {
			return 0, ErrGasUintOverflow
		}
	}
	al := tx.AccessList()
	if !add(uint64(len(al)), TxAccessListAddressGas) || !add(uint64(al.StorageKeys()), TxAccessListStorageGas) {
		return 0, ErrGasUintOverflow
	}
	if !add(uint64(len(tx.AuthList())), TxAuthTupleGas) {
		return 0, ErrGasUintOverflow
	}
	return gas, nil
}

// FloorDataGas is the EIP-7623 minimum gas of a transaction with data:
// 21000 + 10 per token, where a zero byte is one token and a non-zero
// byte four.
func FloorDataGas(data []byte) uint64 {
	tokens := uint64(0)
	for _, b := range data {
		if b == 0 {
			tokens++
		} else {
			tokens += 4
		}
	}
	return TxGas + tokens*TxCostFloorPerToken
}
