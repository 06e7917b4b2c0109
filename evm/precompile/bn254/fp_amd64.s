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

// MONT_STEP0 is MONT_STEP with a zero top word.
#define MONT_STEP0(t0, t1, t2, t3) \
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
	ADOXQ AX, t3

// MUL_ROW0 sets t0..t3, top = x·DX (x at DI). Clobbers AX.
#define MUL_ROW0(t0, t1, t2, t3, top) \
	XORQ  AX, AX;          \
	MULXQ 0(DI), t0, t1;   \
	MULXQ 8(DI), AX, t2;   \
	ADCXQ AX, t1;          \
	MULXQ 16(DI), AX, t3;  \
	ADCXQ AX, t2;          \
	MULXQ 24(DI), AX, top; \
	ADCXQ AX, t3;          \
	MOVQ  $0, AX;          \
	ADCXQ AX, top

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

// MONT_MUL sets R8..R11 = x·y·2^-256 mod p, below 2p, for x at DI and y
// at SI (CIOS: each row is followed by its Montgomery step). Inputs may be
// unreduced sums below 2^255: every intermediate still fits, and the
// result stays below 2p because 4p < 2^256. Clobbers AX, BX, DX, R12.
#define MONT_MUL \
	MOVQ 0(SI), DX;                   \
	MUL_ROW0(R8, R9, R10, R11, R12);  \
	MONT_STEP(R8, R9, R10, R11, R12); \
	MOVQ 8(SI), DX;                   \
	MUL_ROW(R8, R9, R10, R11, R12);   \
	MONT_STEP(R8, R9, R10, R11, R12); \
	MOVQ 16(SI), DX;                  \
	MUL_ROW(R8, R9, R10, R11, R12);   \
	MONT_STEP(R8, R9, R10, R11, R12); \
	MOVQ 24(SI), DX;                  \
	MUL_ROW(R8, R9, R10, R11, R12);   \
	MONT_STEP(R8, R9, R10, R11, R12)

// MUL_WIDE stores the 512-bit product x·y (x at DI, y at SI) at 0(CX).
// Clobbers AX, BX, DX, R8..R13.
#define MUL_WIDE \
	MOVQ 0(SI), DX;                  \
	MUL_ROW0(R8, R9, R10, R11, R12); \
	MOVQ R8, 0(CX);                  \
	MOVQ 8(SI), DX;                  \
	MUL_ROW(R9, R10, R11, R12, R13); \
	MOVQ R9, 8(CX);                  \
	MOVQ 16(SI), DX;                 \
	MUL_ROW(R10, R11, R12, R13, R8); \
	MOVQ R10, 16(CX);                \
	MOVQ 24(SI), DX;                 \
	MUL_ROW(R11, R12, R13, R8, R9);  \
	MOVQ R11, 24(CX);                \
	MOVQ R12, 32(CX);                \
	MOVQ R13, 40(CX);                \
	MOVQ R8, 48(CX);                 \
	MOVQ R9, 56(CX)

// REDUCE subtracts p from t0..t3 (below 2p) unless that borrows.
// Clobbers AX, BX, CX, R13.
#define REDUCE(t0, t1, t2, t3) \
	MOVQ    t0, AX;           \
	MOVQ    t1, BX;           \
	MOVQ    t2, CX;           \
	MOVQ    t3, R13;          \
	SUBQ    bnP<>+0(SB), t0;  \
	SBBQ    bnP<>+8(SB), t1;  \
	SBBQ    bnP<>+16(SB), t2; \
	SBBQ    bnP<>+24(SB), t3; \
	CMOVQCS AX, t0;           \
	CMOVQCS BX, t1;           \
	CMOVQCS CX, t2;           \
	CMOVQCS R13, t3

// ADD_P_IF_BORROW adds p to t0..t3 when CF is set (after a subtraction
// chain). Clobbers AX, BX, CX, DX.
#define ADD_P_IF_BORROW(t0, t1, t2, t3) \
	SBBQ CX, CX;               \
	MOVQ bnP<>+0(SB), AX;      \
	ANDQ CX, AX;               \
	MOVQ bnP<>+8(SB), BX;      \
	ANDQ CX, BX;               \
	MOVQ bnP<>+16(SB), DX;     \
	ANDQ CX, DX;               \
	ANDQ bnP<>+24(SB), CX;     \
	ADDQ AX, t0;               \
	ADCQ BX, t1;               \
	ADCQ DX, t2;               \
	ADCQ CX, t3

