//go:build amd64 && !purego

#include "textflag.h"

// Fp arithmetic with BMI2/ADX. MULX multiplies without touching the flags
// and ADCX/ADOX carry on CF and OF only, so the low and the high halves of
// a row of partial products go into two independent carry chains.
//
// The modulus is read from memory (L1-resident) rather than kept in
// registers, which leaves enough registers free without R14/R15.

DATA bnP<>+0(SB)/8, $0x3c208c16d87cfd47
DATA bnP<>+8(SB)/8, $0x97816a916871ca8d
DATA bnP<>+16(SB)/8, $0xb85045b68181585d
DATA bnP<>+24(SB)/8, $0x30644e72e131a029
GLOBL bnP<>(SB), RODATA|NOPTR, $32

// -p^-1 mod 2^64; TestAsmConstants checks it against pInv.
#define PINV $0x87d20782e4866389

// MONT_STEP folds one Montgomery step into the four-word accumulator
// t0..t3 with extra top word top: m = t0·(-p^-1), then
// (t + m·p) / 2^64 -> t0..t3. Word 3 of the result cannot carry out
// because p's top word is below 2^62 (the "no-carry" case of CIOS).
// Clobbers AX, BX, DX.
#define MONT_STEP(t0, t1, t2, t3, top) \
	MOVQ  PINV, DX;      \
	IMULQ t0, DX;        \
	XORQ  AX, AX;        \
	MULXQ bnP<>+0(SB), AX, BX;  \
	ADCXQ t0, AX;        \
	MOVQ  BX, t0;        \
	ADCXQ t1, t0;        \
	MULXQ bnP<>+8(SB), AX, t1;  \
	ADOXQ AX, t0;        \
	ADCXQ t2, t1;        \
	MULXQ bnP<>+16(SB), AX, t2; \
	ADOXQ AX, t1;        \
	ADCXQ t3, t2;        \
	MULXQ bnP<>+24(SB), AX, t3; \
	ADOXQ AX, t2;        \
	MOVQ  $0, AX;        \
	ADCXQ AX, t3;        \
	ADOXQ top, t3

// MUL_ROW adds x·DX (x at DI) into t0..t3 and sets top to the fifth word.
// Clobbers AX, BX.
#define MUL_ROW(t0, t1, t2, t3, top) \
	XORQ  AX, AX;          \
	MULXQ 0(DI), AX, BX;   \
	ADOXQ AX, t0;          \
	ADCXQ BX, t1;          \
	MULXQ 8(DI), AX, BX;   \
	ADOXQ AX, t1;          \
	ADCXQ BX, t2;          \
	MULXQ 16(DI), AX, BX;  \
	ADOXQ AX, t2;          \
	ADCXQ BX, t3;          \
	MULXQ 24(DI), AX, top; \
	ADOXQ AX, t3;          \
	MOVQ  $0, AX;          \
	ADCXQ AX, top;         \
	ADOXQ AX, top

// REDUCE_STORE subtracts p from t0..t3 unless that borrows and stores
// the result at 0(ptr). Clobbers AX, BX, CX, R13.
#define REDUCE_STORE(t0, t1, t2, t3, ptr) \
	MOVQ    t0, AX;               \
	MOVQ    t1, BX;               \
	MOVQ    t2, CX;               \
	MOVQ    t3, R13;              \
	SUBQ    bnP<>+0(SB), t0;      \
	SBBQ    bnP<>+8(SB), t1;      \
	SBBQ    bnP<>+16(SB), t2;     \
	SBBQ    bnP<>+24(SB), t3;     \
	CMOVQCS AX, t0;               \
	CMOVQCS BX, t1;               \
	CMOVQCS CX, t2;               \
	CMOVQCS R13, t3;              \
	MOVQ    t0, 0(ptr);           \
	MOVQ    t1, 8(ptr);           \
	MOVQ    t2, 16(ptr);          \
	MOVQ    t3, 24(ptr)

