package pos

import (
	"encoding/json"
	"fmt"
	"net"
	"strconv"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/staking"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/holiman/uint256"
)

// The staking sections of development and test networks' genesis files
// (chaind --dev, devnets, chaind testnet, the tests): their validators,
// stakes and parameters, as GenesisAlloc then turns them into block 0.

// DevValidatorStake is what each dev validator has bonded at genesis:
// created with the chain, not taken from the dev accounts.
var DevValidatorStake = new(uint256.Int).Mul(uint256.NewInt(1_000), uint256.NewInt(1e18))

// DevParams are the network parameters of --dev and devnet chains: the
// defaults with periods short enough to watch in a test (a one-minute
// unbonding cooldown, one-minute deposit and voting periods).
func DevParams() staking.Params {
	p := staking.DefaultParams()
	p.RestakeCooldown = 60_000
	p.DepositPeriod = 60_000
	p.VotingPeriod = 60_000
	return p
}

// SetDevStaking gives a dev genesis its staking section: one validator per
// key, each with its own operator (the key's address, none of the dev
// accounts), the same stake and a 10% commission, at host:26656+i.
func SetDevStaking(g *chain.Genesis, keys []*secp256k1.PrivateKey, host string) error {
	if host == "" {
		host = "127.0.0.1"
	}
	addrs := make([]string, len(keys))
	for i := range keys {
		addrs[i] = net.JoinHostPort(host, strconv.Itoa(26656+i))
	}
	return SetTestStaking(g, keys, addrs)
}

// SetTestStaking gives a test network's genesis its staking section: one
// validator per key at the matching p2p address, as SetDevStaking, with
// the dev parameters.
func SetTestStaking(g *chain.Genesis, keys []*secp256k1.PrivateKey, netAddrs []string) error {
	if len(netAddrs) != len(keys) {
		return fmt.Errorf("staking genesis: %d keys but %d network addresses", len(keys), len(netAddrs))
	}
	p := DevParams()
	sg := staking.Genesis{Params: &p}
	tenPct := new(uint256.Int).Mul(uint256.NewInt(10), uint256.NewInt(1e16))
	for i, k := range keys {
		pub := crypto.PublicKey(k).SerializeCompressed()
		op, err := staking.ConsensusAddress(pub)
		if err != nil {
			return err
		}
		sg.Validators = append(sg.Validators, staking.GenesisValidator{
			Operator: op, Pubkey: pub, NetAddress: netAddrs[i],
			Moniker: fmt.Sprintf("dev-validator-%d", i), CommissionRate: tenPct, MaxRate: new(uint256.Int).Mul(tenPct, uint256.NewInt(5)),
			MaxChangeRate: new(uint256.Int).Div(tenPct, uint256.NewInt(10)), MinSelfDelegation: uint256.NewInt(1e18), Stake: DevValidatorStake,
		})
	}
	raw, err := json.Marshal(sg)
	if err != nil {
		return err
	}
	g.Staking = raw
	return nil
}

// SetStakingParams replaces the network parameters of g's staking section.
func SetStakingParams(g *chain.Genesis, p staking.Params) error {
	var sg staking.Genesis
	if err := json.Unmarshal(g.Staking, &sg); err != nil {
		return fmt.Errorf("staking genesis: %w", err)
	}
	sg.Params = &p
	raw, err := json.Marshal(sg)
	if err != nil {
		return err
	}
	g.Staking = raw
	return nil
}
