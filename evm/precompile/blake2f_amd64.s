//go:build amd64 && !purego

#include "textflag.h"

// BLAKE2b's compression function F (RFC 7693 §3.2) with a round count
// from the caller (EIP-152), on AVX2. The sixteen state words are four
// YMM rows: Y0 = v0..v3, Y1 = v4..v7, Y2 = v8..v11, Y3 = v12..v15, so one
// pass of G_VEC runs the four column G functions at once; rotating rows
// 1-3 by one, two and three lanes lines the diagonals up as columns for
// the second half of the round.
//
// The rotations by 32, 24 and 16 bits move whole bytes and are shuffles;
// the rotation by 63 is a left shift by one (an add) or'd with x>>63.

DATA blake2fRot24<>+0(SB)/8, $0x0201000706050403
DATA blake2fRot24<>+8(SB)/8, $0x0a09080f0e0d0c0b
DATA blake2fRot24<>+16(SB)/8, $0x0201000706050403
DATA blake2fRot24<>+24(SB)/8, $0x0a09080f0e0d0c0b
GLOBL blake2fRot24<>(SB), RODATA|NOPTR, $32

DATA blake2fRot16<>+0(SB)/8, $0x0100070605040302
DATA blake2fRot16<>+8(SB)/8, $0x09080f0e0d0c0b0a
DATA blake2fRot16<>+16(SB)/8, $0x0100070605040302
DATA blake2fRot16<>+24(SB)/8, $0x09080f0e0d0c0b0a
GLOBL blake2fRot16<>(SB), RODATA|NOPTR, $32

DATA blake2fIV<>+0(SB)/8, $0x6a09e667f3bcc908
DATA blake2fIV<>+8(SB)/8, $0xbb67ae8584caa73b
DATA blake2fIV<>+16(SB)/8, $0x3c6ef372fe94f82b
DATA blake2fIV<>+24(SB)/8, $0xa54ff53a5f1d36f1
DATA blake2fIV<>+32(SB)/8, $0x510e527fade682d1
DATA blake2fIV<>+40(SB)/8, $0x9b05688c2b3e6c1f
DATA blake2fIV<>+48(SB)/8, $0x1f83d9abfb41bd6b
DATA blake2fIV<>+56(SB)/8, $0x5be0cd19137e2179
GLOBL blake2fIV<>(SB), RODATA|NOPTR, $64

// MSG4 gathers message words a, b, c, d (by index into m at SI) into the
// lanes of Y (X is its low half); XT is scratch.
#define MSG4(a, b, c, d, Y, X, XT) \
	VMOVQ   (a*8)(SI), X;          \
	VPINSRQ $1, (b*8)(SI), X, X;   \
	VMOVQ   (c*8)(SI), XT;         \
	VPINSRQ $1, (d*8)(SI), XT, XT; \
	VINSERTI128 $1, XT, Y, Y

// G_VEC is four G functions side by side, with the words of the first and
// second message additions in M1 and M2.
#define G_VEC(M1, M2) \
	VPADDQ  M1, Y0, Y0;   \
	VPADDQ  Y1, Y0, Y0;   \
	VPXOR   Y0, Y3, Y3;   \
	VPSHUFD $0xb1, Y3, Y3; \
	VPADDQ  Y3, Y2, Y2;   \
	VPXOR   Y2, Y1, Y1;   \
	VPSHUFB Y9, Y1, Y1;   \
	VPADDQ  M2, Y0, Y0;   \
	VPADDQ  Y1, Y0, Y0;   \
	VPXOR   Y0, Y3, Y3;   \
	VPSHUFB Y8, Y3, Y3;   \
	VPADDQ  Y3, Y2, Y2;   \
	VPXOR   Y2, Y1, Y1;   \
	VPSRLQ  $63, Y1, Y10; \
	VPADDQ  Y1, Y1, Y1;   \
	VPOR    Y10, Y1, Y1