// func feMulADX(z, x, y *fe)
// z = x·y·2^-256 mod p, fully reduced (CIOS, interleaved rows and steps).
TEXT ·feMulADX(SB), NOSPLIT, $0-24
	MOVQ x+8(FP), DI
	MOVQ y+16(FP), SI

	// row 0: t = x·y0
	MOVQ  0(SI), DX
	XORQ  AX, AX
	MULXQ 0(DI), R8, R9
	MULXQ 8(DI), AX, R10
	ADCXQ AX, R9
	MULXQ 16(DI), AX, R11
	ADCXQ AX, R10
	MULXQ 24(DI), AX, R12
	ADCXQ AX, R11
	MOVQ  $0, AX
	ADCXQ AX, R12
	MONT_STEP(R8, R9, R10, R11, R12)

	MOVQ 8(SI), DX
	MUL_ROW(R8, R9, R10, R11, R12)
	MONT_STEP(R8, R9, R10, R11, R12)

	MOVQ 16(SI), DX
	MUL_ROW(R8, R9, R10, R11, R12)
	MONT_STEP(R8, R9, R10, R11, R12)

	MOVQ 24(SI), DX
	MUL_ROW(R8, R9, R10, R11, R12)
	MONT_STEP(R8, R9, R10, R11, R12)

	MOVQ z+0(FP), DI
	REDUCE_STORE(R8, R9, R10, R11, DI)
	RET

// func mulWideADX(t *wide, x, y *fe)
// t = x·y, the full 512-bit product (schoolbook rows).
TEXT ·mulWideADX(SB), NOSPLIT, $0-24
	MOVQ x+8(FP), DI
	MOVQ y+16(FP), SI
	MOVQ t+0(FP), CX

	// row 0: R8..R12 = x·y0
	MOVQ  0(SI), DX
	XORQ  AX, AX
	MULXQ 0(DI), R8, R9
	MULXQ 8(DI), AX, R10
	ADCXQ AX, R9
	MULXQ 16(DI), AX, R11
	ADCXQ AX, R10
	MULXQ 24(DI), AX, R12
	ADCXQ AX, R11
	MOVQ  $0, AX
	ADCXQ AX, R12
	MOVQ  R8, 0(CX)

	// row 1: R9..R13
	MOVQ 8(SI), DX
	MUL_ROW(R9, R10, R11, R12, R13)
	MOVQ R9, 8(CX)

	// row 2: R10..R13, R8
	MOVQ 16(SI), DX
	MUL_ROW(R10, R11, R12, R13, R8)
	MOVQ R10, 16(CX)

	// row 3: R11..R13, R8, R9
	MOVQ 24(SI), DX
	MUL_ROW(R11, R12, R13, R8, R9)
	MOVQ R11, 24(CX)
	MOVQ R12, 32(CX)
	MOVQ R13, 40(CX)
	MOVQ R8, 48(CX)
	MOVQ R9, 56(CX)
	RET

// func montReduceADX(z *fe, t *wide)
// z = t·2^-256 mod p for t < p·2^256, fully reduced. Four Montgomery steps
// on the low half L give r = (L + m·p)/2^256 <= p; adding the high half
// H < p leaves r + H < 2p, so one conditional subtraction finishes.
TEXT ·montReduceADX(SB), NOSPLIT, $0-16
	MOVQ t+8(FP), SI
	MOVQ 0(SI), R8
	MOVQ 8(SI), R9
	MOVQ 16(SI), R10
	MOVQ 24(SI), R11
	XORQ R12, R12
	MONT_STEP(R8, R9, R10, R11, R12)
	MONT_STEP(R8, R9, R10, R11, R12)
	MONT_STEP(R8, R9, R10, R11, R12)
	MONT_STEP(R8, R9, R10, R11, R12)
	ADDQ 32(SI), R8
	ADCQ 40(SI), R9
	ADCQ 48(SI), R10
	ADCQ 56(SI), R11
	MOVQ z+0(FP), DI
	REDUCE_STORE(R8, R9, R10, R11, DI)
	RET

// func cpuHasADX() bool
// CPUID leaf 7, EBX bit 8 (BMI2, for MULX) and bit 19 (ADX).
TEXT ·cpuHasADX(SB), NOSPLIT, $0-1
	XORL AX, AX
	XORL CX, CX
	CPUID
	CMPL AX, $7
	JB   none
	MOVL $7, AX
	XORL CX, CX
	CPUID
	MOVL BX, AX
	SHRL $8, AX
	SHRL $19, BX
	ANDL BX, AX
	ANDL $1, AX
	MOVB AX, ret+0(FP)
	RET

none:
	MOVB $0, ret+0(FP)
	RET
