package bft

import "github.com/chaind/chaind/consensus"

// ErrMessage is returned for undecodable wire messages. It is
// consensus.ErrMalformed: the wire form is defined there, so the core and
// the simulator run the same codec as the node.
var ErrMessage = consensus.ErrMalformed

// EncodeMessage returns the wire form of a proposal, vote or status event
// (consensus.EncodeMessage).
func EncodeMessage(ev consensus.Event) []byte { return consensus.EncodeMessage(ev) }

// DecodeMessage parses EncodeMessage output (consensus.DecodeMessage).
// Signatures are not checked; consensus.VerifyMessage checks them.
func DecodeMessage(msg []byte) (consensus.Event, error) { return consensus.DecodeMessage(msg) }
