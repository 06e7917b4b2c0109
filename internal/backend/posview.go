package backend

import (
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// The reads below serve the explorer of a proof-of-stake chain beside
// Staking and Governance: who signed each block, the penalties each
// validator paid, and the system contracts' ABI, so calls and events are
// decoded by name without the interface packages importing the staking
// rules.

// Signing reads what the chain records about consensus.
type Signing interface {
	// BlockSigning tells who proposed block num and which members of its
	// validator set signed it. A block's signatures are recorded by the
	// block after it, so the head's are not known yet (Recorded false);
	// ErrNotFound for a block past the head; ErrStakingDisabled on a
	// chain without validators.
	BlockSigning(num uint64) (*BlockSigning, error)
	// Uptime is every validator's signing record over the last window
	// blocks whose signatures are recorded (those up to the head's
	// parent; window 0 means the chain's missedBlocksWindow, and at most
	// MaxUptimeWindow are read): the uptime an explorer shows and the
	// record the liveness penalties count. A block counts a validator as
	// signed when its precommit for the block is in the certificate the
	// next block commits to, which holds every precommit that reached
	// that block's proposer before it built, not only the quorum's.
	Uptime(window uint64) (*Uptime, error)
	// SlashEvents lists the penalties validator operator paid, oldest
	// first, as the state of height (nil: the head) records them.
	SlashEvents(height *uint64, operator types.Address) ([]SlashEvent, error)
	// SystemContracts describes the chain's system contracts (none on a
	// chain without staking).
	SystemContracts() []SystemContract
	// TimeMs is a block's time in Unix milliseconds: what its consensus
	// data records, else its timestamp's seconds (pos.CheckTime).
	TimeMs(h *types.Header) uint64
}

// BlockSigning is one block's proposer and its validator set's signatures.
type BlockSigning struct {
	Number   uint64
	Hash     types.Hash    // the block's, so a reader can tell a rewound chain's
	Proposer types.Address // operator of the validator that proposed it
	// Recorded tells whether the block's signatures are recorded yet (by
	// its successor); without it Signed is false for every member.
	Recorded bool
	Members  []BlockSigner // the height's validator set, in set order
}

// MaxUptimeWindow bounds the blocks one Uptime call reads.
const MaxUptimeWindow = 1000

// Uptime is the signing record of blocks From..To (To is the head's
// parent), per validator that was in the set of any of them, in order of
// first appearance.
type Uptime struct {
	From, To   uint64
	Validators []ValidatorUptime
}

// ValidatorUptime is one validator's record over an Uptime's blocks:
// Blocks[i] is block From+i, 's' signed, 'm' missed, '-' not in the set.
type ValidatorUptime struct {
	Operator, Consensus types.Address
	Signed, Missed      uint64
	Blocks              string
}

// BlockSigner is one member of a block's validator set.
type BlockSigner struct {
	Operator, Consensus types.Address
	Power               int64
	Signed              bool
}

// SlashEvent is one penalty a validator paid.
type SlashEvent struct {
	Height     uint64 // the block whose end applied it
	Infraction uint64 // the block of the offence
	Reason     string // double_sign, missed_blocks, sync_timeout or left_network_early
	PPM        uint64 // the fraction of stake taken, parts per million
	Amount     *uint256.Int
	Time       uint64 // Unix seconds of block Height
}

// SystemContract is one system contract's ABI.
type SystemContract struct {
	Name    string
	Address types.Address
	Methods []ABIFunction
	Events  []ABIFunction
}

// ABIFunction is a method or an event: its name and parameters.
type ABIFunction struct {
	Name   string
	Inputs []ABIParam
}

// ABIParam is one parameter of a method or event.
type ABIParam struct {
	Name, Type string
	Indexed    bool // of an event
}

// Signature is the canonical signature, "name(type,type)".
func (f ABIFunction) Signature() string {
	s := f.Name + "("
	for i, p := range f.Inputs {
		if i > 0 {
			s += ","
		}
		s += p.Type
	}
	return s + ")"
}

// Commits reads what a proof-of-stake block records about consensus
// besides its Ethereum header fields: the commit certificate of its
// parent it commits to (the LastCommit the liveness accounting reads) and
// the double-sign evidence it carries.
type Commits interface {
	// LastCommit is the certificate canonical block n carries for block
	// n-1, one entry per member of n-1's validator set in set order;
	// ErrNotFound for the genesis block and block 1 (nothing decided
	// before them) and for blocks past the head; ErrStakingDisabled on a
	// chain without validators.
	LastCommit(n uint64) (*Commit, error)
	// SeenCommit is the certificate that decided canonical block n as this
	// node stored it: for the head, the one it was decided with, which no
	// block carries yet (CometBFT's seen commit); for an earlier block,
	// the one its child carries. ErrNotFound for the genesis block, for
	// blocks past the head and for a block stored without a certificate;
	// ErrStakingDisabled on a chain without validators.
	SeenCommit(n uint64) (*Commit, error)
	// Evidence is the double-sign evidence canonical block n carries.
	Evidence(n uint64) ([]DoubleSignEvidence, error)
}

// Commit is a decided block's commit certificate.
type Commit struct {
	Height     uint64
	Round      int32
	BlockHash  types.Hash
	Signatures []CommitSig
	// Root is the hash the child block commits to (its ParentBeaconRoot):
	// keccak256 of the certificate's encoding.
	Root types.Hash
}

// CommitSig is one validator's part in a Commit: its precommit signature
// (65 bytes, R || S || V), nil when the certificate lacks it.
type CommitSig struct {
	Validator types.Address
	Power     int64
	Signature []byte
}

// DoubleSignEvidence is two conflicting votes of one validator.
type DoubleSignEvidence struct {
	A, B    EvidenceVote
	Encoded []byte // the evidence as the block carries it
}

// EvidenceVote is one vote of a DoubleSignEvidence.
type EvidenceVote struct {
	Type      uint8 // 1 prevote, 2 precommit (CometBFT's numbering)
	Height    uint64
	Round     int32
	BlockHash types.Hash
	Validator types.Address
	Signature []byte
}
