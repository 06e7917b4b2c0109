package txpool

import (
	"bytes"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// bigTx is a transaction of sender i carrying size bytes of call data.
func (f *fixture) bigTx(i int, nonce uint64, size int) *types.Transaction {
	to := types.Address{0xaa}
	return types.MustSignNewTx(f.keys[i], signer, &types.DynamicFeeTx{
		ChainID: *uint256.NewInt(chainID), Nonce: nonce, GasTipCap: *uint256.NewInt(1e9), GasFeeCap: *uint256.NewInt(2e9),
		Gas: 21000 + 16*uint64(size), To: &to, Data: bytes.Repeat([]byte{1}, size),
	})
}

// A subscriber's buffer is bounded in bytes as well as in count: large
// transactions fill it long before the count does, and a lagging
// subscriber then misses transactions (counted and logged) instead of
// keeping them alive.
func TestSubscribeBounds(t *testing.T) {
	const big = 100 << 10
	oneBig := func(f *fixture) uint64 { return f.bigTx(0, 0, big).Size() }
	for _, tc := range []struct {
		name     string
		buffer   int
		maxBytes func(f *fixture) int
		size     int // call data of each transaction
		add      int
		// received: how many the subscriber takes after the first want
		// arrived, then as many more are added.
		received int
		want     []int // nonces delivered, in order
	}{
		{name: "count bound", buffer: 3, maxBytes: func(*fixture) int { return 8 << 20 }, size: 0, add: 5, want: []int{0, 1, 2}},
		{name: "byte bound with large transactions", buffer: 4096, maxBytes: func(f *fixture) int { return int(5 * oneBig(f) / 2) },
			size: big, add: 5, want: []int{0, 1}},
		{name: "taken transactions free their bytes", buffer: 4096, maxBytes: func(f *fixture) int { return int(5 * oneBig(f) / 2) },
			size: big, add: 3, received: 2, want: []int{0, 1, 3, 4}},
		{name: "one transaction over the bound still passes alone", buffer: 4096, maxBytes: func(*fixture) int { return 1 << 10 },
			size: big, add: 2, want: []int{0}},
		{name: "no buffer and no receiver", buffer: 0, maxBytes: func(*fixture) int { return 8 << 20 }, size: 0, add: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			f := newFixture(t, Config{}, 1)
			f.pool = New(Config{SubscriberBytes: tc.maxBytes(f), Log: slog.New(slog.NewTextHandler(&logs, nil))}, f.head())
			ch, cancel := f.pool.Subscribe(tc.buffer)
			defer cancel()
			nonce := uint64(0)
			add := func(k int) {
				for range k {
					if err := f.pool.Add(f.bigTx(0, nonce, tc.size)); err != nil {
						t.Fatal(err)
					}
					nonce++
				}
			}
			var got []int
			take := func(k int) {
				for ; k > 0 && len(ch) > 0; k-- {
					got = append(got, int((<-ch).Nonce()))
				}
			}
			add(tc.add)
			if tc.received > 0 {
				take(tc.received)
				add(tc.received)
			}
			take(len(ch))
			if !slices.Equal(got, tc.want) {
				t.Fatalf("delivered nonces %v, want %v", got, tc.want)
			}
			drops := uint64(int(nonce) - len(tc.want))
			if d := f.pool.SubscriberDrops(); d != drops {
				t.Errorf("SubscriberDrops = %d, want %d", d, drops)
			}
			if lines := strings.Count(logs.String(), "subscriber lags"); drops > 0 && lines != 1 || drops == 0 && lines != 0 {
				t.Errorf("%d log lines for %d drops, want one line (throttled) if any:\n%s", lines, drops, logs.String())
			}
		})
	}
}

// A repeated condition is logged once per logEvery, each line counting
// the occurrences since the line before.
func TestThrottledLog(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(slog.NewTextHandler(&buf, nil))
	at := time.Unix(1000, 0)
	tl := throttledLog{now: func() time.Time { return at }}
	for _, step := range []struct {
		advance time.Duration
		calls   int
		lines   int    // lines in the log after the step
		last    string // the last line's count
	}{
		{0, 1, 1, "count=1"},
		{time.Second, 500, 1, "count=1"},
		{logEvery, 1, 2, "count=501"},
		{logEvery - time.Nanosecond, 3, 2, "count=501"},
		{time.Nanosecond, 1, 3, "count=4"},
	} {
		at = at.Add(step.advance)
		for range step.calls {
			tl.log(l, slog.LevelWarn, "it happened")
		}
		lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
		if len(lines) != step.lines || !strings.HasSuffix(lines[len(lines)-1], step.last) {
			t.Fatalf("after %v and %d calls: log\n%s\nwant %d lines, the last ending %s", step.advance, step.calls, buf.String(), step.lines, step.last)
		}
	}
}
