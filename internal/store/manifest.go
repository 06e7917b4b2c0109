package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// The manifest names the live tables, level by level, and the oldest log
// still needed (every log before it is wholly in tables). It is small and
// rewritten whole on every flush and compaction: written to a temporary
// file, synced, renamed over the old one and the directory synced, so a
// crash leaves either the old or the new manifest.

const (
	manifestName  = "MANIFEST"
	manifestMagic = "chdlsm01"
	numLevels     = 7
)

// tableMeta is what the manifest records of a table.
type tableMeta struct {
	num               uint64
	size              int64
	smallest, largest []byte
}

type manifest struct {
	nextFile uint64 // the next file number to hand out
	logNum   uint64 // the oldest log still needed
	levels   [numLevels][]tableMeta
}

func (m *manifest) encode() []byte {
	var p []byte
	p = binary.AppendUvarint(p, m.nextFile)
	p = binary.AppendUvarint(p, m.logNum)
	for _, lv := range m.levels {
		p = binary.AppendUvarint(p, uint64(len(lv)))
		for _, t := range lv {
			p = binary.AppendUvarint(p, t.num)
			p = binary.AppendUvarint(p, uint64(t.size))
			p = binary.AppendUvarint(p, uint64(len(t.smallest)))
			p = append(p, t.smallest...)
			p = binary.AppendUvarint(p, uint64(len(t.largest)))
			p = append(p, t.largest...)
		}
	}
	out := append([]byte(manifestMagic), make([]byte, 8)...)
	binary.LittleEndian.PutUint32(out[8:], uint32(len(p)))
	binary.LittleEndian.PutUint32(out[12:], crc32.Checksum(p, castagnoli))
	return append(out, p...)
}

var errBadManifest = errors.New("malformed manifest")

func decodeManifest(b []byte) (*manifest, error) {
	if len(b) < 16 || string(b[:8]) != manifestMagic {
		return nil, errBadManifest
	}
	n := binary.LittleEndian.Uint32(b[8:])
	p := b[16:]
	if uint64(n) != uint64(len(p)) || crc32.Checksum(p, castagnoli) != binary.LittleEndian.Uint32(b[12:]) {
		return nil, fmt.Errorf("%w: checksum mismatch", errBadManifest)
	}
	next := func() uint64 {
		if p == nil {
			return 0
		}
		v, k := binary.Uvarint(p)
		if k <= 0 {
			p = nil
			return 0
		}
		p = p[k:]
		return v
	}
	bytesOf := func() []byte {
		l := next()
		if p == nil || l > uint64(len(p)) {
			p = nil
			return nil
		}
		v := append([]byte(nil), p[:l]...)
		p = p[l:]
		return v
	}
	m := &manifest{nextFile: next(), logNum: next()}
	for lv := range m.levels {
		c := next()
		if p == nil || c > uint64(len(p)) {
			return nil, errBadManifest
		}
		for range c {
			t := tableMeta{num: next(), size: int64(next())}
			t.smallest, t.largest = bytesOf(), bytesOf()
			if p == nil {
				return nil, errBadManifest
			}
			m.levels[lv] = append(m.levels[lv], t)
		}
	}
	if p == nil || len(p) != 0 {
		return nil, errBadManifest
	}
	return m, nil
}

// writeManifest replaces the manifest of dir atomically.
func writeManifest(fs vfs, dir string, m *manifest) error {
	tmp := path(dir, manifestName+".tmp")
	f, err := fs.open(tmp, true, true)
	if err != nil {
		return err
	}
	b := m.encode()
	if err := f.Truncate(0); err != nil {
		f.Close()
		return err
	}
	if _, err := f.WriteAt(b, 0); err != nil {
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
	if err := fs.rename(tmp, path(dir, manifestName)); err != nil {
		return err
	}
	return fs.syncDir(dir)
}

// readManifest reads the manifest of dir; ok is false when there is none.
func readManifest(fs vfs, dir string) (m *manifest, ok bool, err error) {
	f, err := fs.open(path(dir, manifestName), false, false)
	if err != nil {
		if isNotExist(err) {
			return nil, false, nil
		}
		return nil, false, err
	}
	defer f.Close()
	n, err := f.size()
	if err != nil {
		return nil, false, err
	}
	b := make([]byte, n)
	if _, err := f.ReadAt(b, 0); err != nil {
		return nil, false, err
	}
	m, err = decodeManifest(b)
	if err != nil {
		return nil, true, fmt.Errorf("%w: %s: %v", ErrDamaged, path(dir, manifestName), err)
	}
	return m, true, nil
}
