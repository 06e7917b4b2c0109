package graphql

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Pos is a place in a query text, 1-based as GraphQL errors report it.
type Pos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

type tokenKind int

const (
	tokEOF tokenKind = iota
	tokPunct
	tokName
	tokInt
	tokFloat
	tokString
)

type token struct {
	kind tokenKind
	val  string // the punctuator, name, number text or decoded string
	pos  Pos
}

// lexer splits a GraphQL document into tokens. Commas, white space,
// comments and a byte order mark are insignificant and skipped.
type lexer struct {
	src       string
	off       int
	line, col int // of src[off]
	tokens    int // tokens read so far, bounded by maxTokens
	maxTokens int
}

// SyntaxError is a malformed document, with where the parser stopped.
type SyntaxError struct {
	Msg string
	Pos Pos
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("syntax error at %d:%d: %s", e.Pos.Line, e.Pos.Column, e.Msg)
}

func newLexer(src string, maxTokens int) *lexer {
	return &lexer{src: src, line: 1, col: 1, maxTokens: maxTokens}
}

func (l *lexer) errAt(p Pos, format string, args ...any) error {
	return &SyntaxError{Msg: fmt.Sprintf(format, args...), Pos: p}
}

func (l *lexer) advance(n int) {
	for i := 0; i < n; i++ {
		c := l.src[l.off]
		l.off++
		switch {
		case c == '\n':
			l.line, l.col = l.line+1, 1
		case c == '\r':
			if l.off < len(l.src) && l.src[l.off] == '\n' {
				continue // the \n ends the line
			}
			l.line, l.col = l.line+1, 1
		case c < 0x80 || c >= 0xC0: // count characters, not continuation bytes
			l.col++
		}
	}
}

func (l *lexer) pos() Pos { return Pos{l.line, l.col} }

// next returns the following token.
func (l *lexer) next() (token, error) {
	l.skipIgnored()
	p := l.pos()
	if l.off >= len(l.src) {
		return token{kind: tokEOF, pos: p}, nil
	}
	if l.maxTokens > 0 {
		if l.tokens++; l.tokens > l.maxTokens {
			return token{}, l.errAt(p, "document has more than %d tokens", l.maxTokens)
		}
	}
	c := l.src[l.off]
	switch {
	case strings.IndexByte("!$&()):=@[]{|}", c) >= 0:
		l.advance(1)
		return token{kind: tokPunct, val: string(c), pos: p}, nil
	case c == '.':
		if strings.HasPrefix(l.src[l.off:], "...") {
			l.advance(3)
			return token{kind: tokPunct, val: "...", pos: p}, nil
		}
		return token{}, l.errAt(p, `unexpected "."`)
	case c == '_' || isLetter(c):
		start := l.off
		for l.off < len(l.src) && isNameChar(l.src[l.off]) {
			l.advance(1)
		}
		return token{kind: tokName, val: l.src[start:l.off], pos: p}, nil
	case c == '-' || isDigit(c):
		return l.number(p)
	case c == '"':
		if strings.HasPrefix(l.src[l.off:], `"""`) {
			return l.blockString(p)
		}
		return l.str(p)
	}
	r, _ := utf8.DecodeRuneInString(l.src[l.off:])
	return token{}, l.errAt(p, "unexpected character %q", r)
}

func (l *lexer) skipIgnored() {
	for l.off < len(l.src) {
		c := l.src[l.off]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',':
			l.advance(1)
		case c == '#':
			for l.off < len(l.src) && l.src[l.off] != '\n' && l.src[l.off] != '\r' {
				l.advance(1)
			}
		case strings.HasPrefix(l.src[l.off:], "\uFEFF"):
			l.off += 3
		default:
			return
		}
	}
}