#define LOAD(off, ptr, t0, t1, t2, t3) \
	MOVQ off+0(ptr), t0;  \
	MOVQ off+8(ptr), t1;  \
	MOVQ off+16(ptr), t2; \
	MOVQ off+24(ptr), t3

#define STORE(t0, t1, t2, t3, off, ptr) \
	MOVQ t0, off+0(ptr);  \
	MOVQ t1, off+8(ptr);  \
	MOVQ t2, off+16(ptr); \
	MOVQ t3, off+24(ptr)

// func feMulADX(z, x, y *fe)
// z = x·y·2^-256 mod p, fully reduced.
TEXT ·feMulADX(SB), NOSPLIT, $0-24
	MOVQ x+8(FP), DI
	MOVQ y+16(FP), SI
	MONT_MUL
	REDUCE(R8, R9, R10, R11)
	MOVQ z+0(FP), DI
	STORE(R8, R9, R10, R11, 0, DI)
	RET

// func mulWideADX(t *wide, x, y *fe)
// t = x·y, the full 512-bit product (schoolbook rows).
TEXT ·mulWideADX(SB), NOSPLIT, $0-24
	MOVQ x+8(FP), DI
	MOVQ y+16(FP), SI
	MOVQ t+0(FP), CX
	MUL_WIDE
	RET

// func montReduceADX(z *fe, t *wide)
// z = t·2^-256 mod p for t < p·2^256, fully reduced. Four Montgomery steps
// on the low half L give r = (L + m·p)/2^256 <= p; adding the high half
// H < p leaves r + H < 2p, so one conditional subtraction finishes.
TEXT ·montReduceADX(SB), NOSPLIT, $0-16
	MOVQ t+8(FP), SI
	LOAD(0, SI, R8, R9, R10, R11)
	MONT_STEP0(R8, R9, R10, R11)
	MONT_STEP0(R8, R9, R10, R11)
	MONT_STEP0(R8, R9, R10, R11)
	MONT_STEP0(R8, R9, R10, R11)
	ADDQ 32(SI), R8
	ADCQ 40(SI), R9
	ADCQ 48(SI), R10
	ADCQ 56(SI), R11
	REDUCE(R8, R9, R10, R11)
	MOVQ z+0(FP), DI
	STORE(R8, R9, R10, R11, 0, DI)
	RET

// The Fp2 operations below work on both coefficients in one call: in the
// tower they are as frequent as the multiplications, and per-call
// overhead of Fp-level functions showed in profiles. fe2 is c0 at 0 and
// c1 at 32.

// func fe2AddAsm(z, x, y *fe2)
TEXT ·fe2AddAsm(SB), NOSPLIT, $0-24
	MOVQ x+8(FP), DI
	MOVQ y+16(FP), SI
	MOVQ z+0(FP), DX
	LOAD(0, DI, R8, R9, R10, R11)
	ADDQ 0(SI), R8
	ADCQ 8(SI), R9
	ADCQ 16(SI), R10
	ADCQ 24(SI), R11
	REDUCE(R8, R9, R10, R11)
	STORE(R8, R9, R10, R11, 0, DX)
	LOAD(32, DI, R8, R9, R10, R11)
	ADDQ 32(SI), R8
	ADCQ 40(SI), R9
	ADCQ 48(SI), R10
	ADCQ 56(SI), R11
	REDUCE(R8, R9, R10, R11)
	STORE(R8, R9, R10, R11, 32, DX)
	RET

// func fe2DoubleAsm(z, x *fe2)
TEXT ·fe2DoubleAsm(SB), NOSPLIT, $0-16
	MOVQ x+8(FP), DI
	MOVQ z+0(FP), DX
	LOAD(0, DI, R8, R9, R10, R11)
	ADDQ R8, R8
	ADCQ R9, R9
	ADCQ R10, R10
	ADCQ R11, R11
	REDUCE(R8, R9, R10, R11)
	STORE(R8, R9, R10, R11, 0, DX)
	LOAD(32, DI, R8, R9, R10, R11)
	ADDQ R8, R8
	ADCQ R9, R9
	ADCQ R10, R10
	ADCQ R11, R11
	REDUCE(R8, R9, R10, R11)
	STORE(R8, R9, R10, R11, 32, DX)
	RET

