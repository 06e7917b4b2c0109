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
