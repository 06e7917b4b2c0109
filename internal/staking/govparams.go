package staking

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/chaind/chaind/internal/version"
	"github.com/holiman/uint256"
)

// paramSetters are the parameters a governance proposal may change, by
// the names the network account reports them under. Values are decimal
// integers (wei, milliseconds, parts per million, counts) or, for the
// versions, major.minor.patch strings.
var paramSetters = map[string]func(p *Params, v string) error{
	"activeVersion":                  versionSetter(func(p *Params) *string { return &p.ActiveVersion }),
	"latestVersion":                  versionSetter(func(p *Params) *string { return &p.LatestVersion }),
	"minVersion":                     versionSetter(func(p *Params) *string { return &p.MinVersion }),
	"certCycleDuration":              u64Setter(func(p *Params) *uint64 { return &p.CertCycleDuration }),
	"maintenanceFee":                 weiSetter(func(p *Params) **uint256.Int { return &p.MaintenanceFee }),
	"maintenanceInterval":            u64Setter(func(p *Params) *uint64 { return &p.MaintenanceInterval }),
	"penalty":                        weiSetter(func(p *Params) **uint256.Int { return &p.Penalty }),
	"leftNetworkEarlyPenaltyPercent": u64Setter(func(p *Params) *uint64 { return &p.LeftNetworkEarlyPenalty }),
	"nodeRefutedPenaltyPercent":      u64Setter(func(p *Params) *uint64 { return &p.NodeRefutedPenalty }),
	"syncTimeoutPenaltyPercent":      u64Setter(func(p *Params) *uint64 { return &p.SyncTimeoutPenalty }),
	"reward":                         weiSetter(func(p *Params) **uint256.Int { return &p.Reward }),
	"nodeRewardInterval":             u64Setter(func(p *Params) *uint64 { return &p.NodeRewardInterval }),
	"requiredStake":                  weiSetter(func(p *Params) **uint256.Int { return &p.RequiredStake }),
	"restakeCooldown":                u64Setter(func(p *Params) *uint64 { return &p.RestakeCooldown }),
	"desired":                        u64Setter(func(p *Params) *uint64 { return &p.Desired }),
	"maxSyncTime":                    u64Setter(func(p *Params) *uint64 { return &p.MaxSyncTime }),
	"missedBlocksWindow":             u64Setter(func(p *Params) *uint64 { return &p.MissedBlocksWindow }),
	"maxMissedBlocks":                u64Setter(func(p *Params) *uint64 { return &p.MaxMissedBlocks }),
	"minDeposit":                     weiSetter(func(p *Params) **uint256.Int { return &p.MinDeposit }),
	"depositPeriod":                  u64Setter(func(p *Params) *uint64 { return &p.DepositPeriod }),
	"votingPeriod":                   u64Setter(func(p *Params) *uint64 { return &p.VotingPeriod }),
	"quorum":                         u64Setter(func(p *Params) *uint64 { return &p.Quorum }),
	"threshold":                      u64Setter(func(p *Params) *uint64 { return &p.Threshold }),
	"vetoThreshold":                  u64Setter(func(p *Params) *uint64 { return &p.VetoThreshold }),
	"cycleLength":                    u64Setter(func(p *Params) *uint64 { return &p.CycleLength }),
	"selectionOffset":                u64Setter(func(p *Params) *uint64 { return &p.SelectionOffset }),
}

// ParamNames lists the parameters governance can change.
func ParamNames() []string {
	out := make([]string, 0, len(paramSetters))
	for k := range paramSetters {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func versionSetter(field func(*Params) *string) func(*Params, string) error {
	return func(p *Params, v string) error {
		if _, err := version.Parse(v); err != nil {
			return err
		}
		*field(p) = v
		return nil
	}
}

func u64Setter(field func(*Params) *uint64) func(*Params, string) error {
	return func(p *Params, v string) error {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return fmt.Errorf("value %q is not a decimal integer", v)
		}
		*field(p) = n
		return nil
	}
}

func weiSetter(field func(*Params) **uint256.Int) func(*Params, string) error {
	return func(p *Params, v string) error {
		n, err := uint256.FromDecimal(v)
		if err != nil {
			return fmt.Errorf("value %q is not a decimal amount of wei", v)
		}
		*field(p) = n
		return nil
	}
}

// applyParamChange returns p with one parameter changed, checked.
func applyParamChange(p Params, name, value string) (Params, error) {
	set, ok := paramSetters[name]
	if !ok {
		return p, fmt.Errorf("unknown parameter %q", name)
	}
	if err := set(&p, value); err != nil {
		return p, err
	}
	if err := p.Check(); err != nil {
		return p, err
	}
	return p, nil
}
