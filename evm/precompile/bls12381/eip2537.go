package bls12381

// The EIP-2537 precompiles. Encodings: an Fp element is 64 bytes, big-endian,
// whose top 16 bytes must be zero and whose value must be below p; an Fp2
// element is c0 || c1; a G1 point is x || y (128 bytes), a G2 point x || y
// (256 bytes); the point at infinity is all zeros; a scalar is 32 bytes
// big-endian and may exceed the group order.

// Gas prices from the final EIP-2537.
const (
	G1AddGas          = 375
	G2AddGas          = 600
	G1MulGas          = 12000
	G2MulGas          = 22500
	PairingBaseGas    = 37700
	PairingPerPairGas = 32600
	MapFpToG1Gas      = 5500
	MapFp2ToG2Gas     = 23800
)

// Input sizes.
const (
	fpLen        = 64
	g1Len        = 2 * fpLen
	g2Len        = 4 * fpLen
	scalarLen    = 32
	g1MSMPairLen = g1Len + scalarLen
	g2MSMPairLen = g2Len + scalarLen
	pairLen      = g1Len + g2Len
)

// msmMultiplier is the divisor of the discount tables.
const msmMultiplier = 1000

// g1MSMDiscount[k-1] is the discount for k pairs; beyond the table the last
// entry applies.
var g1MSMDiscount = [128]uint16{1000, 949, 848, 797, 764, 750, 738, 728, 719, 712, 705, 698, 692, 687, 682, 677, 673, 669, 665, 661, 658, 654, 651, 648, 645, 642, 640, 637, 635, 632, 630, 627, 625, 623, 621, 619, 617, 615, 613, 611, 609, 608, 606, 604, 603, 601, 599, 598, 596, 595, 593, 592, 591, 589, 588, 586, 585, 584, 582, 581, 580, 579, 577, 576, 575, 574, 573, 572, 570, 569, 568, 567, 566, 565, 564, 563, 562, 561, 560, 559, 558, 557, 556, 555, 554, 553, 552, 551, 550, 549, 548, 547, 547, 546, 545, 544, 543, 542, 541, 540, 540, 539, 538, 537, 536, 536, 535, 534, 533, 532, 532, 531, 530, 529, 528, 528, 527, 526, 525, 525, 524, 523, 522, 522, 521, 520, 520, 519}

var g2MSMDiscount = [128]uint16{1000, 1000, 923, 884, 855, 832, 812, 796, 782, 770, 759, 749, 740, 732, 724, 717, 711, 704, 699, 693, 688, 683, 679, 674, 670, 666, 663, 659, 655, 652, 649, 646, 643, 640, 637, 634, 632, 629, 627, 624, 622, 620, 618, 615, 613, 611, 609, 607, 606, 604, 602, 600, 598, 597, 595, 593, 592, 590, 589, 587, 586, 584, 583, 582, 580, 579, 578, 576, 575, 574, 573, 571, 570, 569, 568, 567, 566, 565, 563, 562, 561, 560, 559, 558, 557, 556, 555, 554, 553, 552, 552, 551, 550, 549, 548, 547, 546, 545, 545, 544, 543, 542, 541, 541, 540, 539, 538, 537, 537, 536, 535, 535, 534, 533, 532, 532, 531, 530, 530, 529, 528, 528, 527, 526, 526, 525, 524, 524}

func msmGas(k int, mulGas uint64, table *[128]uint16) uint64 {
	if k == 0 {
		return 0
	}
	d := uint64(table[len(table)-1])
	if k <= len(table) {
		d = uint64(table[k-1])
	}
	return uint64(k) * mulGas * d / msmMultiplier
}

// G1MSMGas prices BLS12_G1MSM: k·12000·discount(k)/1000 for k = len/160.
func G1MSMGas(input []byte) uint64 {
	return msmGas(len(input)/g1MSMPairLen, G1MulGas, &g1MSMDiscount)
}

// G2MSMGas prices BLS12_G2MSM: k·22500·discount(k)/1000 for k = len/288.
func G2MSMGas(input []byte) uint64 {
	return msmGas(len(input)/g2MSMPairLen, G2MulGas, &g2MSMDiscount)
}

