package bls12381

// msmG1 returns Σ k_i·P_i for affine points (z = 1 or infinity) and 32-byte
// big-endian scalars. Small inputs use one windowed multiplication per
// point; larger ones the bucket method (Pippenger), whose cost per point is
// about 256/c mixed additions instead of a full multiplication.
func msmG1(points []G1, scalars [][4]uint64) G1 {
	var acc G1
	if len(points) < 4 {
		var t G1
		for i := range points {
			t.mulWords(&points[i], scalars[i][:])
			acc.Add(&acc, &t)
		}
		return acc
	}
	c := msmWindow(len(points))
	buckets := make([]G1, 1<<c)
	for start := (255 / c) * c; start >= 0; start -= c {
		if !acc.isInfinity() {
			for i := 0; i < c; i++ {
				acc.Double(&acc)
			}
		}
		for i := range buckets {
			buckets[i].setInfinity()
		}
		for i := range points {
			d := scalarDigit(&scalars[i], start, c)
			if d == 0 || points[i].isInfinity() {
				continue
			}
			buckets[d].addAffine(&buckets[d], &points[i].x, &points[i].y)
		}
		var sum, win G1
		for j := len(buckets) - 1; j >= 1; j-- {
			sum.Add(&sum, &buckets[j])
			win.Add(&win, &sum)
		}
		acc.Add(&acc, &win)
	}
	return acc
}

// msmWindow picks the bucket window width for n points.
func msmWindow(n int) int {
	switch {
	case n < 16:
		return 3
	case n < 64:
		return 4
	case n < 256:
		return 5
	case n < 1024:
		return 6
	case n < 4096:
		return 8
	default:
		return 10
	}
}

// scalarDigit returns the c bits of k starting at bit position start.
func scalarDigit(k *[4]uint64, start, c int) uint64 {
	w := start / 64
	s := uint(start % 64)
	d := k[w] >> s
	if s+uint(c) > 64 && w+1 < 4 {
		d |= k[w+1] << (64 - s)
	}
	return d & (1<<uint(c) - 1)
}
