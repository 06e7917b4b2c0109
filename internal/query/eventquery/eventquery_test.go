package eventquery

import (
	"errors"
	"strings"
	"testing"
)

func TestParseQuery(t *testing.T) {
	events := map[string][]string{"tm.event": {"Tx"}, "tx.height": {"7"}, "message.sender": {"chain1abc", "0xabc"}}
	cases := []struct {
		q     string
		match bool
		err   string
	}{
		{"tm.event='Tx'", true, ""},
		{"tm.event = 'Tx' AND tx.height = 7", true, ""},
		{"tm.event='Tx' and tx.height>=7 AND tx.height<8", true, ""},
		{"tx.height > 7", false, ""},
		{"tx.height <= '7'", true, ""},
		{"message.sender='0xabc'", true, ""},
		{"message.sender CONTAINS 'abc'", true, ""},
		{"message.sender EXISTS", true, ""},
		{"transfer.amount EXISTS", false, ""},
		{"tm.event='NewBlock'", false, ""},
		{"", false, "empty query"},
		{"tx.height = 7 OR tx.height = 8", false, "expected AND"},
		{"tx.height == 7", false, "expected a 'string' or an integer"},
		{"tx.height = 'open", false, "unterminated string"},
		{"= 5", false, "expected an event key"},
		{"tx.height ~ 5", false, "expected an operator"},
		{"a CONTAINS 5", false, "CONTAINS takes a quoted string"},
		{strings.Repeat("a", 600) + " EXISTS", false, "longer than"},
	}
	for _, tc := range cases {
		q, err := Parse(tc.q)
		if tc.err != "" {
			if err == nil || !errors.Is(err, ErrQuery) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.q, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.q, err)
			continue
		}
		if got := q.Matches(events); got != tc.match {
			t.Errorf("%q matches %v, want %v", tc.q, got, tc.match)
		}
	}
}

func TestHeightRange(t *testing.T) {
	cases := []struct {
		q      string
		lo, hi uint64
	}{
		{"tx.height>=3 AND tx.height<=4", 3, 4},
		{"tx.height>3", 4, 100},
		{"tx.height<3", 1, 2},
		{"tx.height=5", 5, 5},
		{"tx.height<0", 1, 0},
		{"tx.height=-1", 1, 0},
		{"tm.event='Tx'", 1, 100},
	}
	for _, tc := range cases {
		q, err := Parse(tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if lo, hi := q.HeightRange("tx.height", 1, 100); lo != tc.lo || hi != tc.hi {
			t.Errorf("%q: [%d, %d], want [%d, %d]", tc.q, lo, hi, tc.lo, tc.hi)
		}
	}
}

// tx_search picks its transactions from the index each query names and
// pages them; keys no index answers are refused with the list of those
// that are.

// Any text parses or is refused with ErrQuery, and a parsed query matches
// without panicking.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"tm.event='Tx'", "tx.height>=3 AND tx.height<=4", "a CONTAINS 'b'", "a EXISTS", "x = -1", "", "= '"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrQuery) {
				t.Fatalf("%q: %v is not ErrQuery", s, err)
			}
			return
		}
		q.Matches(map[string][]string{"tx.height": {"3"}, "a": {"b"}})
		q.HeightRange("tx.height", 1, 10)
		if len(q.Keys()) == 0 {
			t.Fatalf("%q parsed with no condition", s)
		}
	})
}
