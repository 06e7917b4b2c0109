package consensus

// rule names one safety rule of the core. Config.off lists the rules
// switched off. The field is unexported and only export_test.go sets it,
// so a rule can be switched off by this directory's tests (rules_test.go
// passes the switch to the simulator through sim.Config.CoreConfig) and
// by no program: a production build cannot reach the setter, and a rule
// that is on costs one bit test.
type rule uint16

// The rules. Each is checked where the line of Algorithm 1 it belongs to
// is implemented.
const (
	// ruleDedup: "2f+1 ⟨…⟩" counts distinct senders; a vote received
	// twice counts once (VoteBook.Add).
	ruleDedup rule = 1 << iota
	// ruleMembership: only members of the height's validator set have
	// votes that count (VoteBook.Add).
	ruleMembership
	// ruleSignature: a message counts only if its signature recovers to
	// the validator it claims to come from, for this chain (Receive; a
	// node checks it at the edge, VerifyMessage, and Deliver takes only
	// what that checked).
	ruleSignature
	// ruleProposer: "⟨PROPOSAL, h, r, …⟩ from proposer(h, r)": proposals
	// of anyone else are ignored (onProposal).
	ruleProposer
	// rulePersistFirst: the snapshot is persisted before anything the
	// step signed leaves the process (seal).
	rulePersistFirst
	// ruleQuorum: "2f+1" is more than 2/3 of the power (quorum).
	ruleQuorum
	// ruleLocking: L23/L29 prevote only the locked value, unless the
	// proposal carries a polka newer than the lock.
	ruleLocking
	// rulePolka: L28 needs 2f+1 prevotes in the proposal's validRound.
	rulePolka
	// ruleValidRound: L15-L16 re-propose validValue with validRound.
	ruleValidRound
)

// on reports whether rule r is in force.
func (s *State) on(r rule) bool { return s.cfg.off&r == 0 }
