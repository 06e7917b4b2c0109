package staking

import "github.com/chaind/chaind/internal/types"

// Stake certificates (certCycleDuration). A validator's stake
// certificate says its stake was checked by the network; it is valid for
// certCycleDuration cycles from the cycle it was issued or last renewed
// in, and only a validator whose certificate is valid in the coming cycle
// can be chosen active for it: one whose certificate has run out stays
// standby (enough stake, not jailed, not chosen) until it is renewed.
//   - createValidator issues it; editValidator and unjail, sent by the
//     operator, renew it (an operator shows up);
//   - an active validator's node renews it by signing: at each selection
//     block, a validator of the running set that signed the block's
//     parent (the block does not record it absent) has it renewed for the
//     coming cycle.
// So a running validator never loses its certificate, while a standby one
// whose operator has not been seen for certCycleDuration cycles is not
// promoted into the active set when room opens up. certCycleDuration 0
// turns the rule off.

// certRenew renews v's certificate in cycle c. The record holds c+1, so
// that 0 reads as a certificate of cycle 0 (validators made before the
// rule).
func (l *ledger) certRenew(v types.Address, c uint64) {
	l.s.setU64(valRec(v).field(vCertCycle), c+1)
}

// certRenewNow renews v's certificate in the cycle of the block being
// executed.
func (l *ledger) certRenewNow(v types.Address) {
	cycles, err := ReadCycles(l.s.st)
	if err != nil {
		return // a state without a schedule has no cycles to count
	}
	l.certRenew(v, cycles.Of(l.height))
}

// certValid reports whether v's certificate is valid in cycle next.
func (l *ledger) certValid(p *Params, v types.Address, next uint64) bool {
	if p.CertCycleDuration == 0 {
		return true
	}
	issued := l.s.u64(valRec(v).field(vCertCycle))
	if issued > 0 {
		issued--
	}
	return next < issued || next-issued < p.CertCycleDuration
}

// CertCycle is the cycle v's stake certificate was issued or last renewed in.
func CertCycle(st State, v types.Address) uint64 {
	c := store{st}.u64(valRec(v).field(vCertCycle))
	if c > 0 {
		c--
	}
	return c
}
