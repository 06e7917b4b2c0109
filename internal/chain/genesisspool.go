package chain

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/chaind/chaind/internal/types"
)

// spool sorts records by a 32-byte key in bounded memory, for a genesis
// whose accounts arrive in file order but are committed in the trie's
// (hashed-address) order: records gather in memory up to runBytes, are
// sorted and written as a run file in dir, and the runs are merged.
type spool struct {
	dir      string
	runBytes int
	buf      []byte // records: key(32) | uvarint length | payload
	offs     []int
	runs     []string
	n        int
	slots    int // storage slots of the records, counted by the caller
}

func newSpool(dir string, runBytes int) (*spool, error) {
	d, err := os.MkdirTemp(dir, "genesis-sort-")
	if err != nil {
		return nil, err
	}
	return &spool{dir: d, runBytes: runBytes}, nil
}

// add takes a record; payload is copied.
func (s *spool) add(key types.Hash, payload []byte) error {
	s.offs = append(s.offs, len(s.buf))
	s.buf = append(s.buf, key[:]...)
	s.buf = binary.AppendUvarint(s.buf, uint64(len(payload)))
	s.buf = append(s.buf, payload...)
	s.n++
	if len(s.buf) >= s.runBytes {
		return s.writeRun()
	}
	return nil
}

// writeRun sorts the records in memory and writes them as a run.
func (s *spool) writeRun() error {
	if len(s.offs) == 0 {
		return nil
	}
	slices.SortStableFunc(s.offs, func(a, b int) int { return bytes.Compare(s.buf[a:a+32], s.buf[b:b+32]) })
	name := filepath.Join(s.dir, fmt.Sprintf("run-%06d", len(s.runs)))
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for _, off := range s.offs {
		n, k := binary.Uvarint(s.buf[off+32:])
		w.Write(s.buf[off : off+32+k+int(n)])
	}
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		return err
	}
	s.runs = append(s.runs, name)
	s.buf, s.offs = s.buf[:0], s.offs[:0]
	return nil
}

// finish writes what is left in memory; the spool is read from then on.
func (s *spool) finish() error {
	err := s.writeRun()
	s.buf, s.offs = nil, nil
	return err
}

// remove deletes the run files.
func (s *spool) remove() error { return os.RemoveAll(s.dir) }

// runReader reads one run in order; rec is valid until the next call.
type runReader struct {
	f   *os.File
	r   *bufio.Reader
	key types.Hash
	rec []byte
}

func openRun(name string) (*runReader, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	return &runReader{f: f, r: bufio.NewReaderSize(f, 256<<10)}, nil
}

// next reads the next record; io.EOF at the end.
func (r *runReader) next() error {
	if _, err := io.ReadFull(r.r, r.key[:]); err != nil {
		return err // io.EOF between records is the end
	}
	n, err := binary.ReadUvarint(r.r)
	if err != nil {
		return fmt.Errorf("genesis sort run: %w", err)
	}
	if cap(r.rec) < int(n) {
		r.rec = make([]byte, n)
	}
	r.rec = r.rec[:n]
	if _, err := io.ReadFull(r.r, r.rec); err != nil {
		return fmt.Errorf("genesis sort run: %w", err)
	}
	return nil
}

// each calls fn for every record, in no order.
func (s *spool) each(fn func(key types.Hash, payload []byte) error) error {
	for _, name := range s.runs {
		r, err := openRun(name)
		if err != nil {
			return err
		}
		for {
			err = r.next()
			if err == nil {
				err = fn(r.key, r.rec)
			}
			if err != nil {
				break
			}
		}
		r.f.Close()
		if err != io.EOF {
			return err
		}
	}
	return nil
}

// merge calls fn for every record in key order (records of equal keys in
// the order they were added).
func (s *spool) merge(fn func(key types.Hash, payload []byte) error) error {
	h := &runHeap{}
	defer func() {
		for _, r := range h.rs {
			r.f.Close()
		}
	}()
	for i, name := range s.runs {
		r, err := openRun(name)
		if err != nil {
			return err
		}
		if err := r.next(); err == io.EOF {
			r.f.Close()
			continue
		} else if err != nil {
			r.f.Close()
			return err
		}
		h.rs = append(h.rs, r)
		h.order = append(h.order, i)
	}
	heap.Init(h)
	for h.Len() > 0 {
		r := h.rs[0]
		if err := fn(r.key, r.rec); err != nil {
			return err
		}
		switch err := r.next(); {
		case err == io.EOF:
			r.f.Close()
			heap.Pop(h)
		case err != nil:
			return err
		default:
			heap.Fix(h, 0)
		}
	}
	return nil
}

// runHeap orders the runs by their current key, then by run (the order
// the records were added in).
type runHeap struct {
	rs    []*runReader
	order []int
}

func (h *runHeap) Len() int { return len(h.rs) }
func (h *runHeap) Less(i, j int) bool {
	if c := bytes.Compare(h.rs[i].key[:], h.rs[j].key[:]); c != 0 {
		return c < 0
	}
	return h.order[i] < h.order[j]
}
func (h *runHeap) Swap(i, j int) {
	h.rs[i], h.rs[j] = h.rs[j], h.rs[i]
	h.order[i], h.order[j] = h.order[j], h.order[i]
}
func (h *runHeap) Push(x any) { panic("runHeap: no push after Init") }
func (h *runHeap) Pop() any {
	n := len(h.rs) - 1
	r := h.rs[n]
	h.rs, h.order = h.rs[:n], h.order[:n]
	return r
}
