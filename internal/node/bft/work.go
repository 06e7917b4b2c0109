package bft

import (
	"context"
	"sync"

	"github.com/chaind/chaind/consensus"
)

// work runs the App's Propose and Validate calls off the driver's goroutine
// and hands their answers back to the loop as core events, so the driver
// keeps receiving messages, voting and firing timeouts while a block is
// being built or executed.
//
// The core waits for at most one value at a time. When it moves to another
// round or height, the Propose still running is cancelled, and a new
// request starts at once rather than after the old call has unwound.
//
// Validations run one at a time, in the order the core asked: a Byzantine
// proposer can make the core ask for many (several values per round, many
// rounds), and executing them all at once would starve the node. Requests
// of a height the core has left are dropped unstarted, and the running one
// is cancelled.
//
// Answers that arrive after the core has moved on are still fed to it: it
// ignores a ValueEvent of another height or round, or when it no longer
// awaits a value, and a ValidatedEvent of another height.
type work struct {
	app  App
	logf func(format string, args ...any)
	// proposeFailed hears of a block this validator could not build
	// (Config.ProposeFailed); never nil after init.
	proposeFailed func(height uint64, round int32, err error)

	ctx     context.Context
	cancel  context.CancelFunc
	results chan result
	quit    chan struct{}
	wg      sync.WaitGroup

	height     uint64 // the core's height, as of the last step
	proposal   *job   // the Propose answering the core's latest request
	validation *job   // the running Validate
	queue      []consensus.RequestValidation
}

type job struct {
	height uint64
	round  int32
	cancel context.CancelFunc
}

type result struct {
	job *job
	ev  consensus.Event
}

func (w *work) init(ctx context.Context, app App, logf func(string, ...any), proposeFailed func(uint64, int32, error)) {
	w.app, w.logf, w.proposeFailed = app, logf, proposeFailed
	if w.proposeFailed == nil {
		w.proposeFailed = func(h uint64, r int32, err error) { logf("propose at %d/%d: %v", h, r, err) }
	}
	w.ctx, w.cancel = context.WithCancel(ctx)
	w.results = make(chan result)
	w.quit = make(chan struct{})
}

// stop cancels every call and waits for them to return.
func (w *work) stop() {
	w.cancel()
	close(w.quit)
	w.wg.Wait()
}

func (w *work) start(height uint64, round int32, call func(ctx context.Context) consensus.Event) *job {
	ctx, cancel := context.WithCancel(w.ctx)
	j := &job{height: height, round: round, cancel: cancel}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer cancel()
		ev := call(ctx)
		select {
		case w.results <- result{j, ev}:
		case <-w.quit:
		}
	}()
	return j
}

func (w *work) propose(e consensus.RequestValue) {
	if w.proposal != nil {
		w.proposal.cancel()
	}
	w.proposal = w.start(e.Height, e.Round, func(ctx context.Context) consensus.Event {
		v, err := w.app.Propose(ctx, e.Height)
		if err != nil {
			if ctx.Err() == nil {
				w.proposeFailed(e.Height, e.Round, err)
			}
			v = consensus.Value{} // the core lets the round time out
		}
		return consensus.ValueEvent{Height: e.Height, Round: e.Round, Value: v}
	})
}

func (w *work) validate(e consensus.RequestValidation) {
	w.queue = append(w.queue, e)
	w.next()
}

// next starts the oldest queued validation of the current height, unless
// one is running.
func (w *work) next() {
	for w.validation == nil && len(w.queue) > 0 {
		e := w.queue[0]
		w.queue[0] = consensus.RequestValidation{}
		w.queue = w.queue[1:]
		if e.Height < w.height {
			continue
		}
		w.validation = w.start(e.Height, -1, func(ctx context.Context) consensus.Event {
			err := w.app.Validate(ctx, e.Height, e.Value)
			if err != nil && ctx.Err() == nil {
				w.logf("invalid value %x at %d: %v", e.Value.ID[:4], e.Height, err)
			}
			return consensus.ValidatedEvent{Height: e.Height, ID: e.Value.ID, Valid: err == nil}
		})
	}
}

// finished books the end of a call whose answer the loop received.
func (w *work) finished(r result) {
	if r.job == w.proposal {
		w.proposal = nil
	}
	if r.job == w.validation {
		w.validation = nil
		w.next()
	}
}

// moved tells the work where the core is after a step: calls for a height
// or round it has left are cancelled.
func (w *work) moved(height uint64, round int32) {
	w.height = height
	if p := w.proposal; p != nil && (p.height != height || p.round != round) {
		p.cancel()
	}
	if v := w.validation; v != nil && v.height != height {
		v.cancel()
	}
}
