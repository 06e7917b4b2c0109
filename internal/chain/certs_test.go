package chain

import (
	"bytes"
	"errors"
	"testing"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
)

// watchedKV checks, after every batch it writes, that block n's
// certificate is stored exactly when block n is canonical: a certificate
// written in a batch of its own would be caught between the two writes.
type watchedKV struct {
	store.KV
	t      *testing.T
	writes int
}

func (w *watchedKV) Write(b *store.Batch) error {
	if err := w.KV.Write(b); err != nil {
		return err
	}
	w.writes++
	for n := uint64(1); n <= 2; n++ {
		hasBlock, _ := w.Has(key(prefixCanonical, numKey(n)))
		hasCert, _ := w.Has(key(prefixCert, numKey(n)))
		if hasBlock != hasCert {
			w.t.Errorf("after write %d: block %d stored %v, its certificate %v", w.writes, n, hasBlock, hasCert)
		}
	}
	return nil
}

func TestCertificateStoredWithBlock(t *testing.T) {
	g := &Genesis{Config: AllForks(8118), GasLimit: 30_000_000, Alloc: Alloc{}}
	kv := &watchedKV{KV: store.NewMem(), t: t}
	proposer, err := Open(g, kv, nil)
	if err != nil {
		t.Fatal(err)
	}
	follower, err := Open(g, &watchedKV{KV: store.NewMem(), t: t}, nil)
	if err != nil {
		t.Fatal(err)
	}
	certs := [][]byte{[]byte("cert of block 1"), []byte("cert of block 2")}
	for i, cert := range certs {
		built, err := proposer.BuildBlock(BuildParams{Time: uint64(10 * (i + 1))}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := proposer.CommitCertified(built, cert); err != nil {
			t.Fatal(err)
		}
		if _, err := follower.InsertCertified(built.Block, cert); err != nil {
			t.Fatal(err)
		}
	}
	// A block that does not build on the head stores nothing.
	stale, err := proposer.BlockByNumber(1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := follower.InsertCertified(stale, []byte("other")); err == nil {
		t.Fatal("stale block inserted")
	}
	if _, err := follower.Certificate(3); !errors.Is(err, ErrNotFound) {
		t.Fatalf("certificate of an uncommitted block: %v", err)
	}

	reopened, err := Open(g, kv.KV, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*Chain{proposer, follower, reopened} {
		for i, want := range certs {
			got, err := c.Certificate(uint64(i + 1))
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("certificate %d: %q, %v", i+1, got, err)
			}
		}
		if _, err := c.Certificate(0); !errors.Is(err, ErrNotFound) {
			t.Fatalf("genesis certificate: %v", err)
		}
	}
}

// InsertCertifiedChain stores each block with its certificate, passes
// over blocks already stored, and stops at the first block its check
// refuses, leaving the ones before it stored.
func TestInsertCertifiedChain(t *testing.T) {
	g := &Genesis{Config: AllForks(8118), GasLimit: 30_000_000, Alloc: Alloc{}}
	proposer, err := Open(g, store.NewMem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var blocks []*types.Block
	var certs [][]byte
	for i := 0; i < 4; i++ {
		built, err := proposer.BuildBlock(BuildParams{Time: uint64(10 * (i + 1))}, nil)
		if err != nil {
			t.Fatal(err)
		}
		cert := []byte{byte(i + 1)}
		if err := proposer.CommitCertified(built, cert); err != nil {
			t.Fatal(err)
		}
		blocks, certs = append(blocks, built.Block), append(certs, cert)
	}
	follower, err := Open(g, store.NewMem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := follower.InsertCertified(blocks[0], certs[0]); err != nil {
		t.Fatal(err)
	}
	refused := errors.New("certificate refused")
	n, err := follower.InsertCertifiedChain(blocks, certs, func(i int) error {
		if i == 3 {
			return refused
		}
		return nil
	})
	if n != 3 || !errors.Is(err, refused) {
		t.Fatalf("went through %d blocks, err %v; want 3 and the check's error", n, err)
	}
	if h := follower.Head().Number(); h != 3 {
		t.Fatalf("head %d, want 3 (block 4 refused)", h)
	}
	for i := uint64(1); i <= 3; i++ {
		if c, err := follower.Certificate(i); err != nil || !bytes.Equal(c, certs[i-1]) {
			t.Fatalf("certificate of block %d: %x, %v", i, c, err)
		}
	}
	if _, err := follower.InsertCertifiedChain(blocks[:1], nil, nil); err == nil {
		t.Fatal("blocks without their certificates were taken")
	}
}
