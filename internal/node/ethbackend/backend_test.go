package ethbackend

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/node/chainview"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// bareBackend is a backend over a fresh dev chain with no pool and no
// node around it.
func bareBackend(t testing.TB) (*Backend, types.Address) {
	t.Helper()
	funded := types.Address{0xfe}
	c, err := chain.Open(chain.DevGenesis(chain.MainChainID, []types.Address{funded}, 1_700_000_000), store.NewMem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return New(chainview.New(c), nil, Options{}), funded
}

func ptr[T any](v T) *T { return &v }

// The failures an interface maps to its own codes come back as the
// backend's typed errors.
func TestTypedErrors(t *testing.T) {
	b, funded := bareBackend(t)
	head := b.Head()
	ctx := context.Background()
	// PUSH4 0xdeadbeef PUSH1 0 MSTORE PUSH1 4 PUSH1 28 REVERT
	reverter := types.Address{0xaa}
	revertCode := []byte{0x63, 0xde, 0xad, 0xbe, 0xef, 0x60, 0x00, 0x52, 0x60, 0x04, 0x60, 0x1c, 0xfd}
	simKind := func(want backend.SimulateErrorKind) func(error) bool {
		return func(err error) bool {
			var se *backend.SimulateError
			return errors.As(err, &se) && se.Kind == want
		}
	}
	for _, tc := range []struct {
		name string
		run  func() error
		ok   func(error) bool
	}{
		{"unknown block", func() error {
			_, err := b.BlockByNumber(head.Number() + 5)
			return err
		}, func(err error) bool { return errors.Is(err, backend.ErrNotFound) }},
		{"call reverts", func() error {
			_, err := b.Call(ctx, &backend.CallRequest{Block: head, Args: backend.CallArgs{To: &reverter},
				StateOverrides: map[types.Address]backend.StateOverride{reverter: {Code: &revertCode}}})
			return err
		}, func(err error) bool {
			var rev *backend.RevertError
			return errors.As(err, &rev) && string(rev.Data) == "\xde\xad\xbe\xef" && err.Error() == "execution reverted"
		}},
		{"estimate reverts", func() error {
			_, err := b.EstimateGas(ctx, &backend.CallRequest{Block: head, Args: backend.CallArgs{To: &reverter},
				StateOverrides: map[types.Address]backend.StateOverride{reverter: {Code: &revertCode}}})
			return err
		}, func(err error) bool {
			var rev *backend.RevertError
			return errors.As(err, &rev)
		}},
		{"simulated blocks out of order", func() error {
			_, err := b.Simulate(ctx, &backend.SimulateRequest{Base: head, Blocks: []backend.SimBlock{
				{Overrides: &backend.SimBlockOverrides{Number: ptr(head.Number() + 2)}},
				{Overrides: &backend.SimBlockOverrides{Number: ptr(head.Number() + 1)}},
			}})
			return err
		}, simKind(backend.SimBlockNumber)},
		{"simulated nonce too low", func() error {
			_, err := b.Simulate(ctx, &backend.SimulateRequest{Base: head, Validation: true, Blocks: []backend.SimBlock{{
				StateOverrides: map[types.Address]backend.StateOverride{funded: {Nonce: ptr[uint64](3)}},
				Calls:          []backend.CallArgs{{From: &funded, To: &reverter, Nonce: ptr[uint64](1), MaxFeePerGas: uint256.NewInt(1e12)}},
			}}})
			return err
		}, simKind(backend.SimNonceTooLow)},
		{"simulated call over the block gas limit", func() error {
			_, err := b.Simulate(ctx, &backend.SimulateRequest{Base: head, Blocks: []backend.SimBlock{{
				Calls: []backend.CallArgs{{From: &funded, To: &reverter, Gas: ptr(head.GasLimit() + 1)}},
			}}})
			return err
		}, simKind(backend.SimBlockGasLimit)},
		{"built block not after its parent", func() error {
			_, err := b.BuildBlock(ctx, &backend.BuildRequest{Parent: head.Hash(), Timestamp: head.Time()})
			return err
		}, func(err error) bool {
			var pe *backend.ParamError
			return errors.As(err, &pe)
		}},
	} {
		if err := tc.run(); !tc.ok(err) {
			t.Errorf("%s: got %v (%T)", tc.name, err, err)
		}
	}
}

// A simulated call's EVM failure is in its result, not an error.
func TestSimulatedRevertInResult(t *testing.T) {
	b, funded := bareBackend(t)
	reverter := types.Address{0xaa}
	code := []byte{0x63, 0xde, 0xad, 0xbe, 0xef, 0x60, 0x00, 0x52, 0x60, 0x04, 0x60, 0x1c, 0xfd}
	blocks, err := b.Simulate(context.Background(), &backend.SimulateRequest{Base: b.Head(), Blocks: []backend.SimBlock{{
		StateOverrides: map[types.Address]backend.StateOverride{reverter: {Code: &code}},
		Calls:          []backend.CallArgs{{From: &funded, To: &reverter}, {From: &funded, To: &funded}},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 1 || len(blocks[0].Calls) != 2 || len(blocks[0].Block.Transactions()) != 2 {
		t.Fatalf("got %d blocks", len(blocks))
	}
	var rev *backend.RevertError
	if c := blocks[0].Calls[0]; !errors.As(c.Err, &rev) || c.Status != 0 {
		t.Errorf("reverting call: err %v, status %d", c.Err, c.Status)
	}
	if c := blocks[0].Calls[1]; c.Err != nil || c.Status != 1 || c.GasUsed != 21000 {
		t.Errorf("transfer: err %v, status %d, gas %d", c.Err, c.Status, c.GasUsed)
	}
	if got := blocks[0].Senders; got[0] != funded || got[1] != funded {
		t.Errorf("senders %v", got)
	}
}

// The chain's rules reach the interfaces through ChainConfig.
func TestChainConfig(t *testing.T) {
	b, _ := bareBackend(t)
	h := b.Head().HeaderRef()
	if b.ChainID() != chain.MainChainID {
		t.Errorf("chain ID %d", b.ChainID())
	}
	if fee := b.NextBaseFee(h); fee == nil || !fee.Eq(b.chain.Config.CalcBaseFee(h)) {
		t.Errorf("next base fee %v", fee)
	}
	if (b.BlobBaseFee(h) == nil) != (h.ExcessBlobGas == nil) || (b.NextBlobBaseFee(h) == nil) != (h.ExcessBlobGas == nil) {
		t.Error("blob base fees present without blob gas, or missing with it")
	}
	fi, err := b.ForkAt(h.Time)
	if err != nil {
		t.Fatal(err)
	}
	gen, _ := b.BlockByNumber(0)
	if fi.Fork != b.Fork(h.Number, h.Time) || fi.ChainID != chain.MainChainID || len(fi.Precompiles) == 0 ||
		fi.ForkID != ForkID(b.chain.Config, gen.HeaderRef(), ^uint64(0), h.Time) {
		t.Errorf("fork info %+v", fi)
	}
}

// endlessCall is a backend on a dev chain at fork, with the node's gas cap
// out of reach and the given call timeout, and a call into an endless loop.
func endlessCall(t *testing.T, fork forks.Fork, timeout time.Duration) (*Backend, *backend.CallRequest) {
	t.Helper()
	g, err := chain.DevGenesisFork(chain.MainChainID, nil, 1_700_000_000, fork)
	if err != nil {
		t.Fatal(err)
	}
	c, err := chain.Open(g, store.NewMem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b := New(chainview.New(c), nil, Options{GasCap: 1 << 50, CallTimeout: timeout})
	loop := []byte{0x5b, 0x60, 0x00, 0x56} // JUMPDEST PUSH1 0 JUMP
	to := types.Address{0x10}
	return b, &backend.CallRequest{Block: b.Head(), Args: backend.CallArgs{To: &to},
		StateOverrides: map[types.Address]backend.StateOverride{to: {Code: &loop}}}
}

// A call that would run for minutes is cut at the node's time cap with
// go-ethereum's message; a gas search shares the one cap. The chain is at
// Prague: from Osaka a call's gas is capped at 2^24 (EIP-7825), which an
// endless loop spends in milliseconds, before any time cap.
func TestCallTimeCap(t *testing.T) {
	b, req := endlessCall(t, forks.Prague, 50*time.Millisecond)
	_, err := b.Call(context.Background(), req)
	var te *TimeoutError
	if !errors.As(err, &te) || err.Error() != "execution aborted (timeout = 50ms)" {
		t.Fatalf("endless call: %v", err)
	}
	if _, err := b.EstimateGas(context.Background(), req); !errors.As(err, &te) {
		t.Fatalf("endless estimate: %v", err)
	}
}

// From Osaka a call may use at most EIP-7825's 2^24 gas, whatever the
// node's cap: the endless loop of TestCallTimeCap runs out of gas instead.
func TestCallGasCappedFromOsaka(t *testing.T) {
	b, req := endlessCall(t, forks.Osaka, time.Minute)
	if _, err := b.Call(context.Background(), req); err == nil || !strings.Contains(err.Error(), "out of gas") {
		t.Fatalf("endless call at Osaka: %v, want out of gas", err)
	}
}
