package crypto

import "github.com/decred/dcrd/dcrec/secp256k1/v4"

// PublicKey returns the public key of k. It uses this package's generator
// tables (built in about a millisecond on first use) rather than the
// library's byte-point table, whose first use decompresses a large embedded
// table and stalls start-up by tens of milliseconds; afterwards it is also
// faster. Like the library's PrivateKey.PubKey (ScalarBaseMultNonConst), it
// runs in variable time.
func PublicKey(k *secp256k1.PrivateKey) *secp256k1.PublicKey {
	x, y, ok := scalarBaseMul(&k.Key)
	if !ok {
		// Only k = 0, which ToPrivateKey and GenerateKey never produce;
		// fall back to the library for its behaviour.
		return k.PubKey()
	}
	var xb, yb [32]byte
	x.putBytes(xb[:])
	y.putBytes(yb[:])
	var fx, fy secp256k1.FieldVal
	fx.SetBytes(&xb)
	fy.SetBytes(&yb)
	return secp256k1.NewPublicKey(&fx, &fy)
}

// PrivkeyToAddress is the address of k's public key.
func PrivkeyToAddress(k *secp256k1.PrivateKey) (addr [20]byte) {
	x, y, ok := scalarBaseMul(&k.Key)
	if !ok {
		return PubkeyToAddress(k.PubKey())
	}
	var xy [64]byte
	x.putBytes(xy[:32])
	y.putBytes(xy[32:])
	var h [32]byte
	HashInto(&h, xy[:])
	copy(addr[:], h[12:])
	return addr
}

// scalarBaseMul returns k·G in affine coordinates; ok is false for k = 0.
func scalarBaseMul(k *secp256k1.ModNScalar) (x, y fe, ok bool) {
	baseTablesOnce.Do(buildBaseTables)
	k1, k2 := splitScalar(k)
	var n1, n2 [maxWNAF]int16
	l1 := wnaf(&n1, &k1.mag, wnafBase)
	l2 := wnaf(&n2, &k2.mag, wnafBase)
	q := jac{inf: true}
	for i := max(l1, l2) - 1; i >= 0; i-- {
		q.double(&q)
		if d := n1[i]; d != 0 {
			q.addAffine(&q, &baseTableG[abs16(d)>>1], (d < 0) != k1.neg)
		}
		if d := n2[i]; d != 0 {
			q.addAffine(&q, &baseTableLG[abs16(d)>>1], (d < 0) != k2.neg)
		}
	}
	if q.inf {
		return x, y, false
	}
	x, y = q.toAffine()
	return x, y, true
}
