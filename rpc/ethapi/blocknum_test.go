package ethapi

import (
	"encoding/json"
	"testing"
)

func TestBlockRefDecodeOverDefault(t *testing.T) {
	for _, tc := range []struct {
		in   string
		tag  string
		num  uint64
		hash bool
	}{
		{`"0x35"`, "", 0x35, false},
		{`"earliest"`, "earliest", 0, false},
		{`{"blockNumber":"0x2"}`, "", 2, false},
		{`"0x0000000000000000000000000000000000000000000000000000000000000001"`, "", 0, true},
	} {
		ref := latestRef
		if err := json.Unmarshal([]byte(tc.in), &ref); err != nil {
			t.Fatal(err)
		}
		if ref.Tag != tc.tag || ref.Number != tc.num || (ref.Hash != nil) != tc.hash {
			t.Errorf("%s decoded over latest as %+v", tc.in, ref)
		}
	}
}
