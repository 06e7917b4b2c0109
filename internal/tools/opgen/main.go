// Command opgen writes the EVM's stack-only operations twice from one
// table: as the jump table's functions (evm/ops_gen.go, run by the traced
// loop and by anything the fast loop does not inline) and as the arms of
// the untraced interpreter loop's switch (the marked region of
// evm/interpreter.go), where they work on the loop's local stack height
// instead of through a call. Each operation's body is written once, over
// pointers to its operands, so the two can never disagree; the
// traced-vs-untraced fuzz target runs one against the other.
//
// Run with: go generate ./evm (with -check it only reports whether both
// files are up to date; internal/archtest runs that).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/chaind/chaind/internal/tools/genfile"
)

// op is one operation. args name its operands from the top of the stack
// down; drop is how many items it removes (the deepest named operand, when
// not dropped, is the result, overwritten in place). The body may return
// an error (the same in a function and in the loop) but never succeed
// early. $jump(dest) moves the program counter to the operand dest, or
// fails with ErrInvalidJump when no JUMPDEST is there.
type op struct {
	code string // the OpCode constant
	fn   string // the jump table's function
	args []string
	drop int
	body string
	// fork names the fork that introduced the opcode when it is not
	// Frontier's (the loop's decoder turns it into INVALID before; the
	// table's validation checks every other inlined one is Frontier's).
	fork string
	// inline runs the operation in the loop's switch; the others exist
	// only as functions (EXP, whose gas depends on its operands).
	inline bool
	// fused names the loop's pseudo-opcode for a PUSH of the first
	// operand followed by this operation, which the decoder writes as one
	// instruction with the jump destination resolved (only for jumps).
	fused string
}

