// Package consensus implements Tendermint BFT consensus with voting power
// equal to stake, as a pure state machine.
//
// The core (State.Step) follows Algorithm 1 of Buchman, Kwon and Milosevic,
// "The latest gossip on BFT consensus" (arXiv 1807.04938). Every upon-rule
// carries the line numbers it implements ("L22", "L36-43"), so the code and
// the paper can be read side by side. The core owns no goroutines, clocks,
// network, disk or randomness: it consumes Events (proposals, votes, fired
// timeouts, validation results) and returns Effects (broadcasts, timeouts to
// schedule, values to build or validate, decisions, evidence). Running it is
// the job of consensus/driver (real time, real transport) and consensus/sim
// (virtual time, seeded faults).
//
// Around the core live the pieces a chain needs: weighted proposer
// selection (ValidatorSet), the vote book, signed messages, commit
// certificates, double-sign evidence and cycle bookkeeping (consensus/cycle).
package consensus
