package bls12381

// msmG2 returns Σ k_i·P_i for affine points (z = 1 or infinity) and 32-byte
// big-endian scalars. Small inputs use one windowed multiplication per
// point; larger ones the bucket method (Pippenger), whose cost per point is
// about 256/c mixed additions instead of a full multiplication.
func msmG2(points []G2, scalars [][4]uint64) G2 {
	var acc G2
	if len(points) < 4 {
		var t G2
		for i := range points {
			t.mulWords(&points[i], scalars[i][:])
			acc.Add(&acc, &t)
		}
		return acc
	}
	c := msmWindow(len(points))
	buckets := make([]G2, 1<<c)
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
		var sum, win G2
		for j := len(buckets) - 1; j >= 1; j-- {
			sum.Add(&sum, &buckets[j])
			win.Add(&win, &sum)
		}
		acc.Add(&acc, &win)
	}
	return acc
}
