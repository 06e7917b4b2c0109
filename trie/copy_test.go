package trie

import (
	"math/rand"
	"sync"
	"testing"
)

// Copies share nodes; using them from different goroutines must be safe
// (run with -race) and must not let one copy see the other's changes.
func TestCopyConcurrent(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	db := NewMemoryDB()
	base := NewEmpty()
	for i := 0; i < 3000; i++ {
		base.Update(randKey(rng), randValue(rng))
	}
	root, set := base.Commit()
	db.Update(set)
	opened, err := New(root, db)
	if err != nil {
		t.Fatal(err)
	}
	// Some dirty state on top of the loaded trie, then copies of it.
	for i := 0; i < 300; i++ {
		opened.Update(randKey(rng), randValue(rng))
	}
	want := opened.Hash()
	snap := opened.Copy()
	copies := []*Trie{opened.Copy(), opened.Copy(), opened.Copy(), opened}
	var wg sync.WaitGroup
	for w, c := range copies {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(w)))
			for i := 0; i < 500; i++ {
				k := randKey(r)
				c.Get(k)
				c.Update(k, randValue(r))
				if i%100 == 0 {
					c.Hash()
					c.Commit()
					c.Prove(k)
				}
			}
		}()
	}
	wg.Wait()
	// A copy nobody touched still has the original contents.
	if snap.Hash() != want {
		t.Fatal("untouched copy changed")
	}
	_, set = snap.Commit()
	db.Update(set)
	re, err := New(want, db)
	if err != nil || re.Hash() != want {
		t.Fatalf("reopen untouched copy: %v", err)
	}
}
