package bft

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/chaind/chaind/consensus"
)

// ErrNoState is what a StateStore's Load returns when it holds no
// snapshot yet.
var ErrNoState = errors.New("bft: no state file")

// StateStore keeps the core's snapshot: the validator's votes of the
// height in progress. Save must be durable when it returns; Load returns
// ErrNoState when nothing was saved.
type StateStore interface {
	Load() (consensus.Snapshot, error)
	Save(consensus.Snapshot) error
}

// FileState is the StateStore of a state file on disk.
type FileState string

// Load implements StateStore.
func (p FileState) Load() (consensus.Snapshot, error) { return loadSnapshot(string(p)) }

// Save implements StateStore.
func (p FileState) Save(s consensus.Snapshot) error { return saveSnapshot(string(p), s) }

// MemState is a StateStore in memory. It keeps a validator without a data
// directory from contradicting its own votes when its driver is started
// again in the same process (after a transient error), which is all a
// throwaway network needs.
type MemState struct {
	mu   sync.Mutex
	snap []byte
}

// Load implements StateStore.
func (m *MemState) Load() (consensus.Snapshot, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.snap == nil {
		return consensus.Snapshot{}, ErrNoState
	}
	return consensus.DecodeSnapshot(m.snap)
}

// Save implements StateStore.
func (m *MemState) Save(s consensus.Snapshot) error {
	b := s.Encode()
	m.mu.Lock()
	m.snap = b
	m.mu.Unlock()
	return nil
}

// saveSnapshot writes the snapshot atomically and durably: a temporary
// file, fsync, rename over the old one, fsync of the directory.
func saveSnapshot(path string, snap consensus.Snapshot) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(snap.Encode()); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	dir, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer dir.Close()
	return dir.Sync()
}

func loadSnapshot(path string) (consensus.Snapshot, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return consensus.Snapshot{}, ErrNoState
	}
	if err != nil {
		return consensus.Snapshot{}, err
	}
	return consensus.DecodeSnapshot(b)
}
