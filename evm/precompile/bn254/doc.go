// Package bn254 implements the alt_bn128 (BN254) curve operations behind
// the EVM precompiles of EIP-196 and EIP-197: point addition and scalar
// multiplication on G1, and the optimal ate pairing check over G1 × G2.
//
// Field arithmetic is fixed-size Montgomery arithmetic on four 64-bit
// limbs; the extension tower is Fp2 = Fp[i]/(i²+1), Fp6 = Fp2[v]/(v³-ξ)
// with ξ = 9+i, and Fp12 = Fp6[w]/(w²-v). G2 lives on the D-type sextic
// twist y² = x³ + 3/ξ.
package bn254