// func fe2SubAsm(z, x, y *fe2)
TEXT ·fe2SubAsm(SB), NOSPLIT, $0-24
	MOVQ x+8(FP), DI
	MOVQ y+16(FP), SI
	MOVQ z+0(FP), R12
	LOAD(0, DI, R8, R9, R10, R11)
	SUBQ 0(SI), R8
	SBBQ 8(SI), R9
	SBBQ 16(SI), R10
	SBBQ 24(SI), R11
	ADD_P_IF_BORROW(R8, R9, R10, R11)
	STORE(R8, R9, R10, R11, 0, R12)
	LOAD(32, DI, R8, R9, R10, R11)
	SUBQ 32(SI), R8
	SBBQ 40(SI), R9
	SBBQ 48(SI), R10
	SBBQ 56(SI), R11
	ADD_P_IF_BORROW(R8, R9, R10, R11)
	STORE(R8, R9, R10, R11, 32, R12)
	RET

// DOUBLE_MOD doubles t0..t3 (below p) modulo p. Clobbers AX, BX, CX, R13.
#define DOUBLE_MOD(t0, t1, t2, t3) \
	ADDQ t0, t0; \
	ADCQ t1, t1; \
	ADCQ t2, t2; \
	ADCQ t3, t3; \
	REDUCE(t0, t1, t2, t3)

// ADD_MOD sets t0..t3 = t + y mod p for y at off(ptr), both below p.
#define ADD_MOD(t0, t1, t2, t3, off, ptr) \
	ADDQ off+0(ptr), t0;  \
	ADCQ off+8(ptr), t1;  \
	ADCQ off+16(ptr), t2; \
	ADCQ off+24(ptr), t3; \
	REDUCE(t0, t1, t2, t3)

// TIMES9 sets t0..t3 = 9·t mod p, where t is also at off(ptr).
#define TIMES9(t0, t1, t2, t3, off, ptr) \
	DOUBLE_MOD(t0, t1, t2, t3); \
	DOUBLE_MOD(t0, t1, t2, t3); \
	DOUBLE_MOD(t0, t1, t2, t3); \
	ADD_MOD(t0, t1, t2, t3, off, ptr)

// func fe2MulXiAsm(z, x *fe2)
// z = x·(9 + i) = (9a - b) + (a + 9b)i for x = a + bi. 9a is 8a + a:
// three modular doublings and an addition.
TEXT ·fe2MulXiAsm(SB), NOSPLIT, $32-16
	MOVQ x+8(FP), DI
	// 9a - b, kept on the stack while x may still alias z
	LOAD(0, DI, R8, R9, R10, R11)
	TIMES9(R8, R9, R10, R11, 0, DI)
	SUBQ 32(DI), R8
	SBBQ 40(DI), R9
	SBBQ 48(DI), R10
	SBBQ 56(DI), R11
	ADD_P_IF_BORROW(R8, R9, R10, R11)
	STORE(R8, R9, R10, R11, 0, SP)
	// a + 9b
	LOAD(32, DI, R8, R9, R10, R11)
	TIMES9(R8, R9, R10, R11, 32, DI)
	ADD_MOD(R8, R9, R10, R11, 0, DI)
	MOVQ z+0(FP), DI
	STORE(R8, R9, R10, R11, 32, DI)
	LOAD(0, SP, R8, R9, R10, R11)
	STORE(R8, R9, R10, R11, 0, DI)
	RET