func isLetter(c byte) bool   { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool    { return c >= '0' && c <= '9' }
func isNameChar(c byte) bool { return c == '_' || isLetter(c) || isDigit(c) }

func (l *lexer) number(p Pos) (token, error) {
	start := l.off
	if l.src[l.off] == '-' {
		l.advance(1)
	}
	digits := func() int {
		n := 0
		for l.off < len(l.src) && isDigit(l.src[l.off]) {
			l.advance(1)
			n++
		}
		return n
	}
	intStart := l.off
	if digits() == 0 {
		return token{}, l.errAt(p, "invalid number")
	}
	if l.off-intStart > 1 && l.src[intStart] == '0' {
		return token{}, l.errAt(p, "invalid number: leading zero")
	}
	kind := tokInt
	if l.off < len(l.src) && l.src[l.off] == '.' {
		l.advance(1)
		if digits() == 0 {
			return token{}, l.errAt(p, "invalid number: no digits after the decimal point")
		}
		kind = tokFloat
	}
	if l.off < len(l.src) && (l.src[l.off] == 'e' || l.src[l.off] == 'E') {
		l.advance(1)
		if l.off < len(l.src) && (l.src[l.off] == '+' || l.src[l.off] == '-') {
			l.advance(1)
		}
		if digits() == 0 {
			return token{}, l.errAt(p, "invalid number: no exponent digits")
		}
		kind = tokFloat
	}
	if l.off < len(l.src) && (isNameChar(l.src[l.off]) || l.src[l.off] == '.') {
		return token{}, l.errAt(p, "invalid number: unexpected %q", l.src[l.off])
	}
	return token{kind: kind, val: l.src[start:l.off], pos: p}, nil
}

func (l *lexer) str(p Pos) (token, error) {
	l.advance(1)
	var b strings.Builder
	for {
		if l.off >= len(l.src) {
			return token{}, l.errAt(p, "unterminated string")
		}
		c := l.src[l.off]
		switch {
		case c == '"':
			l.advance(1)
			return token{kind: tokString, val: b.String(), pos: p}, nil
		case c == '\n' || c == '\r':
			return token{}, l.errAt(l.pos(), "unterminated string")
		case c == '\\':
			if l.off+1 >= len(l.src) {
				return token{}, l.errAt(p, "unterminated string")
			}
			e := l.src[l.off+1]
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				if l.off+6 > len(l.src) {
					return token{}, l.errAt(l.pos(), "invalid unicode escape")
				}
				v, err := strconv.ParseUint(l.src[l.off+2:l.off+6], 16, 16)
				if err != nil {
					return token{}, l.errAt(l.pos(), "invalid unicode escape")
				}
				b.WriteRune(rune(v))
				l.advance(4)
			default:
				return token{}, l.errAt(l.pos(), "invalid escape \\%c", e)
			}
			l.advance(2)
		default:
			r, size := utf8.DecodeRuneInString(l.src[l.off:])
			if r == utf8.RuneError && size == 1 {
				return token{}, l.errAt(l.pos(), "invalid UTF-8 in string")
			}
			b.WriteString(l.src[l.off : l.off+size])
			l.advance(size)
		}
	}
}

// blockString reads a """-delimited string and removes its common
// indentation, as the GraphQL specification describes.
func (l *lexer) blockString(p Pos) (token, error) {
	l.advance(3)
	var raw strings.Builder
	for {
		if l.off >= len(l.src) {
			return token{}, l.errAt(p, "unterminated block string")
		}
		if strings.HasPrefix(l.src[l.off:], `"""`) {
			l.advance(3)
			return token{kind: tokString, val: dedent(raw.String()), pos: p}, nil
		}
		if strings.HasPrefix(l.src[l.off:], `\"""`) {
			raw.WriteString(`"""`)
			l.advance(4)
			continue
		}
		raw.WriteByte(l.src[l.off])
		l.advance(1)
	}
}

func dedent(raw string) string {
	lines := strings.Split(strings.ReplaceAll(strings.ReplaceAll(raw, "\r\n", "\n"), "\r", "\n"), "\n")
	common := -1
	for i, ln := range lines {
		if i == 0 {
			continue
		}
		ind := len(ln) - len(strings.TrimLeft(ln, " \t"))
		if ind < len(ln) && (common < 0 || ind < common) {
			common = ind
		}
	}
	if common > 0 {
		for i := 1; i < len(lines); i++ {
			if len(lines[i]) >= common {
				lines[i] = lines[i][common:]
			} else {
				lines[i] = ""
			}
		}
	}
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}