var ops = []op{
	{code: "ADD", fn: "opAdd", args: a("x", "y"), drop: 1, body: "y.Add(x, y)", inline: true},
	{code: "MUL", fn: "opMul", args: a("x", "y"), drop: 1, body: "y.Mul(x, y)", inline: true},
	{code: "SUB", fn: "opSub", args: a("x", "y"), drop: 1, body: "y.Sub(x, y)", inline: true},
	{code: "DIV", fn: "opDiv", args: a("x", "y"), drop: 1, body: "y.Div(x, y)", inline: true},
	{code: "SDIV", fn: "opSdiv", args: a("x", "y"), drop: 1, body: "y.SDiv(x, y)", inline: true},
	{code: "MOD", fn: "opMod", args: a("x", "y"), drop: 1, body: "y.Mod(x, y)", inline: true},
	{code: "SMOD", fn: "opSmod", args: a("x", "y"), drop: 1, body: "y.SMod(x, y)", inline: true},
	{code: "ADDMOD", fn: "opAddmod", args: a("x", "y", "z"), drop: 2, body: "z.AddMod(x, y, z)", inline: true},
	{code: "MULMOD", fn: "opMulmod", args: a("x", "y", "z"), drop: 2, body: "z.MulMod(x, y, z)", inline: true},
	{code: "EXP", fn: "opExp", args: a("base", "exponent"), drop: 1, body: "exponent.Exp(base, exponent)"},
	{code: "SIGNEXTEND", fn: "opSignExtend", args: a("back", "num"), drop: 1, body: "num.ExtendSign(num, back)", inline: true},
	{code: "LT", fn: "opLt", args: a("x", "y"), drop: 1, body: "setBool(y, x.Lt(y))", inline: true},
	{code: "GT", fn: "opGt", args: a("x", "y"), drop: 1, body: "setBool(y, x.Gt(y))", inline: true},
	{code: "SLT", fn: "opSlt", args: a("x", "y"), drop: 1, body: "setBool(y, x.Slt(y))", inline: true},
	{code: "SGT", fn: "opSgt", args: a("x", "y"), drop: 1, body: "setBool(y, x.Sgt(y))", inline: true},
	{code: "EQ", fn: "opEq", args: a("x", "y"), drop: 1, body: "setBool(y, x.Eq(y))", inline: true},
	{code: "ISZERO", fn: "opIszero", args: a("x"), body: "setBool(x, x.IsZero())", inline: true},
	{code: "AND", fn: "opAnd", args: a("x", "y"), drop: 1, body: "y.And(x, y)", inline: true},
	{code: "OR", fn: "opOr", args: a("x", "y"), drop: 1, body: "y.Or(x, y)", inline: true},
	{code: "XOR", fn: "opXor", args: a("x", "y"), drop: 1, body: "y.Xor(x, y)", inline: true},
	{code: "NOT", fn: "opNot", args: a("x"), body: "x.Not(x)", inline: true},
	{code: "BYTE", fn: "opByte", args: a("th", "val"), drop: 1, body: "val.Byte(th)", inline: true},
	// EIP-145: the shift amount is on top.
	{code: "SHL", fn: "opSHL", args: a("shift", "value"), drop: 1, fork: "Constantinople", inline: true, body: `
		if shift.LtUint64(256) {
			value.Lsh(value, uint(shift.Uint64()))
		} else {
			value.Clear()
		}`},
	{code: "SHR", fn: "opSHR", args: a("shift", "value"), drop: 1, fork: "Constantinople", inline: true, body: `
		if shift.LtUint64(256) {
			value.Rsh(value, uint(shift.Uint64()))
		} else {
			value.Clear()
		}`},
	{code: "SAR", fn: "opSAR", args: a("shift", "value"), drop: 1, fork: "Constantinople", inline: true, body: `
		if shift.LtUint64(256) {
			value.SRsh(value, uint(shift.Uint64()))
		} else if value.Sign() >= 0 {
			value.Clear()
		} else {
			value.SetAllOne()
		}`},
	// EIP-7939: leading zero bits, 256 for zero.
	{code: "CLZ", fn: "opCLZ", args: a("x"), fork: "Osaka", inline: true, body: "x.SetUint64(uint64(256 - x.BitLen()))"},
	{code: "POP", fn: "opPop", drop: 1, inline: true},
	{code: "JUMPDEST", fn: "opJumpdest", inline: true},
	{code: "JUMP", fn: "opJump", args: a("dest"), drop: 1, inline: true, fused: "opPushJump", body: "$jump(dest)"},
	{code: "JUMPI", fn: "opJumpi", args: a("dest", "cond"), drop: 2, inline: true, fused: "opPushJumpi", body: `
		if !cond.IsZero() {
			$jump(dest)
		}`},
}

func a(names ...string) []string { return names }

// context is where a body is written: in a function over scope.Stack, or
// in the loop over its locals data and sp, running the program p.
type context struct {
	slot func(i int) string // the i'th item from the top, before the drop
	drop func(n int) string
	jump func(dest string) string
	// fused: the first operand was pushed by the PUSH fused with the
	// operation, so it is not on the stack (a jump's destination, which
	// the decoder resolved).
	fused bool
}

// cancelCheck follows every valid jump: every loop jumps, so checking
// there bounds how long Cancel waits.
const cancelCheck = `
		if evm.cancelled.Load() {
			return nil, ErrCancelled
		}`