// ROUND is one full round for the message schedule s0..s15 (a row of
// SIGMA): columns, then diagonals.
#define ROUND(s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14, s15) \
	MSG4(s0, s2, s4, s6, Y4, X4, X11);     \
	MSG4(s1, s3, s5, s7, Y5, X5, X11);     \
	MSG4(s8, s10, s12, s14, Y6, X6, X11);  \
	MSG4(s9, s11, s13, s15, Y7, X7, X11);  \
	G_VEC(Y4, Y5);                         \
	VPERMQ $0x39, Y1, Y1;                  \
	VPERMQ $0x4e, Y2, Y2;                  \
	VPERMQ $0x93, Y3, Y3;                  \
	G_VEC(Y6, Y7);                         \
	VPERMQ $0x93, Y1, Y1;                  \
	VPERMQ $0x4e, Y2, Y2;                  \
	VPERMQ $0x39, Y3, Y3

// func blake2fAVX2(out *[64]byte, in *[208]byte, rounds uint64, final uint64)
//
// in is the precompile input after the round count: h (64 bytes), m
// (128), t (16), all little-endian as amd64 loads them. final is 0 or
// all ones; it is xor'ed into v14.
TEXT ·blake2fAVX2(SB), NOSPLIT, $0-32
	MOVQ out+0(FP), DI
	MOVQ in+8(FP), SI
	MOVQ rounds+16(FP), CX
	MOVQ final+24(FP), AX

	VMOVDQU 0(SI), Y0
	VMOVDQU 32(SI), Y1
	VMOVDQU blake2fIV<>+0(SB), Y2
	// v12..v15 = IV[4..7] ^ (t0, t1, final, 0)
	VMOVDQU 192(SI), X3
	VMOVQ   AX, X4
	VINSERTI128 $1, X4, Y3, Y3
	VPXOR   blake2fIV<>+32(SB), Y3, Y3
	VMOVDQU blake2fRot16<>(SB), Y8
	VMOVDQU blake2fRot24<>(SB), Y9

	ADDQ $64, SI // SI = m
	TESTQ CX, CX
	JZ   done

loop:
	ROUND(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
	DECQ CX
	JZ   done
	ROUND(14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3)
	DECQ CX
	JZ   done
	ROUND(11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4)
	DECQ CX
	JZ   done
	ROUND(7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8)
	DECQ CX
	JZ   done
	ROUND(9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13)
	DECQ CX
	JZ   done
	ROUND(2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9)
	DECQ CX
	JZ   done
	ROUND(12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11)
	DECQ CX
	JZ   done
	ROUND(13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10)
	DECQ CX
	JZ   done
	ROUND(6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5)
	DECQ CX
	JZ   done
	ROUND(10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0)
	DECQ CX
	JNZ  loop

done:
	VPXOR   Y2, Y0, Y0
	VPXOR   Y3, Y1, Y1
	VPXOR   -64(SI), Y0, Y0
	VPXOR   -32(SI), Y1, Y1
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y1, 32(DI)
	VZEROUPPER
	RET

// func blake2fHasAVX2() bool
//
// AVX2 needs the CPUID feature bit and the OS saving the YMM state
// (OSXSAVE, and XCR0 bits 1 and 2).
TEXT ·blake2fHasAVX2(SB), NOSPLIT, $0-1
	XORL AX, AX
	XORL CX, CX
	CPUID
	CMPL AX, $7
	JLT  no
	MOVL $1, AX
	XORL CX, CX
	CPUID
	ANDL $0x18000000, CX // OSXSAVE | AVX
	CMPL CX, $0x18000000
	JNE  no
	XORL CX, CX
	XGETBV
	ANDL $6, AX
	CMPL AX, $6
	JNE  no
	MOVL $7, AX
	XORL CX, CX
	CPUID
	BTL  $5, BX
	JCC  no
	MOVB $1, ret+0(FP)
	RET
no:
	MOVB $0, ret+0(FP)
	RET
