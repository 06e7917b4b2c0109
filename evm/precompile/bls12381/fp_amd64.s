//go:build amd64 && !purego

#include "textflag.h"

// Montgomery multiplication over the BLS12-381 base field with BMI2/ADX
// (CIOS: each row of partial products is followed by one word of
// reduction). The accumulator lives in R8..R13 with a seventh word in CX
// during a row; the modulus is read from memory, which stays in L1.

DATA blsP<>+0(SB)/8, $0xb9feffffffffaaab
DATA blsP<>+8(SB)/8, $0x1eabfffeb153ffff
DATA blsP<>+16(SB)/8, $0x6730d2a0f6b0f624
DATA blsP<>+24(SB)/8, $0x64774b84f38512bf
DATA blsP<>+32(SB)/8, $0x4b1ba7b6434bacd7
DATA blsP<>+40(SB)/8, $0x1a0111ea397fe69a
GLOBL blsP<>(SB), RODATA|NOPTR, $48

// -p^-1 mod 2^64 (qInvNeg); the tests compare the assembly with mulGeneric.
#define QINV $0x89f3fffcfffcfffd

// ROW0 sets t0..t5, top = x·DX for x at DI. Clobbers AX.
#define ROW0(t0, t1, t2, t3, t4, t5, top) \
	XORQ  AX, AX;          \
	MULXQ 0(DI), t0, t1;   \
	MULXQ 8(DI), AX, t2;   \
	ADCXQ AX, t1;          \
	MULXQ 16(DI), AX, t3;  \
	ADCXQ AX, t2;          \
	MULXQ 24(DI), AX, t4;  \
	ADCXQ AX, t3;          \
	MULXQ 32(DI), AX, t5;  \
	ADCXQ AX, t4;          \
	MULXQ 40(DI), AX, top; \
	ADCXQ AX, t5;          \
	MOVQ  $0, AX;          \
	ADCXQ AX, top

// ROW adds x·DX (x at DI) into t0..t5 and sets top to the seventh word:
// low halves on the OF chain, high halves on the CF chain. Clobbers AX, BX.
#define ROW(t0, t1, t2, t3, t4, t5, top) \
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
	MULXQ 24(DI), AX, BX;  \
	ADOXQ AX, t3;          \
	ADCXQ BX, t4;          \
	MULXQ 32(DI), AX, BX;  \
	ADOXQ AX, t4;          \
	ADCXQ BX, t5;          \
	MULXQ 40(DI), AX, top; \
	ADOXQ AX, t5;          \
	MOVQ  $0, AX;          \
	ADCXQ AX, top;         \
	ADOXQ AX, top

// REDC sets t0..t5 = (t + m·p) / 2^64 with m = t0·(-p^-1) mod 2^64, for
// the seven-word t0..t5, top. The quotient fits in six words (it is below
// 2^320 + 3p for inputs below 2p). Clobbers AX, BX, DX.
#define REDC(t0, t1, t2, t3, t4, t5, top) \
	MOVQ  QINV, DX;                 \
	IMULQ t0, DX;                   \
	XORQ  AX, AX;                   \
	MULXQ blsP<>+0(SB), AX, BX;     \
	ADCXQ t0, AX;                   \
	MOVQ  BX, t0;                   \
	ADCXQ t1, t0;                   \
	MULXQ blsP<>+8(SB), AX, t1;     \
	ADOXQ AX, t0;                   \
	ADCXQ t2, t1;                   \
	MULXQ blsP<>+16(SB), AX, t2;    \
	ADOXQ AX, t1;                   \
	ADCXQ t3, t2;                   \
	MULXQ blsP<>+24(SB), AX, t3;    \
	ADOXQ AX, t2;                   \
	ADCXQ t4, t3;                   \
	MULXQ blsP<>+32(SB), AX, t4;    \
	ADOXQ AX, t3;                   \
	ADCXQ t5, t4;                   \
	MULXQ blsP<>+40(SB), AX, t5;    \
	ADOXQ AX, t4;                   \
	MOVQ  $0, AX;                   \
	ADCXQ AX, t5;                   \
	ADOXQ top, t5

// func mulADX(z, x, y *fe)
TEXT ·mulADX(SB), NOSPLIT, $0-24
	MOVQ x+8(FP), DI
	MOVQ y+16(FP), SI

	MOVQ 0(SI), DX
	ROW0(R8, R9, R10, R11, R12, R13, CX)
	REDC(R8, R9, R10, R11, R12, R13, CX)
	MOVQ 8(SI), DX
	ROW(R8, R9, R10, R11, R12, R13, CX)
	REDC(R8, R9, R10, R11, R12, R13, CX)
	MOVQ 16(SI), DX
	ROW(R8, R9, R10, R11, R12, R13, CX)
	REDC(R8, R9, R10, R11, R12, R13, CX)
	MOVQ 24(SI), DX
	ROW(R8, R9, R10, R11, R12, R13, CX)
	REDC(R8, R9, R10, R11, R12, R13, CX)
	MOVQ 32(SI), DX
	ROW(R8, R9, R10, R11, R12, R13, CX)
	REDC(R8, R9, R10, R11, R12, R13, CX)
	MOVQ 40(SI), DX
	ROW(R8, R9, R10, R11, R12, R13, CX)
	REDC(R8, R9, R10, R11, R12, R13, CX)

	// The result is below 2p: subtract p unless that borrows.
	MOVQ    R8, AX
	MOVQ    R9, BX
	MOVQ    R10, CX
	MOVQ    R11, DX
	MOVQ    R12, SI
	MOVQ    R13, DI
	SUBQ    blsP<>+0(SB), AX
	SBBQ    blsP<>+8(SB), BX
	SBBQ    blsP<>+16(SB), CX
	SBBQ    blsP<>+24(SB), DX
	SBBQ    blsP<>+32(SB), SI
	SBBQ    blsP<>+40(SB), DI
	CMOVQCC AX, R8
	CMOVQCC BX, R9
	CMOVQCC CX, R10
	CMOVQCC DX, R11
	CMOVQCC SI, R12
	CMOVQCC DI, R13

	MOVQ z+0(FP), AX
	MOVQ R8, 0(AX)
	MOVQ R9, 8(AX)
	MOVQ R10, 16(AX)
	MOVQ R11, 24(AX)
	MOVQ R12, 32(AX)
	MOVQ R13, 40(AX)
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
