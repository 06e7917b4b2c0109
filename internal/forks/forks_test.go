package forks

import "testing"

func TestByName(t *testing.T) {
	for _, tc := range []struct {
		name string
		want Fork
		ok   bool
	}{
		{"Frontier", Frontier, true},
		{"EIP150", TangerineWhistle, true},
		{"EIP158", SpuriousDragon, true},
		{"ConstantinopleFix", Petersburg, true},
		{"Petersburg", Petersburg, true},
		{"Merge", Paris, true},
		{"paris", Paris, true},
		{"cancun", Cancun, true},
		{"Osaka", Osaka, true},
		{"Nope", 0, false},
		{"", 0, false},
	} {
		got, ok := ByName(tc.name)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("ByName(%q) = %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestStringRoundTrip(t *testing.T) {
	for f := Frontier; f < Count; f++ {
		if got, ok := ByName(f.String()); !ok || got != f {
			t.Errorf("ByName(%v.String()) = %v, %v", f, got, ok)
		}
	}
	if s := Fork(Count).String(); s != "Fork(15)" {
		t.Errorf("out of range fork prints %q", s)
	}
	if Latest != Count-1 {
		t.Errorf("Latest is %v, the last fork is %v", Latest, Fork(Count-1))
	}
}
