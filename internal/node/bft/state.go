package bft

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/chaind/chaind/consensus"
)

var errNoState = errors.New("bft: no state file")

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
		return consensus.Snapshot{}, errNoState
	}
	if err != nil {
		return consensus.Snapshot{}, err
	}
	return consensus.DecodeSnapshot(b)
}
