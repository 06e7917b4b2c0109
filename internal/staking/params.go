package staking

import (
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// PPM is the denominator of the penalty and threshold fractions: they are
// kept in parts per million so the state holds integers only.
const PPM = 1_000_000

// Params are the network account: every parameter of the validator
// network, in the state so governance can change them.
type Params struct {
	ActiveVersion string `json:"activeVersion"`
	LatestVersion string `json:"latestVersion"`
	MinVersion    string `json:"minVersion"`

	CertCycleDuration   uint64       `json:"certCycleDuration"`   // cycles a certificate lasts
	MaintenanceFee      *uint256.Int `json:"maintenanceFee"`      // wei per MaintenanceInterval and active validator
	MaintenanceInterval uint64       `json:"maintenanceInterval"` // ms
	Penalty             *uint256.Int `json:"penalty"`             // wei

	LeftNetworkEarlyPenalty uint64 `json:"leftNetworkEarlyPenaltyPPM"` // parts per million of the stake
	NodeRefutedPenalty      uint64 `json:"nodeRefutedPenaltyPPM"`
	SyncTimeoutPenalty      uint64 `json:"syncTimeoutPenaltyPPM"`

	Reward             *uint256.Int `json:"reward"`             // wei per NodeRewardInterval and active validator
	NodeRewardInterval uint64       `json:"nodeRewardInterval"` // ms
	RequiredStake      *uint256.Int `json:"requiredStake"`      // wei a validator needs to be active or standby
	RestakeCooldown    uint64       `json:"restakeCooldown"`    // ms: the unbonding period and the minimum stay

	Desired     uint64 `json:"desired"`     // active validators wanted
	MaxSyncTime uint64 `json:"maxSyncTime"` // s
	// MissedBlocksWindow and MaxMissedBlocks: a validator that misses more
	// than MaxMissedBlocks of the last MissedBlocksWindow blocks it should
	// have signed is penalised by SyncTimeoutPenalty and jailed.
	MissedBlocksWindow uint64 `json:"missedBlocksWindow"`
	MaxMissedBlocks    uint64 `json:"maxMissedBlocks"`

	// CycleLength and SelectionOffset are the cycle rule (types.CycleRule):
	// blocks per cycle, and the block of each cycle (from 0) at whose end
	// the next cycle's validators are chosen. A change takes effect at the
	// first block of the next cycle (types.Cycles); a genesis naming
	// neither gets the spec's 10 and 5.
	CycleLength     uint64 `json:"cycleLength"`
	SelectionOffset uint64 `json:"selectionOffset"`

	// Governance.
	MinDeposit    *uint256.Int `json:"minDeposit"`    // wei a proposal needs to enter voting
	DepositPeriod uint64       `json:"depositPeriod"` // ms
	VotingPeriod  uint64       `json:"votingPeriod"`  // ms
	Quorum        uint64       `json:"quorum"`        // PPM of bonded stake that must vote
	Threshold     uint64       `json:"threshold"`     // PPM of non-abstain votes that must be yes
	VetoThreshold uint64       `json:"vetoThreshold"` // PPM of votes that vetoes

	// Timestamp is when the parameters last changed (ms).
	Timestamp uint64 `json:"timestamp"`
}

// Currency is the symbol of the chain's coin in the network account.
const Currency = "CHAIN"

var ether = uint256.NewInt(1e18)

func chain(n uint64) *uint256.Int { return new(uint256.Int).Mul(uint256.NewInt(n), ether) }

// GenesisVersion is the activeVersion, latestVersion and minVersion of a
// genesis that names none. It is a constant, not the release of the binary
// that writes the genesis: a genesis is data, and the same preset (the
// main and test networks name no parameters) must give the same block 0
// whichever build computes it, or nodes of two releases would refuse each
// other's genesis hash and every data directory would be refused by the
// next release. Governance moves a network's versions on (version
// proposals, upgrade plans); the binary's own version only has to be at
// least minVersion.
const GenesisVersion = "1.0.0"

// DefaultParams are the parameters of a genesis that names none.
func DefaultParams() Params {
	v := GenesisVersion
	return Params{
		ActiveVersion: v, LatestVersion: v, MinVersion: v,
		CertCycleDuration: 30,
		MaintenanceFee:    new(uint256.Int), MaintenanceInterval: 86_400_000,
		Penalty:                 chain(10),
		LeftNetworkEarlyPenalty: 200_000, NodeRefutedPenalty: 200_000, SyncTimeoutPenalty: 200_000,
		Reward: chain(1), NodeRewardInterval: 3_600_000,
		RequiredStake:   chain(10),
		RestakeCooldown: 1_800_000,
		Desired:         100, MaxSyncTime: 1200,
		MissedBlocksWindow: 100, MaxMissedBlocks: 50,
		CycleLength: types.DefaultCycleRule.Length, SelectionOffset: types.DefaultCycleRule.Selection,
		MinDeposit: chain(10), DepositPeriod: 172_800_000, VotingPeriod: 172_800_000,
		Quorum: 334_000, Threshold: 500_000, VetoThreshold: 334_000,
	}
}

// Check rejects parameters the rules cannot run with.
func (p *Params) Check() error {
	switch {
	case p.MaintenanceFee == nil || p.Penalty == nil || p.Reward == nil || p.RequiredStake == nil || p.MinDeposit == nil:
		return errors.New("params: an amount is missing")
	case p.RequiredStake.IsZero():
		return errors.New("params: requiredStake must be positive")
	case p.NodeRewardInterval == 0 || p.MaintenanceInterval == 0:
		return errors.New("params: intervals must be positive")
	case p.Desired == 0:
		return errors.New("params: desired must be at least 1")
	case p.LeftNetworkEarlyPenalty > PPM || p.NodeRefutedPenalty > PPM || p.SyncTimeoutPenalty > PPM:
		return fmt.Errorf("params: penalties are at most %d ppm", PPM)
	case p.Quorum > PPM || p.Threshold > PPM || p.VetoThreshold > PPM:
		return fmt.Errorf("params: governance fractions are at most %d ppm", PPM)
	case p.MaxMissedBlocks > p.MissedBlocksWindow:
		return errors.New("params: maxMissedBlocks exceeds missedBlocksWindow")
	case p.CycleRule().Check() != nil:
		return fmt.Errorf("params: %w", p.CycleRule().Check())
	case len(p.ActiveVersion) > 64 || len(p.LatestVersion) > 64 || len(p.MinVersion) > 64:
		return errors.New("params: versions are at most 64 bytes")
	}
	return nil
}

// CycleRule is the cycle rule the parameters name.
func (p *Params) CycleRule() types.CycleRule {
	return types.CycleRule{Length: p.CycleLength, Selection: p.SelectionOffset}
}

// Parameter field slots of the params record.
const (
	pActiveVersion = iota
	pLatestVersion
	pMinVersion
	pCertCycleDuration
	pMaintenanceFee
	pMaintenanceInterval
	pPenalty
	pLeftEarly
	pRefuted
	pSyncTimeout
	pReward
	pRewardInterval
	pRequiredStake
	pRestakeCooldown
	pDesired
	pMaxSyncTime
	pMissedWindow
	pMaxMissed
	pMinDeposit
	pDepositPeriod
	pVotingPeriod
	pQuorum
	pThreshold
	pVetoThreshold
	pTimestamp
	pCycleLength
	pSelectionOffset
)

func paramsRec() slot { return rec(StakingAddress, "params") }

// ReadParams returns the parameters in the state.
func ReadParams(st State) Params {
	s, r := store{st}, paramsRec()
	return Params{
		ActiveVersion: s.str(r.field(pActiveVersion)), LatestVersion: s.str(r.field(pLatestVersion)), MinVersion: s.str(r.field(pMinVersion)),
		CertCycleDuration: s.u64(r.field(pCertCycleDuration)),
		MaintenanceFee:    s.u256(r.field(pMaintenanceFee)), MaintenanceInterval: s.u64(r.field(pMaintenanceInterval)),
		Penalty:                 s.u256(r.field(pPenalty)),
		LeftNetworkEarlyPenalty: s.u64(r.field(pLeftEarly)), NodeRefutedPenalty: s.u64(r.field(pRefuted)), SyncTimeoutPenalty: s.u64(r.field(pSyncTimeout)),
		Reward: s.u256(r.field(pReward)), NodeRewardInterval: s.u64(r.field(pRewardInterval)),
		RequiredStake: s.u256(r.field(pRequiredStake)), RestakeCooldown: s.u64(r.field(pRestakeCooldown)),
		Desired: s.u64(r.field(pDesired)), MaxSyncTime: s.u64(r.field(pMaxSyncTime)),
		MissedBlocksWindow: s.u64(r.field(pMissedWindow)), MaxMissedBlocks: s.u64(r.field(pMaxMissed)),
		MinDeposit: s.u256(r.field(pMinDeposit)), DepositPeriod: s.u64(r.field(pDepositPeriod)), VotingPeriod: s.u64(r.field(pVotingPeriod)),
		Quorum: s.u64(r.field(pQuorum)), Threshold: s.u64(r.field(pThreshold)), VetoThreshold: s.u64(r.field(pVetoThreshold)),
		Timestamp:   s.u64(r.field(pTimestamp)),
		CycleLength: s.u64(r.field(pCycleLength)), SelectionOffset: s.u64(r.field(pSelectionOffset)),
	}
}

// writeParams stores p.
func writeParams(st State, p *Params) {
	s, r := store{st}, paramsRec()
	s.setBytes(r.field(pActiveVersion), []byte(p.ActiveVersion))
	s.setBytes(r.field(pLatestVersion), []byte(p.LatestVersion))
	s.setBytes(r.field(pMinVersion), []byte(p.MinVersion))
	s.setU64(r.field(pCertCycleDuration), p.CertCycleDuration)
	s.setU256(r.field(pMaintenanceFee), p.MaintenanceFee)
	s.setU64(r.field(pMaintenanceInterval), p.MaintenanceInterval)
	s.setU256(r.field(pPenalty), p.Penalty)
	s.setU64(r.field(pLeftEarly), p.LeftNetworkEarlyPenalty)
	s.setU64(r.field(pRefuted), p.NodeRefutedPenalty)
	s.setU64(r.field(pSyncTimeout), p.SyncTimeoutPenalty)
	s.setU256(r.field(pReward), p.Reward)
	s.setU64(r.field(pRewardInterval), p.NodeRewardInterval)
	s.setU256(r.field(pRequiredStake), p.RequiredStake)
	s.setU64(r.field(pRestakeCooldown), p.RestakeCooldown)
	s.setU64(r.field(pDesired), p.Desired)
	s.setU64(r.field(pMaxSyncTime), p.MaxSyncTime)
	s.setU64(r.field(pMissedWindow), p.MissedBlocksWindow)
	s.setU64(r.field(pMaxMissed), p.MaxMissedBlocks)
	s.setU256(r.field(pMinDeposit), p.MinDeposit)
	s.setU64(r.field(pDepositPeriod), p.DepositPeriod)
	s.setU64(r.field(pVotingPeriod), p.VotingPeriod)
	s.setU64(r.field(pQuorum), p.Quorum)
	s.setU64(r.field(pThreshold), p.Threshold)
	s.setU64(r.field(pVetoThreshold), p.VetoThreshold)
	s.setU64(r.field(pTimestamp), p.Timestamp)
	s.setU64(r.field(pCycleLength), p.CycleLength)
	s.setU64(r.field(pSelectionOffset), p.SelectionOffset)
}
