package evm

import "errors"

// Execution errors end a call frame. All but ErrExecutionReverted consume
// the frame's remaining gas.
var (
	ErrOutOfGas                 = errors.New("out of gas")
	ErrCancelled                = errors.New("execution cancelled")
	ErrCodeStoreOutOfGas        = errors.New("contract creation code storage out of gas")
	ErrDepth                    = errors.New("max call depth exceeded")
	ErrInsufficientBalance      = errors.New("insufficient balance for transfer")
	ErrContractAddressCollision = errors.New("contract address collision")
	ErrExecutionReverted        = errors.New("execution reverted")
	ErrMaxCodeSizeExceeded      = errors.New("max code size exceeded")
	ErrMaxInitCodeSizeExceeded  = errors.New("max initcode size exceeded")
	ErrInvalidJump              = errors.New("invalid jump destination")
	ErrWriteProtection          = errors.New("write protection")
	ErrReturnDataOutOfBounds    = errors.New("return data out of bounds")
	ErrGasUintOverflow          = errors.New("gas uint64 overflow")
	ErrInvalidCode              = errors.New("invalid code: must not begin with 0xef")
	ErrNonceUintOverflow        = errors.New("nonce uint64 overflow")
	ErrInvalidOpCode            = errors.New("invalid opcode")
	ErrStackUnderflow           = errors.New("stack underflow")
	ErrStackOverflow            = errors.New("stack limit reached 1024")
)

// Transaction validation errors: the transaction is invalid and nothing
// changes. The texts are go-ethereum's, which JSON-RPC clients match on.
var (
	ErrNonceTooLow            = errors.New("nonce too low")
	ErrNonceTooHigh           = errors.New("nonce too high")
	ErrNonceMax               = errors.New("nonce has max value")
	ErrGasLimitReached        = errors.New("gas limit reached")
	ErrInsufficientFunds      = errors.New("insufficient funds for gas * price + value")
	ErrInsufficientFundsValue = errors.New("insufficient funds for transfer")
	ErrGasUintOverflowTx      = errors.New("gas uint64 overflow")
	ErrIntrinsicGas           = errors.New("intrinsic gas too low")
	ErrFloorDataGas           = errors.New("insufficient gas for floor data gas cost")
	ErrTipAboveFeeCap         = errors.New("max priority fee per gas higher than max fee per gas")
	ErrTipVeryHigh            = errors.New("max priority fee per gas higher than 2^256-1")
	ErrFeeCapVeryHigh         = errors.New("max fee per gas higher than 2^256-1")
	ErrFeeCapTooLow           = errors.New("max fee per gas less than block base fee")
	ErrSenderNoEOA            = errors.New("sender not an eoa")
	ErrGasLimitTooHigh        = errors.New("transaction gas limit too high")
	ErrBlobFeeCapTooLow       = errors.New("max fee per blob gas less than block blob gas fee")
	ErrMissingBlobHashes      = errors.New("blob transaction missing blob hashes")
	ErrTooManyBlobs           = errors.New("blob transaction has too many blobs")
	ErrInvalidBlobHashVersion = errors.New("blob with invalid hash version")
	ErrBlobTxCreate           = errors.New("blob transaction of type create")
	ErrEmptyAuthList          = errors.New("EIP-7702 transaction with empty auth list")
	ErrSetCodeTxCreate        = errors.New("EIP-7702 transaction cannot be used to create contract")
)

// Authorization errors make one EIP-7702 authorization void; the
// transaction still runs.
var (
	ErrAuthChainID       = errors.New("EIP-7702 authorization chain ID mismatch")
	ErrAuthNonceOverflow = errors.New("EIP-7702 authorization nonce > 64 bit")
	ErrAuthSignature     = errors.New("EIP-7702 authorization has invalid signature")
	ErrAuthDestHasCode   = errors.New("EIP-7702 authority already has code")
	ErrAuthNonceMismatch = errors.New("EIP-7702 authorization nonce does not match current account nonce")
)
