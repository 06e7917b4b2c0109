package ethbackend

import (
	"context"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/evm/tracers"
	"github.com/chaind/chaind/internal/types"
)

// SetSentHook installs f to run after every transaction the pool accepts
// from a client: a development node that automines waits there until the
// transaction is in a block, as Hardhat Network does, so a test reads its
// effects right after sending. Its error (no block can be built) is the
// send's answer, never a hang. Set before serving.
func (b *Backend) SetSentHook(f func(ctx context.Context, tx *types.Transaction) error) { b.sent = f }

func (b *Backend) afterSend(ctx context.Context, tx *types.Transaction) error {
	if b.sent != nil {
		return b.sent(ctx, tx)
	}
	return nil
}

// SetConsole installs f to receive the console.log lines of every
// eth_call and eth_estimateGas (a development node prints them, as anvil
// does); f nil prints none. It may be set while serving.
func (b *Backend) SetConsole(f func(lines []string)) {
	if f == nil {
		b.console.Store(nil)
		return
	}
	b.console.Store(&f)
}

// consoleFor puts a console tracer (tracers.Console) on the next run of
// env, when a console is set and nothing else traces env. The tracer only
// observes calls to the console address, so the run's gas and state are
// what they would be without it. flush hands the lines printed to the
// console; an estimate, which runs the call many times, prints those of
// its first run only.
func (b *Backend) consoleFor(env *callEnv) (flush func()) {
	out := b.console.Load()
	if out == nil || env.attach != nil {
		return func() {}
	}
	c := &tracers.Console{}
	env.attach = func(vm *evm.EVM) error {
		vm.Config.Tracer = c.Hooks()
		env.attach = nil
		return nil
	}
	return func() {
		if len(c.Lines) > 0 {
			(*out)(c.Lines)
		}
	}
}
