// Package consensus implements Tendermint BFT consensus with voting power
// equal to stake, as a pure state machine.
//
// The core (State.Step) follows Algorithm 1 of Buchman, Kwon and Milosevic,
// "The latest gossip on BFT consensus" (arXiv 1807.04938). Every upon-rule
// carries the line numbers it implements, so the code and the paper can be
// read side by side:
//
//	L1-L9    State fields h, round, step, lockedValue, lockedRound, validValue, validRound
//	L10      Step(Start{})
//	L11-L21  startRound
//	L22-L48  currentRoundRules (L22, L28, L34, L36, L44, L47 in that order)
//	L49-L54  decideRule, decide
//	L55-L56  roundSkipRule
//	L57-L67  onTimeout
//
// "2f+1" is voting power strictly above 2/3 of the total and "f+1" strictly
// above 1/3 (ValidatorSet.HasQuorum, HasOneThird). The core owns no
// goroutines, clocks, network, disk or randomness, and never iterates a map
// where order matters: it consumes Events (proposals, votes, fired timeouts,
// values to propose, validation results) and returns Effects (broadcasts,
// timeouts to schedule, values to build or validate, decisions, evidence).
// Running it is the job of the node's internal/node/bft (real time, real
// transport, the chain as application) and of consensus/sim (virtual time,
// seeded faults).
//
// Three things go beyond the pseudo-code, all standing in for the paper's
// assumption that correct processes eventually receive what other correct
// processes received: a retransmission tick re-sends our own messages of
// the current height and relays the polka behind validValue; a status
// message lets validators that are ahead send a lagging one the decision
// (proposal plus precommits) or the votes of the rounds it missed; and
// messages of the next few heights are buffered.
//
// Messages arrive through State.Receive, which decodes the wire form
// (EncodeMessage) and drops any proposal or vote not signed, for the
// chain, by the validator it names; the node and the simulator both use
// it, so both run the same codec and checks. Step puts a Persist effect
// (the snapshot to fsync) ahead of everything it asks to sign and send.
//
// Each safety rule (vote deduplication, validator membership, signature,
// proposer, persist-before-sign, quorum, locking, the polka of L28, valid
// round) can be switched off, but only from this package's tests
// (rules.go, export_test.go); rules_test.go and TestRuleScenarios show
// that each one is needed.
//
// Around the core live the pieces a chain needs: weighted proposer
// selection (ValidatorSet, CometBFT's priority algorithm), the vote book,
// signed messages (Signer, VerifyVote), commit certificates
// (VerifyCertificate), double-sign evidence (DuplicateVoteEvidence), crash
// snapshots (Snapshot) and the sets of a fixed validator set
// (consensus/cycle).
//
// Validator sets reach the core as data, never through a call it makes:
// the runtime hands over each height's set before the core gets there
// (ValidatorsEvent; New takes the first ones), and a height whose set was
// not handed over halts the core.
package consensus
