package chain

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
)

// ErrMissingSystemContract is returned by Open for a chain whose fork
// schedule needs a system contract its state lacks: its blocks could not
// be built or imported (EIP-7002/7251 request collection fails without
// code), so the node refuses to start instead of stalling at the fork.
var ErrMissingSystemContract = errors.New("chain config needs a system contract the state lacks")

// SystemContract is a contract a fork's block processing calls, with the
// runtime code its EIP publishes (checked against the conformance vectors'
// pre-states in syscontracts_test.go).
type SystemContract struct {
	Name    string
	Address types.Address
	Fork    forks.Fork // the fork whose blocks call it
	// Required: a block of Fork cannot be processed without its code.
	// EIP-4788 lets a chain run without the beacon-roots contract (the call
	// is skipped), so it is predeployed on dev chains but not demanded.
	Required bool
	Code     []byte
}

// SystemContracts lists the system contracts, oldest fork first.
var SystemContracts = []SystemContract{
	{"EIP-4788 beacon roots", BeaconRootsAddress, forks.Cancun, false, mustHex("3373fffffffffffffffffffffffffffffffffffffffe14604d57602036146024575f5ffd5b5f35801560495762001fff810690815414603c575f5ffd5b62001fff01545f5260205ff35b5f5ffd5b62001fff42064281555f359062001fff015500")},
	{"EIP-2935 block hash history", HistoryStorageAddress, forks.Prague, true, mustHex("3373fffffffffffffffffffffffffffffffffffffffe14604657602036036042575f35600143038111604257611fff81430311604257611fff9006545f5260205ff35b5f5ffd5b5f35611fff60014303065500")},
	{"EIP-7002 withdrawal request queue", WithdrawalQueue, forks.Prague, true, mustHex("3373fffffffffffffffffffffffffffffffffffffffe1460cb5760115f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff146101f457600182026001905f5b5f82111560685781019083028483029004916001019190604d565b909390049250505036603814608857366101f457346101f4575f5260205ff35b34106101f457600154600101600155600354806003026004013381556001015f35815560010160203590553360601b5f5260385f601437604c5fa0600101600355005b6003546002548082038060101160df575060105b5f5b8181146101835782810160030260040181604c02815460601b8152601401816001015481526020019060020154807fffffffffffffffffffffffffffffffff00000000000000000000000000000000168252906010019060401c908160381c81600701538160301c81600601538160281c81600501538160201c81600401538160181c81600301538160101c81600201538160081c81600101535360010160e1565b910180921461019557906002556101a0565b90505f6002555f6003555b5f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff14156101cd57505f5b6001546002828201116101e25750505f6101e8565b01600290035b5f555f600155604c025ff35b5f5ffd")},
	{"EIP-7251 consolidation request queue", ConsolidationQueue, forks.Prague, true, mustHex("3373fffffffffffffffffffffffffffffffffffffffe1460d35760115f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff1461019a57600182026001905f5b5f82111560685781019083028483029004916001019190604d565b9093900492505050366060146088573661019a573461019a575f5260205ff35b341061019a57600154600101600155600354806004026004013381556001015f358155600101602035815560010160403590553360601b5f5260605f60143760745fa0600101600355005b6003546002548082038060021160e7575060025b5f5b8181146101295782810160040260040181607402815460601b815260140181600101548152602001816002015481526020019060030154905260010160e9565b910180921461013b5790600255610146565b90505f6002555f6003555b5f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff141561017357505f5b6001546001828201116101885750505f61018e565b01600190035b5f555f6001556074025ff35b5f5ffd")},
}

// AddSystemContracts puts the system contracts that fork uses into a, as
// their EIPs deploy them (nonce 1, no balance): a genesis for a chain that
// starts at fork runs from block 1.
func AddSystemContracts(a Alloc, fork forks.Fork) {
	for _, sc := range SystemContracts {
		if fork >= sc.Fork {
			a[sc.Address] = Account{Nonce: 1, Code: sc.Code}
		}
	}
}

// latestScheduled is the newest fork the config schedules at any block or
// time (a fork still to come included).
func (c *Config) latestScheduled() forks.Fork {
	return c.Fork(^uint64(0), ^uint64(0))
}

// checkSystemContracts refuses a chain whose schedule reaches a fork that
// needs a system contract absent from the state at the head: the first
// block of that fork would fail and the chain stall there. Contracts are
// predeployed in the genesis allocation (chaind dev-genesis --hardfork
// writes them).
func (c *Config) checkSystemContracts(codeSize func(types.Address) int) error {
	latest := c.latestScheduled()
	for _, sc := range SystemContracts {
		if sc.Required && latest >= sc.Fork && codeSize(sc.Address) == 0 {
			return fmt.Errorf("%w: %s is scheduled but there is no code at %s (%s); add it to the genesis alloc (chaind dev-genesis --hardfork %s writes it)",
				ErrMissingSystemContract, sc.Fork, sc.Address.Hex(), sc.Name, strings.ToLower(sc.Fork.String()))
		}
	}
	return nil
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// SetHardfork makes fork the newest one active from genesis on a config
// whose time-scheduled forks through Cancun are at 0 (AllForks): Prague
// and Osaka are switched on at time 0 or off. Forks before Cancun are
// refused, as no chain of chaind's runs them.
func (c *Config) SetHardfork(fork forks.Fork) error {
	if fork < forks.Cancun || fork > forks.Osaka {
		return fmt.Errorf("hardfork %s: want cancun, prague or osaka", fork)
	}
	c.PragueTime, c.OsakaTime = nil, nil
	if fork >= forks.Prague {
		c.PragueTime = u64(0)
	}
	if fork >= forks.Osaka {
		c.OsakaTime = u64(0)
	}
	return nil
}