// PairingGas prices BLS12_PAIRING_CHECK: 32600·k + 37700 for k = len/384.
func PairingGas(input []byte) uint64 {
	return PairingPerPairGas*uint64(len(input)/pairLen) + PairingBaseGas
}

func decodeFp(z *fe, in []byte) error {
	for _, b := range in[:16] {
		if b != 0 {
			return ErrFieldElementTopBytes
		}
	}
	if !z.setBytes(in[16:64]) {
		return ErrFieldElementRange
	}
	return nil
}

func encodeFp(out []byte, x *fe) {
	x.putBytes(out[16:64])
}

// decodeG1 reads a 128-byte point and checks that it is on the curve.
func decodeG1(in []byte) (G1, error) {
	var p G1
	var x, y fe
	inf, err := decodeG1Affine(&x, &y, in)
	if err != nil || inf {
		return p, err
	}
	p.setAffine(&x, &y)
	return p, nil
}

func encodeG1(p *G1) []byte {
	out := make([]byte, g1Len)
	if x, y, ok := p.affine(); ok {
		encodeFp(out[:64], &x)
		encodeFp(out[64:], &y)
	}
	return out
}

func decodeFp2(z *fe2, in []byte) error {
	if err := decodeFp(&z[0], in[:64]); err != nil {
		return err
	}
	return decodeFp(&z[1], in[64:128])
}

// decodeG2 reads a 256-byte point and checks that it is on the curve.
func decodeG2(in []byte) (G2, error) {
	var p G2
	var x, y fe2
	inf, err := decodeG2Affine(&x, &y, in)
	if err != nil || inf {
		return p, err
	}
	p.setAffine(&x, &y)
	return p, nil
}

func encodeG2(p *G2) []byte {
	out := make([]byte, g2Len)
	if x, y, ok := p.affine(); ok {
		encodeFp(out[0:64], &x[0])
		encodeFp(out[64:128], &x[1])
		encodeFp(out[128:192], &y[0])
		encodeFp(out[192:256], &y[1])
	}
	return out
}

// G1Add is BLS12_G1ADD (0x0b): the sum of two G1 points. The EIP asks for
// no subgroup check here, only for points on the curve.
func G1Add(input []byte) ([]byte, error) {
	if len(input) != 2*g1Len {
		return nil, ErrInvalidLength
	}
	var x1, y1, x2, y2 fe
	inf1, err := decodeG1Affine(&x1, &y1, input[:g1Len])
	if err != nil {
		return nil, err
	}
	inf2, err := decodeG1Affine(&x2, &y2, input[g1Len:])
	if err != nil {
		return nil, err
	}
	out := make([]byte, g1Len)
	addG1Affine(out, &x1, &y1, inf1, &x2, &y2, inf2)
	return out, nil
}

// G2Add is BLS12_G2ADD (0x0d): the sum of two G2 points, on-curve checked
// but not subgroup checked.
func G2Add(input []byte) ([]byte, error) {
	if len(input) != 2*g2Len {
		return nil, ErrInvalidLength
	}
	var x1, y1, x2, y2 fe2
	inf1, err := decodeG2Affine(&x1, &y1, input[:g2Len])
	if err != nil {
		return nil, err
	}
	inf2, err := decodeG2Affine(&x2, &y2, input[g2Len:])
	if err != nil {
		return nil, err
	}
	out := make([]byte, g2Len)
	addG2Affine(out, &x1, &y1, inf1, &x2, &y2, inf2)
	return out, nil
}

// G1MSM is BLS12_G1MSM (0x0c): Σ k_i·P_i over k ≥ 1 (point, scalar) pairs;
// every point must be in G1.
func G1MSM(input []byte) ([]byte, error) {
	if len(input) == 0 || len(input)%g1MSMPairLen != 0 {
		return nil, ErrInvalidLength
	}
	n := len(input) / g1MSMPairLen
	points := make([]G1, n)
	scalars := make([][4]uint64, n)
	errs := make([]error, n)
	forEach(n, func(i int) {
		rec := input[i*g1MSMPairLen : (i+1)*g1MSMPairLen]
		p, err := decodeG1(rec[:g1Len])
		if err == nil && !p.InSubgroup() {
			err = ErrNotInSubgroup
		}
		points[i], errs[i] = p, err
		scalars[i] = scalarWords((*[32]byte)(rec[g1Len:]))
	})
	if err := firstError(errs); err != nil {
		return nil, err
	}
	r := msmG1(points, scalars)
	return encodeG1(&r), nil
}

