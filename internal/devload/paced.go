package devload

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/chaind/chaind/internal/types"
)

// PacedResult is what an open-loop load achieved.
type PacedResult struct {
	Offered  int            // transactions whose turn came before the stop
	Accepted int            // taken by a node
	Retries  int            // submissions repeated after a "not now" answer
	Errors   map[string]int // rejections that stopped a sender, by message
	Elapsed  time.Duration
}

// SendPaced offers rate transactions a second in all, open loop: sender s
// offers its i-th transaction (next(s, i), its nonces in order) at
// start + i×senders/rate, to clients[s % len(clients)], and falls behind
// only while a submission is in flight or refused for now (a full pool:
// it is retried every 10 ms, as a wallet would), catching up after. So a
// slow node shows as a lower accepted rate, never as a lower offer. It
// runs until stop is closed or every sender has offered count
// transactions.
func SendPaced(clients []*Client, senders, count, rate int, next func(sender, i int) (*types.Transaction, error), stop <-chan struct{}) *PacedResult {
	res := &PacedResult{Errors: map[string]int{}}
	var (
		offered, accepted, retries atomic.Int64
		mu                         sync.Mutex
		wg                         sync.WaitGroup
	)
	every := time.Duration(float64(time.Second) * float64(senders) / float64(rate))
	start := time.Now()
	for s := range senders {
		cl := clients[s%len(clients)]
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Senders start spread over one interval, not all at once.
			first := start.Add(every * time.Duration(s) / time.Duration(senders))
			for i := range count {
				if !waitUntil(first.Add(time.Duration(i)*every), stop) {
					return
				}
				offered.Add(1)
				tx, err := next(s, i)
				if err != nil {
					mu.Lock()
					res.Errors[err.Error()]++
					mu.Unlock()
					return
				}
				for {
					err := cl.SendRaw(tx)
					if err == nil {
						accepted.Add(1)
						break
					}
					if !Retryable(err) {
						mu.Lock()
						res.Errors[err.Error()]++
						mu.Unlock()
						return
					}
					retries.Add(1)
					if !waitUntil(time.Now().Add(10*time.Millisecond), stop) {
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	res.Offered, res.Accepted, res.Retries = int(offered.Load()), int(accepted.Load()), int(retries.Load())
	return res
}

// waitUntil sleeps until t and reports false if stop closed first (or was
// closed already).
func waitUntil(t time.Time, stop <-chan struct{}) bool {
	if d := time.Until(t); d > 0 {
		tm := time.NewTimer(d)
		defer tm.Stop()
		select {
		case <-stop:
			return false
		case <-tm.C:
		}
	}
	select {
	case <-stop:
		return false
	default:
		return true
	}
}
