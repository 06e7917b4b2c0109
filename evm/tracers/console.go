package tracers

//go:generate go run github.com/chaind/chaind/internal/tools/consolegen -out console_sigs.go

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"strings"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// ConsoleAddress is where console.sol and console2.sol send their calls
// ("console.log" in ASCII): no code lives there, the call only exists to
// be seen by the node.
var ConsoleAddress = types.Address{9: 0x63, 10: 0x6f, 11: 0x6e, 12: 0x73, 13: 0x6f, 14: 0x6c, 15: 0x65, 16: 0x2e, 17: 0x6c, 18: 0x6f, 19: 0x67}

func init() {
	register(ConsoleTracerName, func(ctx *Context, _ json.RawMessage) (evm.Tracer, error) {
		return &Console{budget: ctx.Budget}, nil
	})
}

// ConsoleTracerName is the console tracer's name: chaind's own, not one of
// go-ethereum's. Its result is the transaction's console.log lines, a JSON
// array of strings.
const ConsoleTracerName = "consoleTracer"

// Console collects the lines a transaction or call prints with
// console.log: every call to ConsoleAddress whose input decodes, in the
// order made, also in frames that later revert (as Hardhat and anvil
// print them). It only observes frames, so it changes neither gas nor
// state.
type Console struct {
	budget *Budget // nil: unbounded
	Lines  []string
}

// Hooks implements evm.Tracer.
func (c *Console) Hooks() *evm.Hooks {
	return &evm.Hooks{OnEnter: func(_ int, typ byte, _, to types.Address, input []byte, _ uint64, _ *uint256.Int) {
		if to != ConsoleAddress || typ == evm.FrameCreate || typ == evm.FrameCreate2 {
			return
		}
		line, err := DecodeConsole(input)
		if err != nil {
			return
		}
		if c.budget != nil && !c.budget.Spend(len(line)+4) {
			return
		}
		c.Lines = append(c.Lines, line)
	}}
}

// Result implements evm.Tracer.
func (c *Console) Result() (json.RawMessage, error) {
	if c.Lines == nil {
		return json.RawMessage("[]"), nil
	}
	return json.Marshal(c.Lines)
}

// Errors of DecodeConsole, testable with errors.Is.
var (
	ErrConsoleSelector = errors.New("console: unknown selector")
	ErrConsoleArgs     = errors.New("console: malformed arguments")
)

// DecodeConsole turns the input of a call to the console address into the
// line console.log prints: the arguments ABI-decoded by the function's
// signature and formatted as Hardhat and forge do (a first string argument
// is a format: %s, %d, %i, %o, %x and %e take the next argument in turn,
// %% is a percent sign; arguments left over follow, space separated).
func DecodeConsole(input []byte) (string, error) {
	if len(input) < 4 {
		return "", ErrConsoleSelector
	}
	sig, ok := consoleSigs[[4]byte(input[:4])]
	if !ok {
		return "", ErrConsoleSelector
	}
	params := consoleParams(sig)
	args := make([]consoleArg, len(params))
	data := input[4:]
	for i, typ := range params {
		a, err := decodeConsoleArg(data, i, typ)
		if err != nil {
			return "", err
		}
		args[i] = a
	}
	return formatConsole(args), nil
}

// consoleParams are the parameter types of a canonical signature.
func consoleParams(sig string) []string {
	inner := sig[strings.IndexByte(sig, '(')+1 : len(sig)-1]
	if inner == "" {
		return nil
	}
	return strings.Split(inner, ",")
}

// consoleArg is one decoded argument: its type and its value as printed.
type consoleArg struct {
	typ   string
	text  string
	value *big.Int // integers, for %x and %e
}

