package precompile

import (
	"github.com/chaind/chaind/evm/precompile/bls12381"
	"github.com/chaind/chaind/evm/precompile/kzg"
)

// The BLS12-381 (EIP-2537) and KZG point-evaluation (EIP-4844)
// precompiles. Their gas schedules live here; the curve mathematics comes
// from evm/precompile/bls12381 and evm/precompile/kzg, which do the whole
// input validation and encoding.

// pointEvaluation (0x0a, EIP-4844).
type pointEvaluation struct{}

func (pointEvaluation) RequiredGas([]byte) uint64        { return 50000 }
func (pointEvaluation) Run(input []byte) ([]byte, error) { return kzg.PointEvaluation(input) }

// EIP-2537 encoding sizes.
const (
	blsG1PointLen  = 128
	blsG2PointLen  = 256
	blsScalarLen   = 32
	blsG1MSMPair   = blsG1PointLen + blsScalarLen
	blsG2MSMPair   = blsG2PointLen + blsScalarLen
	blsPairingPair = blsG1PointLen + blsG2PointLen
)

type blsG1Add struct{}

func (blsG1Add) RequiredGas([]byte) uint64        { return 375 }
func (blsG1Add) Run(input []byte) ([]byte, error) { return bls12381.G1Add(input) }

type blsG2Add struct{}

func (blsG2Add) RequiredGas([]byte) uint64        { return 600 }
func (blsG2Add) Run(input []byte) ([]byte, error) { return bls12381.G2Add(input) }

type blsG1MSM struct{}

func (blsG1MSM) RequiredGas(input []byte) uint64 {
	return msmGas(len(input)/blsG1MSMPair, 12000, &blsG1MSMDiscount)
}
func (blsG1MSM) Run(input []byte) ([]byte, error) { return bls12381.G1MSM(input) }

type blsG2MSM struct{}

func (blsG2MSM) RequiredGas(input []byte) uint64 {
	return msmGas(len(input)/blsG2MSMPair, 22500, &blsG2MSMDiscount)
}
func (blsG2MSM) Run(input []byte) ([]byte, error) { return bls12381.G2MSM(input) }

type blsPairing struct{}

func (blsPairing) RequiredGas(input []byte) uint64 {
	return 37700 + 32600*uint64(len(input)/blsPairingPair)
}
func (blsPairing) Run(input []byte) ([]byte, error) { return bls12381.Pairing(input) }

type blsMapFpToG1 struct{}

func (blsMapFpToG1) RequiredGas([]byte) uint64        { return 5500 }
func (blsMapFpToG1) Run(input []byte) ([]byte, error) { return bls12381.MapFpToG1(input) }

type blsMapFp2ToG2 struct{}

func (blsMapFp2ToG2) RequiredGas([]byte) uint64        { return 23800 }
func (blsMapFp2ToG2) Run(input []byte) ([]byte, error) { return bls12381.MapFp2ToG2(input) }

// msmGas is EIP-2537's multi-scalar-multiplication price: k pairs cost
// k * mulCost * discount(k) / 1000, the discount flat beyond the table.
func msmGas(k int, mulCost uint64, table *[128]uint64) uint64 {
	if k == 0 {
		return 0
	}
	d := table[min(k, len(table))-1]
	return uint64(k) * mulCost * d / 1000
}

// EIP-2537 MSM discount tables, indexed by k-1 (per-mille of k plain
// multiplications).
var blsG1MSMDiscount = [128]uint64{
	1000, 949, 848, 797, 764, 750, 738, 728, 719, 712, 705, 698, 692, 687, 682, 677,
	673, 669, 665, 661, 658, 654, 651, 648, 645, 642, 640, 637, 635, 632, 630, 627,
	625, 623, 621, 619, 617, 615, 613, 611, 609, 608, 606, 604, 603, 601, 599, 598,
	596, 595, 593, 592, 591, 589, 588, 586, 585, 584, 582, 581, 580, 579, 577, 576,
	575, 574, 573, 572, 570, 569, 568, 567, 566, 565, 564, 563, 562, 561, 560, 559,
	558, 557, 556, 555, 554, 553, 552, 551, 550, 549, 548, 547, 547, 546, 545, 544,
	543, 542, 541, 540, 540, 539, 538, 537, 536, 536, 535, 534, 533, 532, 532, 531,
	530, 529, 528, 528, 527, 526, 525, 525, 524, 523, 522, 522, 521, 520, 520, 519,
}

var blsG2MSMDiscount = [128]uint64{
	1000, 1000, 923, 884, 855, 832, 812, 796, 782, 770, 759, 749, 740, 732, 724, 717,
	711, 704, 699, 693, 688, 683, 679, 674, 670, 666, 663, 659, 655, 652, 649, 646,
	643, 640, 637, 634, 632, 629, 627, 624, 622, 620, 618, 615, 613, 611, 609, 607,
	606, 604, 602, 600, 598, 597, 595, 593, 592, 590, 589, 587, 586, 584, 583, 582,
	580, 579, 578, 576, 575, 574, 573, 571, 570, 569, 568, 567, 566, 565, 563, 562,
	561, 560, 559, 558, 557, 556, 555, 554, 553, 552, 552, 551, 550, 549, 548, 547,
	546, 545, 545, 544, 543, 542, 541, 541, 540, 539, 538, 537, 537, 536, 535, 535,
	534, 533, 532, 532, 531, 530, 530, 529, 528, 528, 527, 526, 526, 525, 524, 524,
}