var (
	inFunc = context{
		slot: func(i int) string { return fmt.Sprintf("&s.data[s.n-%d]", i+1) },
		drop: func(n int) string {
			if n == 1 {
				return "s.n--"
			}
			return fmt.Sprintf("s.n -= %d", n)
		},
		// The loop adds one after the function returns.
		jump: func(dest string) string {
			return "if !contract.validJumpdest(" + dest + ") {\nreturn nil, ErrInvalidJump\n}" + cancelCheck +
				"\n*pc = " + dest + ".Uint64() - 1"
		},
	}
	// In the loop a jump enters the block the JUMPDEST starts.
	inLoop = context{
		slot: func(i int) string { return fmt.Sprintf("&data[sp-%d]", i+1) },
		drop: func(n int) string {
			if n == 1 {
				return "sp--"
			}
			return fmt.Sprintf("sp -= %d", n)
		},
		jump: func(dest string) string {
			return "t := p.target(" + dest + ")\nif t < 0 {\nreturn nil, ErrInvalidJump\n}" + cancelCheck +
				"\nin = &p.ins[t]\n" + enterBlock
		},
	}
	// A fused PUSH and jump has its destination's instruction index in
	// in.arg (-1 when no JUMPDEST is there).
	inLoopFused = context{
		slot:  inLoop.slot,
		drop:  inLoop.drop,
		fused: true,
		jump: func(string) string {
			return "if int(in.arg) < 0 {\nreturn nil, ErrInvalidJump\n}" + cancelCheck +
				"\nin = &p.ins[in.arg]\n" + enterBlock
		},
	}
)

// enterBlock follows a jump in the loop: in is the opBlock of the block
// a JUMPDEST starts, whose entry is checked right there (see instr.enter).
const enterBlock = `if g, ok := in.enter(sp, gas); ok {
gas = g
in = in.next()
}
continue`

// expand writes o's operands, drop and body for c.
func (o op) expand(c context) string {
	var b strings.Builder
	args, drop := o.args, o.drop
	if c.fused {
		args, drop = args[1:], drop-1
	}
	if len(args) > 0 {
		slots := make([]string, len(args))
		for i := range args {
			slots[i] = c.slot(i)
		}
		fmt.Fprintf(&b, "%s := %s\n", strings.Join(args, ", "), strings.Join(slots, ", "))
	}
	if drop > 0 {
		b.WriteString(c.drop(drop) + "\n")
	}
	body := strings.TrimSpace(o.body)
	for {
		i := strings.Index(body, "$jump(")
		if i < 0 {
			break
		}
		end := strings.IndexByte(body[i:], '\n')
		if end < 0 {
			end = len(body) - i
		}
		call := body[i : i+end]
		dest := strings.TrimSuffix(strings.TrimPrefix(call, "$jump("), ")")
		body = body[:i] + c.jump(dest) + body[i+end:]
	}
	if body != "" {
		b.WriteString(body + "\n")
	}
	return b.String()
}

func (o op) check() error {
	if strings.Contains(o.body, "return nil, nil") {
		return fmt.Errorf("%s: a body must not end the frame early (in the loop it would end it for good)", o.code)
	}
	for _, arg := range o.args {
		if !strings.Contains(o.body, arg) {
			return fmt.Errorf("%s: operand %s is unused", o.code, arg)
		}
	}
	if n := len(o.args); o.drop != n && o.drop != n-1 && !(n == 0 && o.drop <= 1) {
		return fmt.Errorf("%s: drops %d of %d operands", o.code, o.drop, n)
	}
	if o.fused != "" && (!o.inline || len(o.args) == 0 || o.drop == 0 || !strings.Contains(o.body, "$jump("+o.args[0]+")") ||
		strings.Count(o.body, o.args[0]) != 1) {
		return fmt.Errorf("%s: only an inline jump whose first operand is only its destination can be fused with its PUSH", o.code)
	}
	return nil
}

const (
	beginMark = "// opgen:begin"
	endMark   = "// opgen:end"
)

func main() {
	out := flag.String("out", "ops_gen.go", "the functions' file")
	loop := flag.String("loop", "interpreter.go", "the file whose marked switch region gets the inline arms")
	flag.Parse()
	for _, o := range ops {
		if err := o.check(); err != nil {
			fmt.Fprintln(os.Stderr, "opgen:", err)
			os.Exit(1)
		}
	}
	genfile.Emit("opgen", *out, functions())

	src, err := os.ReadFile(*loop)
	if err != nil {
		fmt.Fprintln(os.Stderr, "opgen:", err)
		os.Exit(1)
	}
	i, j := bytes.Index(src, []byte(beginMark)), bytes.Index(src, []byte(endMark))
	if i < 0 || j < i {
		fmt.Fprintf(os.Stderr, "opgen: %s has no %q ... %q region\n", *loop, beginMark, endMark)
		os.Exit(1)
	}
	i += bytes.IndexByte(src[i:], '\n') + 1
	j = bytes.LastIndexByte(src[:j], '\n') + 1
	var b bytes.Buffer
	b.Write(src[:i])
	b.WriteString(arms())
	b.Write(src[j:])
	genfile.Emit("opgen", *loop, b.Bytes())
}

