package ethapi

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/holiman/uint256"
)

func TestCoins(t *testing.T) {
	for _, c := range []struct {
		wei  string
		want string
	}{
		{"0", "0"},
		{"7", "0.000000000000000007"},
		{"1000000000000000000", "1"},
		{"1500000000000000000", "1.5"},
		{"123456789000000000000000", "123456.789"},
		{"100000000000000000", "0.1"},
	} {
		if got := coins(uint256.MustFromDecimal(c.wei)); string(got) != c.want {
			t.Errorf("%s wei: %s, want %s", c.wei, got, c.want)
		}
	}
	if coins(nil) != "0" {
		t.Error("nil is not 0")
	}
}

// chain_getNetworkAccount keeps the real network's wire shapes: amounts
// hex wei without 0x, penalties fractions, intervals milliseconds, and
// numbers where that network has numbers (maintenanceFee included).
func TestNetworkAccountShapes(t *testing.T) {
	ten := uint256.MustFromDecimal("10000000000000000000")
	one := uint256.MustFromDecimal("1000000000000000000")
	a := backend.NetworkAccount{
		ActiveVersion: "1.2.0", LatestVersion: "1.3.0", MinVersion: "1.1.0", CertCycleDuration: 30,
		MaintenanceFee: uint256.NewInt(0), MaintenanceInterval: 24 * time.Hour,
		Penalty:  backend.Amount{Amount: ten, Currency: "CHAIN"},
		Slashing: backend.SlashingParams{LeftNetworkEarlyPenaltyPercent: 0.2, NodeRefutedPenaltyPercent: 0.2, SyncTimeoutPenaltyPercent: 0.05},
		Reward:   backend.Amount{Amount: one, Currency: "CHAIN"}, RewardInterval: time.Hour,
		RequiredStake: backend.Amount{Amount: ten, Currency: "CHAIN"}, RestakeCooldown: 30 * time.Minute,
		Timestamp: time.UnixMilli(1719612186585),
	}
	got, err := json.Marshal(renderNetworkAccount(a))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"activeVersion":"1.2.0","latestVersion":"1.3.0","minVersion":"1.1.0","certCycleDuration":30,"maintenanceFee":0,` +
		`"maintenanceInterval":86400000,"penalty":{"amount":"8ac7230489e80000","currency":"CHAIN"},` +
		`"slashing":{"leftNetworkEarlyPenaltyPercent":0.2,"nodeRefutedPenaltyPercent":0.2,"syncTimeoutPenaltyPercent":0.05},` +
		`"reward":{"amount":"de0b6b3a7640000","currency":"CHAIN","nodeRewardInterval":3600000},` +
		`"requiredStake":{"amount":"8ac7230489e80000","currency":"CHAIN"},"restakeCooldown":1800000,"timestamp":1719612186585}`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
