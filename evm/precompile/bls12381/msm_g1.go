package bls12381

import "runtime"

// msmG1 returns Σ k_i·P_i for affine points of the subgroup (z = 1 or
// infinity) and 256-bit scalars. Each pair is first split with the
// endomorphism (see glv.go) into two pairs with 128-bit scalars; up to four
// pairs share one Straus doubling chain, more go through the bucket method
// with signed digits.
func msmG1(points []G1, scalars [][4]uint64) G1 {
	if len(points) <= 4 {
		return strausG1(points, scalars)
	}
	ps := make([]G1, 0, 2*len(points))
	ks := make([][2]uint64, 0, 2*len(points))
	for i := range points {
		if points[i].isInfinity() {
			continue
		}
		a, b := g1Split(scalars[i])
		var q G1
		q.phi(&points[i])
		q.Neg(&q)
		ps = append(ps, points[i], q)
		ks = append(ks, a, b)
	}
	// Two halves on two CPUs when there is enough work for both.
	if len(ps) >= 16 && runtime.GOMAXPROCS(0) > 1 {
		h := len(ps) / 2
		var lo, hi G1
		forEach(2, func(i int) {
			if i == 0 {
				lo = bucketMSMG1(ps[:h], ks[:h], 128)
			} else {
				hi = bucketMSMG1(ps[h:], ks[h:], 128)
			}
		})
		return *lo.Add(&lo, &hi)
	}
	return bucketMSMG1(ps, ks, 128)
}

// bucketMSMG1 is Pippenger's method with signed c-bit digits: 2^(c-1)
// buckets per window, a negative digit adding the negated point.
func bucketMSMG1(ps []G1, ks [][2]uint64, nbits int) G1 {
	c := bucketWindow(len(ps), nbits)
	windows := (nbits + c) / c // one extra digit absorbs the final carry
	digits := signedDigits(ks, nbits, c, windows)
	buckets := make([]G1, 1<<uint(c-1))
	var acc G1
	var negY fe
	for w := windows - 1; w >= 0; w-- {
		if !acc.isInfinity() {
			for i := 0; i < c; i++ {
				acc.Double(&acc)
			}
		}
		for i := range buckets {
			buckets[i].setInfinity()
		}
		for i := range ps {
			d := digits[i*windows+w]
			switch {
			case d > 0:
				buckets[d-1].addAffine(&buckets[d-1], &ps[i].x, &ps[i].y)
			case d < 0:
				neg(&negY, &ps[i].y)
				buckets[-d-1].addAffine(&buckets[-d-1], &ps[i].x, &negY)
			}
		}
		var sum, win G1
		for j := len(buckets) - 1; j >= 0; j-- {
			sum.Add(&sum, &buckets[j])
			win.Add(&win, &sum)
		}
		acc.Add(&acc, &win)
	}
	return acc
}

// bucketWindow picks the digit width c minimising the estimated cost
// (nbits/c)·(n mixed additions + 2^c bucket-sum additions).
func bucketWindow(n, nbits int) int {
	best, bestCost := 2, -1
	for c := 2; c <= 16; c++ {
		windows := (nbits + c) / c
		cost := windows * (n*11 + (1<<uint(c))*16)
		if bestCost < 0 || cost < bestCost {
			best, bestCost = c, cost
		}
	}
	return best
}

// signedDigits writes, for every scalar, its base-2^c digits in
// [-2^(c-1), 2^(c-1)) (least significant first), windows per scalar.
func signedDigits(ks [][2]uint64, nbits, c, windows int) []int32 {
	out := make([]int32, len(ks)*windows)
	half := int64(1) << uint(c-1)
	mask := uint64(1)<<uint(c) - 1
	for i := range ks {
		var carry int64
		for w := 0; w < windows; w++ {
			start := w * c
			var raw uint64
			if start < 128 {
				word, off := start/64, uint(start%64)
				raw = ks[i][word] >> off
				if off+uint(c) > 64 && word == 0 {
					raw |= ks[i][1] << (64 - off)
				}
				raw &= mask
			}
			d := int64(raw) + carry
			carry = 0
			if d >= half {
				d -= int64(1) << uint(c)
				carry = 1
			}
			out[i*windows+w] = int32(d)
		}
	}
	return out
}