// G2MSM is BLS12_G2MSM (0x0e): Σ k_i·Q_i over k ≥ 1 pairs; every point
// must be in G2.
func G2MSM(input []byte) ([]byte, error) {
	if len(input) == 0 || len(input)%g2MSMPairLen != 0 {
		return nil, ErrInvalidLength
	}
	n := len(input) / g2MSMPairLen
	points := make([]G2, n)
	scalars := make([][4]uint64, n)
	errs := make([]error, n)
	forEach(n, func(i int) {
		rec := input[i*g2MSMPairLen : (i+1)*g2MSMPairLen]
		p, err := decodeG2(rec[:g2Len])
		if err == nil && !p.InSubgroup() {
			err = ErrNotInSubgroup
		}
		points[i], errs[i] = p, err
		scalars[i] = scalarWords((*[32]byte)(rec[g2Len:]))
	})
	if err := firstError(errs); err != nil {
		return nil, err
	}
	r := msmG2(points, scalars)
	return encodeG2(&r), nil
}

// Pairing is BLS12_PAIRING_CHECK (0x0f): 32 bytes, 1 if Π e(P_i, Q_i) = 1
// and 0 otherwise; all points must be in their subgroups.
func Pairing(input []byte) ([]byte, error) {
	if len(input) == 0 || len(input)%pairLen != 0 {
		return nil, ErrInvalidLength
	}
	n := len(input) / pairLen
	g1s := make([]G1, n)
	g2s := make([]*G2Prepared, n)
	errs := make([]error, n)
	forEach(n, func(i int) {
		rec := input[i*pairLen : (i+1)*pairLen]
		p, err := decodeG1(rec[:g1Len])
		if err != nil {
			errs[i] = err
			return
		}
		q, err := decodeG2(rec[g1Len:])
		if err != nil {
			errs[i] = err
			return
		}
		if !p.InSubgroup() {
			errs[i] = ErrNotInSubgroup
			return
		}
		pr, ok := prepareG2Checked(&q)
		if !ok {
			errs[i] = ErrNotInSubgroup
			return
		}
		g1s[i] = p
		g2s[i] = pr
	})
	if err := firstError(errs); err != nil {
		return nil, err
	}
	ps := make([]*G1, n)
	for i := range g1s {
		ps[i] = &g1s[i]
	}
	qs := g2s
	out := make([]byte, 32)
	if pairingCheck(ps, qs) {
		out[31] = 1
	}
	return out, nil
}

// MapFpToG1 is BLS12_MAP_FP_TO_G1 (0x10): map_to_curve (SSWU on the
// 11-isogenous curve) followed by clear_cofactor, per RFC 9380.
func MapFpToG1(input []byte) ([]byte, error) {
	if len(input) != fpLen {
		return nil, ErrInvalidLength
	}
	var u fe
	if err := decodeFp(&u, input); err != nil {
		return nil, err
	}
	p, err := mapToG1(&u)
	if err != nil {
		return nil, err
	}
	return encodeG1(&p), nil
}

// MapFp2ToG2 is BLS12_MAP_FP2_TO_G2 (0x11): map_to_curve (SSWU on the
// 3-isogenous curve) followed by clear_cofactor, per RFC 9380.
func MapFp2ToG2(input []byte) ([]byte, error) {
	if len(input) != 2*fpLen {
		return nil, ErrInvalidLength
	}
	var u fe2
	if err := decodeFp2(&u, input); err != nil {
		return nil, err
	}
	p, err := mapToG2(&u)
	if err != nil {
		return nil, err
	}
	return encodeG2(&p), nil
}
