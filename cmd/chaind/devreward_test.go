package main

import (
	"encoding/json"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/crypto/hd"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/staking"
	"github.com/holiman/uint256"
)

// TestDevRewardsFromFirstBlock: a fresh --dev chain's supply after cycle 2
// is its genesis supply plus the documented reward (params.reward per
// nodeRewardInterval for the one dev validator) for the time its blocks
// span, not for the months between the fixed dev genesis date and now.
func TestDevRewardsFromFirstBlock(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a --dev node and waits for 30 blocks")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	os.Setenv(asChaindEnv, "1")
	defer os.Unsetenv(asChaindEnv)
	p, err := devload.Start(exe, "--dev", "--block-time", "200ms", "--http.port", "0", "--ws.port", "-1",
		"--rest.port", "0", "--grpc.port", "-1", "--cometrpc.port", "-1", "--explorer.port", "-1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(5 * time.Second) })
	rest := p.Addr("rest", 30*time.Second)
	if rest == "" {
		t.Fatalf("no REST listener logged:\n%s", p.Log())
	}

	// The genesis supply and reward parameters, as the node built them.
	dev, err := buildDev(devFlags{accounts: 10, balance: "10000", mnemonic: hd.DevMnemonic}, 0)
	if err != nil {
		t.Fatal(err)
	}
	alloc, err := pos.ForGenesis(dev.Genesis).GenesisAlloc(dev.Genesis)
	if err != nil {
		t.Fatal(err)
	}
	mem := staking.NewMemState()
	for a, acc := range alloc {
		mem.Storage[a] = acc.Storage
	}
	genesisSupply, params := staking.ReadSupply(mem).Total, staking.ReadParams(mem)

	// Cycle 2 ends at block 29; the supply then holds until block 39.
	c := devload.NewClient(p.URL)
	var supply *uint256.Int
	deadline := time.Now().Add(2 * time.Minute)
	for {
		n, err := c.BlockNumber()
		if err != nil {
			t.Fatal(err)
		}
		if n >= 29 {
			if n >= 39 {
				t.Fatalf("block %d already past cycle 3's end; supply no longer that of cycle 2", n)
			}
			supply = restSupply(t, rest)
			if n2, _ := c.BlockNumber(); n2 < 39 {
				break
			}
			t.Fatal("cycle 3 ended while the supply was read")
		}
		if time.Now().After(deadline) {
			t.Fatalf("block %d after 2 minutes:\n%s", n, p.Log())
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Rewards are paid at the last block of each cycle, for the time
	// since the previous payment: blocks 9, 19 and 29, from block 1.
	want := new(uint256.Int)
	prev := blockTime(t, c, 1)
	for _, n := range []uint64{9, 19, 29} {
		at := blockTime(t, c, n)
		r, _ := new(uint256.Int).MulDivOverflow(params.Reward, uint256.NewInt((at-prev)*1000), uint256.NewInt(params.NodeRewardInterval))
		want.Add(want, r)
		prev = at
	}
	got := new(uint256.Int).Sub(supply, genesisSupply)
	if !got.Eq(want) {
		t.Fatalf("supply grew by %s wei over cycles 0-2, want %s (reward %s wei per %d ms, blocks 1..29)", got.Dec(), want.Dec(), params.Reward.Dec(), params.NodeRewardInterval)
	}
	if !got.Lt(uint256.NewInt(1e18)) {
		t.Fatalf("supply grew by %s wei in 30 blocks: not well under 1 CHAIN", got.Dec())
	}
}

func blockTime(t *testing.T, c *devload.Client, n uint64) uint64 {
	t.Helper()
	b, err := c.Block(n)
	if err != nil {
		t.Fatal(err)
	}
	return uint64(b.Timestamp)
}

// restSupply reads the total supply in wei over REST.
func restSupply(t *testing.T, addr string) *uint256.Int {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/cosmos/bank/v1beta1/supply/by_denom?denom=achain")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Amount struct {
			Amount string `json:"amount"`
		} `json:"amount"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	v, err := uint256.FromDecimal(body.Amount.Amount)
	if err != nil {
		t.Fatalf("supply %q: %v", body.Amount.Amount, err)
	}
	return v
}
