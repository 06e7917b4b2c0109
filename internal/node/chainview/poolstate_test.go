package chainview

import (
	"errors"
	"log/slog"
	"sync/atomic"
	"testing"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/txpool"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

var errRead = errors.New("injected: store read failed")

// failReadKV fails every read while failing is set.
type failReadKV struct {
	store.KV
	failing atomic.Bool
}

func (f *failReadKV) Get(k []byte) ([]byte, error) {
	if f.failing.Load() {
		return nil, errRead
	}
	return f.KV.Get(k)
}

// A store read error while the pool admits a transaction is reported as
// such (txpool.ErrStateRead), not judged as a balance of 0; and once the
// store reads again, the keeper gives the pool a fresh state of the same
// head, though the head did not move: the state that failed a read keeps
// answering zeros for good.
func TestKeeperRenewsAStateThatFailedARead(t *testing.T) {
	funder, _ := crypto.GenerateKey()
	from := addrOf(funder)
	kv := &failReadKV{KV: store.NewMem()}
	c := fundedChain(t, from, kv)
	v := New(c)
	ph, err := v.PoolHead()
	if err != nil {
		t.Fatal(err)
	}
	pool := txpool.New(txpool.Config{Log: slog.New(slog.DiscardHandler)}, ph)
	v.KeepPool(pool, slog.New(slog.DiscardHandler))
	stranger, _ := crypto.GenerateKey() // an account no cache holds: its read goes to the store
	to := types.Address{0x42}
	tx := types.MustSignNewTx(stranger, c.Config.Signer(1, 1), &types.DynamicFeeTx{ChainID: *uint256.NewInt(8118),
		GasTipCap: *uint256.NewInt(1), GasFeeCap: *uint256.NewInt(2e9), Gas: 21000, To: &to, Value: *uint256.NewInt(1)})

	kv.failing.Store(true)
	if err := pool.Add(tx); !errors.Is(err, txpool.ErrStateRead) || !errors.Is(err, errRead) {
		t.Fatalf("admission on a failing store: %v, want ErrStateRead wrapping the read error", err)
	}
	kv.failing.Store(false)
	if err := pool.Add(tx); !errors.Is(err, evm.ErrInsufficientFunds) {
		t.Fatalf("admission once the store reads again: %v, want insufficient funds judged on a fresh state", err)
	}
	if err := pool.StateErr(); err != nil {
		t.Fatalf("the pool still stands on the failed state: %v", err)
	}
}
