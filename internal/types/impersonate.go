package types

import "github.com/holiman/uint256"

// Development chains let a test act as any account ("impersonation", as in
// Hardhat and anvil): the node sends transactions from an address whose key
// nobody holds. Such a transaction carries a marker signature instead of a
// real one: R is the sender's address and S is 2^256-1, a value no valid
// signature has (S must be below the curve order), so on a chain whose
// signer does not accept impersonation it is simply invalid. Because the
// sender is in the transaction itself, blocks holding impersonated
// transactions read back, serve and re-execute like any other on the
// development chain that made them.

// impersonationS is the S value of the marker signature.
var impersonationS = new(uint256.Int).SetAllOne()

// ImpersonatedSignature is the 65-byte R || S || V marker signature of a
// transaction sent as addr on a development chain.
func ImpersonatedSignature(addr Address) []byte {
	sig := make([]byte, 65)
	copy(sig[12:32], addr[:])
	s := impersonationS.Bytes32()
	copy(sig[32:64], s[:])
	return sig
}

// WithImpersonation returns a signer that also accepts marker signatures,
// attributing such a transaction to the address in its R value. Only a
// development chain may use it.
func (s Signer) WithImpersonation() Signer {
	s.impersonation = true
	return s
}

// impersonatedSender decodes a marker signature's R and S.
func impersonatedSender(r, sv *uint256.Int) (Address, bool) {
	if !sv.Eq(impersonationS) || r.IsZero() || r.BitLen() > 160 {
		return Address{}, false
	}
	b := r.Bytes20()
	return Address(b), true
}
