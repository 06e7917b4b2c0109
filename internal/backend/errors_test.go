package backend

import (
	"encoding/hex"
	"errors"
	"testing"
)

func TestRevertError(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
	}{
		{"empty", "", "execution reverted"},
		{"short", "08c379", "execution reverted"},
		{"error string", "08c379a0" +
			"0000000000000000000000000000000000000000000000000000000000000020" +
			"0000000000000000000000000000000000000000000000000000000000000003" +
			"6e6f700000000000000000000000000000000000000000000000000000000000", "execution reverted: nop"},
		{"error string past the end", "08c379a0" +
			"0000000000000000000000000000000000000000000000000000000000000020" +
			"00000000000000000000000000000000000000000000000000000000000000ff" +
			"6e6f700000000000000000000000000000000000000000000000000000000000", "execution reverted"},
		{"panic", "4e487b71" + "0000000000000000000000000000000000000000000000000000000000000011",
			"execution reverted: arithmetic underflow or overflow"},
		{"unknown panic", "4e487b71" + "00000000000000000000000000000000000000000000000000000000000000aa",
			"execution reverted: unknown panic code: 0xaa"},
		{"custom error", "deadbeef", "execution reverted"},
	} {
		data, _ := hex.DecodeString(tc.data)
		var err error = NewRevertError(data)
		var rev *RevertError
		if !errors.As(err, &rev) || string(rev.Data) != string(data) {
			t.Errorf("%s: data not kept", tc.name)
		}
		if err.Error() != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, err.Error(), tc.want)
		}
	}
}
