package version

import (
	"errors"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
		err  bool
	}{
		{"1.2.3", "1.2.3", false},
		{"v1.2.3", "1.2.3", false},
		{"0.1.0-dev", "0.1.0", false},
		{"1.14.2+abc", "1.14.2", false},
		{"1.2", "", true},
		{"1.2.x", "", true},
		{"01.2.3", "", true},
		{"", "", true},
		{"1.2.3.4", "", true},
	} {
		v, err := Parse(c.in)
		if (err != nil) != c.err || (err == nil && v.String() != c.want) {
			t.Errorf("Parse(%q) = %v, %v", c.in, v, err)
		}
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("Parse(%q): error %v is not ErrInvalid", c.in, err)
		}
	}
}

func TestBelow(t *testing.T) {
	for _, c := range []struct {
		have, want string
		below      bool
	}{
		{"1.2.3", "1.2.3", false},
		{"1.2.3", "1.2.4", true},
		{"1.10.0", "1.9.9", false},
		{"1.9.9", "1.10.0", true},
		{"2.0.0", "1.99.99", false},
		{"1.3.0-dev", "1.3.0", false},
		{"0.1.0-dev", "1.0.0", true},
		{"1.0.0", "", false},
		{"1.0.0", "garbage", true},
		{"garbage", "1.0.0", true},
	} {
		if got := Below(c.have, c.want); got != c.below {
			t.Errorf("Below(%q, %q) = %v", c.have, c.want, got)
		}
	}
}
