package bls12381

import "github.com/chaind/chaind/evm/precompile/bls12381/fr"

// DecompressG1s decodes many compressed G1 points with their subgroup
// checks, spread over the available CPUs (each costs two 64-bit scalar
// multiplications). The error is that of the lowest failing index.
func DecompressG1s(ins [][]byte) ([]G1, error) {
	out := make([]G1, len(ins))
	errs := make([]error, len(ins))
	forEach(len(ins), func(i int) {
		out[i], errs[i] = DecompressG1(ins[i])
	})
	if err := firstError(errs); err != nil {
		return nil, err
	}
	return out, nil
}

// MultiScalarMultFr returns Σ k_i·P_i for points of G1 and scalar field
// elements, as MultiScalarMultSubgroup does for scalars in bytes.
func MultiScalarMultFr(points []G1, scalars []fr.Element) G1 {
	ks := make([][4]uint64, len(scalars))
	for i := range scalars {
		ks[i] = scalars[i].Words()
	}
	return msmG1(points, ks)
}