// decodeConsoleArg reads argument i of type typ from the ABI-encoded data.
func decodeConsoleArg(data []byte, i int, typ string) (consoleArg, error) {
	word, ok := abiWord(data, uint64(i)*32)
	if !ok {
		return consoleArg{}, ErrConsoleArgs
	}
	a := consoleArg{typ: typ}
	switch {
	case typ == "uint256":
		a.value = new(big.Int).SetBytes(word)
		a.text = a.value.String()
	case typ == "int256":
		a.value = new(big.Int).SetBytes(word)
		if word[0]&0x80 != 0 {
			a.value.Sub(a.value, new(big.Int).Lsh(big.NewInt(1), 256))
		}
		a.text = a.value.String()
	case typ == "bool":
		a.text = "false"
		if word[31] != 0 {
			a.text = "true"
		}
	case typ == "address":
		a.text = types.BytesToAddress(word[12:]).Hex()
	case typ == "string" || typ == "bytes":
		b, err := abiDynamic(data, word)
		if err != nil {
			return consoleArg{}, err
		}
		if typ == "string" {
			a.text = strings.ToValidUTF8(string(b), "\uFFFD")
		} else {
			a.text = "0x" + hex.EncodeToString(b)
		}
	case strings.HasPrefix(typ, "bytes"): // bytes1 to bytes32: left-aligned
		n := 0
		for _, c := range typ[len("bytes"):] {
			n = n*10 + int(c-'0')
		}
		a.text = "0x" + hex.EncodeToString(word[:n])
	default:
		return consoleArg{}, ErrConsoleArgs
	}
	return a, nil
}

// abiWord is the 32-byte word at off, if data holds it.
func abiWord(data []byte, off uint64) ([]byte, bool) {
	if off > uint64(len(data)) || uint64(len(data))-off < 32 {
		return nil, false
	}
	return data[off : off+32], true
}

// abiDynamic reads the bytes a head word points to: a length word at that
// offset, then the bytes.
func abiDynamic(data, head []byte) ([]byte, error) {
	off, ok := wordUint(head)
	if !ok {
		return nil, ErrConsoleArgs
	}
	lw, ok := abiWord(data, off)
	if !ok {
		return nil, ErrConsoleArgs
	}
	n, ok := wordUint(lw)
	if !ok || n > uint64(len(data))-off-32 {
		return nil, ErrConsoleArgs
	}
	return data[off+32 : off+32+n], nil
}

// wordUint is a word as a uint64, false when it does not fit.
func wordUint(w []byte) (uint64, bool) {
	var v uint256.Int
	v.SetBytes(w)
	if !v.IsUint64() {
		return 0, false
	}
	return v.Uint64(), true
}

// formatConsole prints the arguments as console.log does.
func formatConsole(args []consoleArg) string {
	var b strings.Builder
	rest := args
	if len(args) > 0 && args[0].typ == "string" {
		rest = args[1:]
		f := args[0].text
		for i := 0; i < len(f); i++ {
			if f[i] != '%' || i+1 == len(f) {
				b.WriteByte(f[i])
				continue
			}
			verb := f[i+1]
			if verb == '%' {
				b.WriteByte('%')
				i++
				continue
			}
			if !strings.ContainsRune("sdioxe", rune(verb)) || len(rest) == 0 {
				b.WriteByte('%')
				continue
			}
			b.WriteString(formatVerb(verb, rest[0]))
			rest = rest[1:]
			i++
		}
	}
	for _, a := range rest {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(a.text)
	}
	return b.String()
}

// formatVerb prints one argument for a format verb; a verb that does not
// apply to the argument's type prints it as %s would.
func formatVerb(verb byte, a consoleArg) string {
	if a.value == nil {
		return a.text
	}
	switch verb {
	case 'x':
		v := a.value
		if v.Sign() < 0 { // two's complement, as a word
			v = new(big.Int).Add(v, new(big.Int).Lsh(big.NewInt(1), 256))
		}
		return "0x" + v.Text(16)
	case 'e':
		return sciNotation(a.value)
	}
	return a.text
}

// sciNotation prints an integer as forge's %e does: the digits with a
// decimal point after the first, trailing zeros dropped, then e and the
// exponent (1230 -> 1.23e3).
func sciNotation(v *big.Int) string {
	s := v.String()
	sign := ""
	if s[0] == '-' {
		sign, s = "-", s[1:]
	}
	exp := len(s) - 1
	mant := strings.TrimRight(s[1:], "0")
	if mant != "" {
		mant = "." + mant
	}
	return sign + s[:1] + mant + "e" + itoa(exp)
}

func itoa(n int) string { return big.NewInt(int64(n)).String() }
