// Package eventquery parses and matches the event queries of CometBFT's
// tx_search, block_search and subscribe and of the Cosmos tx service's
// GetTxsEvent: the subset clients use, conditions joined by AND, each
// "key op value" with op one of = < <= > >= CONTAINS EXISTS, values
// 'quoted strings' or numbers. A query is matched against an event's
// attributes as CometBFT matches it: a condition holds when any value of
// its key satisfies it.
package eventquery

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// maxQueryLen bounds a query, as CometBFT does.
const maxQueryLen = 512

// ErrQuery marks a query that cannot be parsed.
var ErrQuery = errors.New("invalid query")

type op uint8

const (
	opEq op = iota + 1
	opLt
	opLe
	opGt
	opGe
	opContains
	opExists
)

// cond is one condition of a query.
type cond struct {
	key string
	op  op
	// str is a quoted value; num/isNum a numeric one.
	str   string
	num   int64
	isNum bool
}

// Query is a parsed query: every condition must hold.
type Query struct {
	Text  string // as written
	conds []cond
}

// Parse parses a query string.
func Parse(s string) (*Query, error) {
	if len(s) > maxQueryLen {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrQuery, maxQueryLen)
	}
	q := &Query{Text: s}
	rest := strings.TrimSpace(s)
	if rest == "" {
		return nil, fmt.Errorf("%w: empty query", ErrQuery)
	}
	for {
		c, r, err := parseCond(rest)
		if err != nil {
			return nil, err
		}
		q.conds = append(q.conds, c)
		r = strings.TrimSpace(r)
		if r == "" {
			return q, nil
		}
		kw, after, ok := cutWord(r)
		if !ok || !strings.EqualFold(kw, "AND") {
			return nil, fmt.Errorf("%w: expected AND before %q (OR is not supported)", ErrQuery, trunc(r))
		}
		rest = strings.TrimSpace(after)
	}
}

// cutWord splits off a run of letters.
func cutWord(s string) (word, rest string, ok bool) {
	i := 0
	for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
		i++
	}
	return s[:i], s[i:], i > 0
}

func trunc(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

func isKeyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' || c == '/'
}

func parseCond(s string) (cond, string, error) {
	var c cond
	i := 0
	for i < len(s) && isKeyByte(s[i]) {
		i++
	}
	if i == 0 {
		return c, "", fmt.Errorf("%w: expected an event key at %q", ErrQuery, trunc(s))
	}
	c.key, s = s[:i], strings.TrimSpace(s[i:])
	switch {
	case strings.HasPrefix(s, "<="):
		c.op, s = opLe, s[2:]
	case strings.HasPrefix(s, ">="):
		c.op, s = opGe, s[2:]
	case strings.HasPrefix(s, "="):
		c.op, s = opEq, s[1:]
	case strings.HasPrefix(s, "<"):
		c.op, s = opLt, s[1:]
	case strings.HasPrefix(s, ">"):
		c.op, s = opGt, s[1:]
	default:
		kw, after, _ := cutWord(s)
		switch strings.ToUpper(kw) {
		case "CONTAINS":
			c.op, s = opContains, after
		case "EXISTS":
			c.op = opExists
			return c, after, nil
		default:
			return c, "", fmt.Errorf("%w: expected an operator after %q", ErrQuery, c.key)
		}
	}
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "'") {
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return c, "", fmt.Errorf("%w: unterminated string after %q", ErrQuery, c.key)
		}
		c.str = s[1 : 1+end]
		return c, s[2+end:], nil
	}
	if c.op == opContains {
		return c, "", fmt.Errorf("%w: CONTAINS takes a quoted string", ErrQuery)
	}
	j := 0
	for j < len(s) && (s[j] >= '0' && s[j] <= '9' || j == 0 && s[j] == '-') {
		j++
	}
	n, err := strconv.ParseInt(s[:j], 10, 64)
	if err != nil {
		return c, "", fmt.Errorf("%w: expected a 'string' or an integer after %q", ErrQuery, c.key)
	}
	c.num, c.isNum = n, true
	return c, s[j:], nil
}

// value is a condition's operand as written: numbers compare as numbers,
// strings as strings.
func (c cond) value() string {
	if c.isNum {
		return strconv.FormatInt(c.num, 10)
	}
	return c.str
}

// holds reports whether v, one value of the condition's key, satisfies it.
func (c cond) holds(v string) bool {
	switch c.op {
	case opExists:
		return true
	case opContains:
		return strings.Contains(v, c.str)
	case opEq:
		return v == c.value()
	}
	// Ordering compares numbers; a string operand of a number-valued key
	// ('5') counts as its number, as CometBFT reads it.
	want, err := strconv.ParseInt(c.value(), 10, 64)
	if err != nil {
		return false
	}
	got, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return false
	}
	switch c.op {
	case opLt:
		return got < want
	case opLe:
		return got <= want
	case opGt:
		return got > want
	case opGe:
		return got >= want
	}
	return false
}

// Matches reports whether events (key "type.attribute" to its values)
// satisfy every condition.
func (q *Query) Matches(events map[string][]string) bool {
	for _, c := range q.conds {
		ok := false
		for _, v := range events[c.key] {
			if c.holds(v) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// HeightRange narrows [lo, hi] by the conditions on key (a height).
func (q *Query) HeightRange(key string, lo, hi uint64) (uint64, uint64) {
	for _, c := range q.conds {
		if c.key != key {
			continue
		}
		n, err := strconv.ParseInt(c.value(), 10, 64)
		if err != nil {
			continue
		}
		if n < 0 {
			n = -1
		}
		switch c.op {
		case opEq:
			if n < 0 {
				return 1, 0
			}
			lo, hi = max(lo, uint64(n)), min(hi, uint64(n))
		case opGe:
			if n >= 0 {
				lo = max(lo, uint64(n))
			}
		case opGt:
			lo = max(lo, uint64(n+1))
		case opLe:
			if n < 0 {
				return 1, 0
			}
			hi = min(hi, uint64(n))
		case opLt:
			if n <= 0 {
				return 1, 0
			}
			hi = min(hi, uint64(n-1))
		}
	}
	return lo, hi
}

// Eq is the value a key is required to equal, if any.
func (q *Query) Eq(key string) (string, bool) {
	for _, c := range q.conds {
		if c.key == key && c.op == opEq {
			return c.value(), true
		}
	}
	return "", false
}

// Keys lists the keys the conditions name, in order.
func (q *Query) Keys() []string {
	out := make([]string, len(q.conds))
	for i, c := range q.conds {
		out[i] = c.key
	}
	return out
}