func functions() []byte {
	var b bytes.Buffer
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("// Code generated by internal/tools/opgen; DO NOT EDIT.\n\n")
	p("package evm\n\n")
	p("// The stack-only operations as the jump table runs them. The untraced\n")
	p("// loop runs the ones marked inline from the same bodies in its switch.\n\n")
	for _, o := range ops {
		p("func %s(pc *uint64, evm *EVM, scope *ScopeContext) ([]byte, error) {\n", o.fn)
		if len(o.args) > 0 || o.drop > 0 {
			p("s := scope.Stack\n")
		}
		body := o.expand(inFunc)
		if strings.Contains(body, "contract.") {
			p("contract := scope.Contract\n")
		}
		p("%sreturn nil, nil\n}\n\n", body)
	}
	p("// generatedOps are the operations above; jump table validation checks\n")
	p("// that every fork runs these functions for them, which the inline arms\n")
	p("// assume, and that the ungated arms are Frontier's.\n")
	p("var generatedOps = [...]struct {\n\top OpCode\n\texec executionFunc\n\tinline, gated bool\n}{\n")
	for _, o := range ops {
		p("{%s, %s, %v, %v},\n", o.code, o.fn, o.inline, o.fork != "")
	}
	p("}\n\n")
	p("// fusedOps are the loop's pseudo-opcodes for a PUSH followed by the\n")
	p("// operation: the decoder writes them, the loop runs them.\n")
	p("var fusedOps = [...]struct{ pseudo, op OpCode }{\n")
	for _, o := range ops {
		if o.fused != "" {
			p("{%s, %s},\n", o.fused, o.code)
		}
	}
	p("}\n")
	return b.Bytes()
}

func arms() string {
	var b strings.Builder
	// DUPn and SWAPn, one arm each so the offsets are constants (and the
	// switch stays dense enough for the compiler's jump table).
	for n := 1; n <= 16; n++ {
		fmt.Fprintf(&b, "case DUP1 + %d:\ndata[sp] = data[sp-%d]\nsp++\nin = in.next()\ncontinue\n", n-1, n)
	}
	for n := 1; n <= 16; n++ {
		fmt.Fprintf(&b, "case SWAP1 + %d:\n", n-1)
		b.WriteString("// Limb by limb: a whole-struct swap through two pointers\n// compiles to slow memory-to-memory copies.\n")
		fmt.Fprintf(&b, "top, other := &data[sp-1], &data[sp-%d]\n", n+1)
		for l := 0; l < 4; l++ {
			fmt.Fprintf(&b, "top[%d], other[%d] = other[%d], top[%d]\n", l, l, l, l)
		}
		b.WriteString("in = in.next()\ncontinue\n")
	}
	for _, o := range ops {
		if !o.inline {
			continue
		}
		fmt.Fprintf(&b, "case %s:\n", o.code)
		loopArm(&b, o.expand(inLoop))
		if o.fused != "" {
			fmt.Fprintf(&b, "case %s:\n// PUSH, then %s.\n", o.fused, o.code)
			loopArm(&b, o.expand(inLoopFused))
		}
	}
	return b.String()
}

// loopArm writes one arm's body and then, unless it jumped, moves on to
// the next instruction, past the loop's path for the table's operations.
func loopArm(b *strings.Builder, arm string) {
	b.WriteString(arm)
	if !strings.HasSuffix(strings.TrimSpace(arm), "continue") {
		b.WriteString("in = in.next()\ncontinue\n")
	}
}
