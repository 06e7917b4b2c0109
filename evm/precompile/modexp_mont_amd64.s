//go:build amd64 && !purego

#include "textflag.h"

// func montMulAsm(t, x, y, m *uint64, n int, minv uint64)
//
// One Montgomery multiplication t = x·y·2^(-64n) mod m, left unreduced
// in the n+1 words of t (t < 2m). Each row adds x·y[i] and q·m in one
// pass over the words (two carry words, C1 for the x side, C2 for the m
// side) and shifts down by a word as it stores, so t never needs more
// than n+1 words. Only baseline amd64 instructions are used.
//
// Registers: SI=x DI=t R13=m CX=n R8=y[i] R11=q R9=j R10=C1 BX=C2 R12=sum.
TEXT ·montMulAsm(SB), NOSPLIT, $16-48
	MOVQ t+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), AX
	MOVQ m+24(FP), R13
	MOVQ n+32(FP), CX
	MOVQ AX, yp-8(SP)
	LEAQ (AX)(CX*8), DX
	MOVQ DX, yend-16(SP)

	// t = 0 (n+1 words)
	XORQ AX, AX
	XORQ R9, R9
zero:
	MOVQ AX, (DI)(R9*8)
	INCQ R9
	CMPQ R9, CX
	JLE  zero

outer:
	MOVQ yp-8(SP), AX
	MOVQ (AX), R8
	ADDQ $8, AX
	MOVQ AX, yp-8(SP)

	// Word 0: sum = t[0] + x[0]·y[i]; q makes sum + q·m[0] ≡ 0.
	MOVQ  (SI), AX
	MULQ  R8
	ADDQ  (DI), AX
	ADCQ  $0, DX
	MOVQ  DX, R10
	MOVQ  AX, R12
	MOVQ  minv+40(FP), R11
	IMULQ AX, R11
	MOVQ  (R13), AX
	MULQ  R11
	ADDQ  R12, AX
	ADCQ  $0, DX
	MOVQ  DX, BX
	MOVQ  $1, R9
	CMPQ  R9, CX
	JGE   tail

inner:
	MOVQ (SI)(R9*8), AX
	MULQ R8
	ADDQ (DI)(R9*8), AX
	ADCQ $0, DX
	ADDQ R10, AX
	ADCQ $0, DX
	MOVQ DX, R10
	MOVQ AX, R12
	MOVQ (R13)(R9*8), AX
	MULQ R11
	ADDQ R12, AX
	ADCQ $0, DX
	ADDQ BX, AX
	ADCQ $0, DX
	MOVQ DX, BX
	MOVQ AX, -8(DI)(R9*8)
	INCQ R9
	CMPQ R9, CX
	JLT  inner

tail:
	// t[n-1] = t[n] + C1 + C2, t[n] = the carries out of that.
	MOVQ (DI)(CX*8), AX
	XORQ DX, DX
	ADDQ R10, AX
	ADCQ $0, DX
	ADDQ BX, AX
	ADCQ $0, DX
	MOVQ AX, -8(DI)(CX*8)
	MOVQ DX, (DI)(CX*8)

	MOVQ yp-8(SP), AX
	CMPQ AX, yend-16(SP)
	JCS  outer
	RET

// func addMulRowADX(z, x *uint64, n int, y uint64) uint64
//
// z[0..n) += x[0..n)·y, returning the carry word. Blocks of four words
// use MULX with two carry chains: CF (ADCX) adds each low half to the
// previous high half, OF (ADOX) adds z. Both chains are folded into the
// carry word at the end of a block, so the loop control may clobber the
// flags. The last n mod 4 words use MULQ. Needs BMI2 and ADX.
TEXT ·addMulRowADX(SB), NOSPLIT, $0-40
	MOVQ z+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ y+24(FP), DX
	XORQ BX, BX
	CMPQ CX, $4
	JLT  rowtail

rowblock:
	XORQ  AX, AX // clears CF and OF
	MULXQ 0(SI), R8, R9
	ADCXQ BX, R8
	ADOXQ 0(DI), R8
	MOVQ  R8, 0(DI)
	MULXQ 8(SI), R10, R11
	ADCXQ R9, R10
	ADOXQ 8(DI), R10
	MOVQ  R10, 8(DI)
	MULXQ 16(SI), R12, R13
	ADCXQ R11, R12
	ADOXQ 16(DI), R12
	MOVQ  R12, 16(DI)
	MULXQ 24(SI), R8, R9
	ADCXQ R13, R8
	ADOXQ 24(DI), R8
	MOVQ  R8, 24(DI)
	MOVQ  $0, AX // MOV keeps the flags
	ADCXQ AX, R9
	ADOXQ AX, R9
	MOVQ  R9, BX
	ADDQ  $32, SI
	ADDQ  $32, DI
	SUBQ  $4, CX
	CMPQ  CX, $4
	JGE   rowblock

rowtail:
	TESTQ CX, CX
	JZ    rowdone
	MOVQ  DX, R8

rowtailloop:
	MOVQ (SI), AX
	MULQ R8
	ADDQ BX, AX
	ADCQ $0, DX
	ADDQ AX, (DI)
	ADCQ $0, DX
	MOVQ DX, BX
	ADDQ $8, SI
	ADDQ $8, DI
	DECQ CX
	JNZ  rowtailloop

rowdone:
	MOVQ BX, ret+32(FP)
	RET

// func montHasADX() bool
TEXT ·montHasADX(SB), NOSPLIT, $0-1
	XORL AX, AX
	XORL CX, CX
	CPUID
	CMPL AX, $7
	JLT  noadx
	MOVL $7, AX
	XORL CX, CX
	CPUID
	ANDL $0x80100, BX // BMI2 (bit 8) | ADX (bit 19)
	CMPL BX, $0x80100
	JNE  noadx
	MOVB $1, ret+0(FP)
	RET

noadx:
	MOVB $0, ret+0(FP)
	RET
