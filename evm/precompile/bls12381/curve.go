package bls12381

import "math/big"

// Curve parameters of BLS12-381.
const (
	// blsX is |x| for the curve parameter x = -0xd201000000010000.
	blsX uint64 = 0xd201000000010000
)

var (
	// bigR is the prime order r of G1, G2 and GT.
	bigR = mustBig("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001")

	g1Gen G1
	g2Gen G2
)

func mustBig(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 16)
	if !ok {
		panic("bls12381: bad constant " + s)
	}
	return v
}

// mulByB1 multiplies by b = 4.
func mulByB1(z, x *fe) {
	double(z, x)
	double(z, z)
}

// mulByB2 multiplies by b' = 4(1+u), the twist's constant.
func mulByB2(z, x *fe2) {
	mulByXi(z, x)
	double2(z, z)
	double2(z, z)
}

// scalarWords reads a 32-byte big-endian scalar into little-endian words.
func scalarWords(k *[32]byte) [4]uint64 {
	var w [4]uint64
	for i := 0; i < 4; i++ {
		o := 24 - 8*i
		w[i] = uint64(k[o])<<56 | uint64(k[o+1])<<48 | uint64(k[o+2])<<40 | uint64(k[o+3])<<32 |
			uint64(k[o+4])<<24 | uint64(k[o+5])<<16 | uint64(k[o+6])<<8 | uint64(k[o+7])
	}
	return w
}

func init() {
	x := feFromHex("17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb")
	y := feFromHex("08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1")
	g1Gen.setAffine(&x, &y)
	x2 := fe2{
		feFromHex("024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"),
		feFromHex("13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"),
	}
	y2 := fe2{
		feFromHex("0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"),
		feFromHex("0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be"),
	}
	g2Gen.setAffine(&x2, &y2)

	// Frobenius coefficients ξ^(i(p^k-1)/6).
	xi := fe2{}
	xi[0].setOne()
	xi[1].setOne()
	pk := new(big.Int).Set(bigP)
	for k := 1; k <= 3; k++ {
		e := new(big.Int).Sub(pk, big.NewInt(1))
		e.Div(e, big.NewInt(6))
		var base fe2
		exp2(&base, &xi, bigToWords(e))
		frobCoef[k-1][0].setOne()
		for i := 1; i < 6; i++ {
			mul2(&frobCoef[k-1][i], &frobCoef[k-1][i-1], &base)
		}
		pk.Mul(pk, bigP)
	}
}

// G1Generator returns the standard generator of G1.
func G1Generator() G1 { return g1Gen }

// G2Generator returns the standard generator of G2.
func G2Generator() G2 { return g2Gen }