// func fe2MulADX(z, x, y *fe2)
// Karatsuba with one reduction per coefficient: with A = x0·y0,
// B = x1·y1 and C = (x0+x1)(y0+y1) as 512-bit integers,
// z1 = REDC(C - A - B) and z0 = REDC(A - B), adding p·2^256 when A < B.
// Both stay below p·2^256 as REDC requires. Frame: A at 0, B at 64,
// x0+x1 at 128, y0+y1 at 160, C at 192.
TEXT ·fe2MulADX(SB), NOSPLIT, $256-24
	MOVQ x+8(FP), DI
	MOVQ y+16(FP), SI
	LEAQ 0(SP), CX
	MUL_WIDE
	ADDQ $32, DI
	ADDQ $32, SI
	LEAQ 64(SP), CX
	MUL_WIDE

	// the sums stay unreduced: below 2p < 2^255
	LOAD(0, DI, R8, R9, R10, R11)
	ADDQ -32(DI), R8
	ADCQ -24(DI), R9
	ADCQ -16(DI), R10
	ADCQ -8(DI), R11
	STORE(R8, R9, R10, R11, 128, SP)
	LOAD(0, SI, R8, R9, R10, R11)
	ADDQ -32(SI), R8
	ADCQ -24(SI), R9
	ADCQ -16(SI), R10
	ADCQ -8(SI), R11
	STORE(R8, R9, R10, R11, 160, SP)
	LEAQ 128(SP), DI
	LEAQ 160(SP), SI
	LEAQ 192(SP), CX
	MUL_WIDE

	// z1 = REDC(C - A - B); C >= A + B, so no borrow
	LOAD(192, SP, R8, R9, R10, R11)
	LOAD(224, SP, R12, R13, DI, SI)
	SUBQ 0(SP), R8
	SBBQ 8(SP), R9
	SBBQ 16(SP), R10
	SBBQ 24(SP), R11
	SBBQ 32(SP), R12
	SBBQ 40(SP), R13
	SBBQ 48(SP), DI
	SBBQ 56(SP), SI
	SUBQ 64(SP), R8
	SBBQ 72(SP), R9
	SBBQ 80(SP), R10
	SBBQ 88(SP), R11
	SBBQ 96(SP), R12
	SBBQ 104(SP), R13
	SBBQ 112(SP), DI
	SBBQ 120(SP), SI
	MONT_STEP0(R8, R9, R10, R11)
	MONT_STEP0(R8, R9, R10, R11)
	MONT_STEP0(R8, R9, R10, R11)
	MONT_STEP0(R8, R9, R10, R11)
	ADDQ R12, R8
	ADCQ R13, R9
	ADCQ DI, R10
	ADCQ SI, R11
	REDUCE(R8, R9, R10, R11)
	MOVQ z+0(FP), DI
	STORE(R8, R9, R10, R11, 32, DI)

	// z0 = REDC(A - B)
	LOAD(0, SP, R8, R9, R10, R11)
	LOAD(32, SP, R12, R13, DI, SI)
	SUBQ 64(SP), R8
	SBBQ 72(SP), R9
	SBBQ 80(SP), R10
	SBBQ 88(SP), R11
	SBBQ 96(SP), R12
	SBBQ 104(SP), R13
	SBBQ 112(SP), DI
	SBBQ 120(SP), SI
	ADD_P_IF_BORROW(R12, R13, DI, SI)
	MONT_STEP0(R8, R9, R10, R11)
	MONT_STEP0(R8, R9, R10, R11)
	MONT_STEP0(R8, R9, R10, R11)
	MONT_STEP0(R8, R9, R10, R11)
	ADDQ R12, R8
	ADCQ R13, R9
	ADCQ DI, R10
	ADCQ SI, R11
	REDUCE(R8, R9, R10, R11)
	MOVQ z+0(FP), DI
	STORE(R8, R9, R10, R11, 0, DI)
	RET

// func fe2SquareADX(z, x *fe2)
// (a + bi)² = (a+b)(a-b) + 2ab·i: two Montgomery products.
// Frame: a+b (unreduced) at 0, a-b at 32.
TEXT ·fe2SquareADX(SB), NOSPLIT, $64-16
	MOVQ x+8(FP), DI
	LOAD(0, DI, R8, R9, R10, R11)
	ADDQ 32(DI), R8
	ADCQ 40(DI), R9
	ADCQ 48(DI), R10
	ADCQ 56(DI), R11
	STORE(R8, R9, R10, R11, 0, SP)
	LOAD(0, DI, R8, R9, R10, R11)
	SUBQ 32(DI), R8
	SBBQ 40(DI), R9
	SBBQ 48(DI), R10
	SBBQ 56(DI), R11
	ADD_P_IF_BORROW(R8, R9, R10, R11)
	STORE(R8, R9, R10, R11, 32, SP)

	LEAQ 32(DI), SI
	MONT_MUL
	REDUCE(R8, R9, R10, R11)
	DOUBLE_MOD(R8, R9, R10, R11)
	MOVQ z+0(FP), DI
	STORE(R8, R9, R10, R11, 32, DI)

	LEAQ 0(SP), DI
	LEAQ 32(SP), SI
	MONT_MUL
	REDUCE(R8, R9, R10, R11)
	MOVQ z+0(FP), DI
	STORE(R8, R9, R10, R11, 0, DI)
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
