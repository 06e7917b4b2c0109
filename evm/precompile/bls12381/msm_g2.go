package bls12381

import "runtime"

// msmG2 returns Σ k_i·P_i for affine points of the subgroup (z = 1 or
// infinity) and 256-bit scalars. Each pair is first split with the
// endomorphism (see glv.go) into four pairs with 64-bit scalars; up to four
// pairs share one Straus doubling chain, more go through the bucket method
// with signed digits.
func msmG2(points []G2, scalars [][4]uint64) G2 {
	if len(points) <= 4 {
		return strausG2(points, scalars)
	}
	ps := make([]G2, 0, 4*len(points))
	ks := make([][2]uint64, 0, 4*len(points))
	for i := range points {
		if points[i].isInfinity() {
			continue
		}
		d := xDigits(reduceScalar(scalars[i]))
		q := points[i]
		for j := 0; j < 4; j++ {
			if j > 0 {
				q.psi(&q)
			}
			e := q
			if j%2 == 1 {
				e.Neg(&e)
			}
			ps = append(ps, e)
			ks = append(ks, [2]uint64{d[j], 0})
		}
	}
	// Two halves on two CPUs when there is enough work for both.
	if len(ps) >= 16 && runtime.GOMAXPROCS(0) > 1 {
		h := len(ps) / 2
		var lo, hi G2
		forEach(2, func(i int) {
			if i == 0 {
				lo = bucketMSMG2(ps[:h], ks[:h], 64)
			} else {
				hi = bucketMSMG2(ps[h:], ks[h:], 64)
			}
		})
		return *lo.Add(&lo, &hi)
	}
	return bucketMSMG2(ps, ks, 64)
}

// bucketMSMG2 is Pippenger's method with signed c-bit digits: 2^(c-1)
// buckets per window, a negative digit adding the negated point.
func bucketMSMG2(ps []G2, ks [][2]uint64, nbits int) G2 {
	c := bucketWindow(len(ps), nbits)
	windows := (nbits + c) / c // one extra digit absorbs the final carry
	digits := signedDigits(ks, nbits, c, windows)
	buckets := make([]G2, 1<<uint(c-1))
	var acc G2
	var negY fe2
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
				neg2(&negY, &ps[i].y)
				buckets[-d-1].addAffine(&buckets[-d-1], &ps[i].x, &negY)
			}
		}
		var sum, win G2
		for j := len(buckets) - 1; j >= 0; j-- {
			sum.Add(&sum, &buckets[j])
			win.Add(&win, &sum)
		}
		acc.Add(&acc, &win)
	}
	return acc
}
