package evm

import "github.com/chaind/chaind/internal/types"

// SetCodeAuthorization is one signed EIP-7702 delegation.
type SetCodeAuthorization = types.SetCodeAuthorization

// applyAuthorization installs one delegation if it is valid; an invalid
// one is skipped without failing the transaction.
func (evm *EVM) applyAuthorization(auth *SetCodeAuthorization) error {
	if !auth.ChainID.IsZero() && !auth.ChainID.Eq(&evm.chainID) {
		return ErrAuthChainID
	}
	if auth.Nonce+1 < auth.Nonce {
		return ErrAuthNonceOverflow
	}
	authority, err := auth.Authority()
	if err != nil {
		return ErrAuthSignature
	}
	st := evm.StateDB
	st.AddAddressToAccessList(authority) // warm even if the rest fails
	code := st.GetCode(authority)
	if _, ok := ParseDelegation(code); len(code) != 0 && !ok {
		return ErrAuthDestHasCode
	}
	if st.GetNonce(authority) != auth.Nonce {
		return ErrAuthNonceMismatch
	}
	if st.Exist(authority) {
		st.AddRefund(txAuthNewAccount - txAuthBase)
	}
	st.SetNonce(authority, auth.Nonce+1)
	if auth.Address.IsZero() {
		st.SetCode(authority, nil)
	} else {
		st.SetCode(authority, DelegationCode(auth.Address))
	}
	return nil
}
