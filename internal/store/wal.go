package store

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
)

// The write-ahead log holds every batch written since the memtable it
// feeds was last flushed to a table. Each batch is one record: uint32
// payload length, uint32 CRC-32C of the payload, payload (the batch's
// operations). The same framing was the whole store before the sorted
// tables (data.log), which is what lets one reader replay both.

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const (
	recordHeader = 8
	maxRecord    = 1 << 30
)

// frame returns the record of a batch payload.
func frame(payload []byte) []byte {
	rec := make([]byte, recordHeader, recordHeader+len(payload))
	binary.LittleEndian.PutUint32(rec[0:4], uint32(len(payload)))
	binary.LittleEndian.PutUint32(rec[4:8], crc32.Checksum(payload, castagnoli))
	return append(rec, payload...)
}

// scanResult is where a replay of a log stopped and why.
type scanResult struct {
	end     int64  // end of the valid records
	last    int64  // start of the last valid record
	total   int64  // file size
	reason  string // empty when the whole file is valid
	batches int
	// followed is set when a valid record sits right after the bad one:
	// the damage is then inside the file, not a torn end.
	followed bool
}

// scanLog replays a log from the start, calling apply for every valid
// record, and stops at the first record that does not hold.
func scanLog(f file, apply func(payload []byte) error) (scanResult, error) {
	total, err := f.size()
	if err != nil {
		return scanResult{}, err
	}
	res := scanResult{total: total}
	r := bufio.NewReaderSize(io.NewSectionReader(f, 0, total), 1<<20)
	var (
		off     int64
		hdr     [recordHeader]byte
		payload []byte
	)
	for off < total {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			res.reason = fmt.Sprintf("torn record header at offset %d", off)
			break
		}
		n := binary.LittleEndian.Uint32(hdr[0:4])
		sum := binary.LittleEndian.Uint32(hdr[4:8])
		if n == 0 || n > maxRecord || int64(n) > total-off-recordHeader {
			res.reason = fmt.Sprintf("bad record length %d at offset %d", n, off)
			break
		}
		if cap(payload) < int(n) {
			payload = make([]byte, n)
		}
		payload = payload[:n]
		if _, err := io.ReadFull(r, payload); err != nil {
			res.reason = fmt.Sprintf("torn record payload at offset %d", off)
			break
		}
		if crc32.Checksum(payload, castagnoli) != sum {
			res.reason = fmt.Sprintf("checksum mismatch at offset %d", off)
			res.followed = validRecordAt(f, off+recordHeader+int64(n), total)
			break
		}
		if err := apply(payload); err != nil {
			res.reason = fmt.Sprintf("malformed batch at offset %d: %v", off, err)
			res.followed = validRecordAt(f, off+recordHeader+int64(n), total)
			break
		}
		res.last = off
		off += recordHeader + int64(n)
		res.batches++
	}
	res.end = off
	return res, nil
}

// validRecordAt reports whether a whole record with a good checksum starts
// at off.
func validRecordAt(f file, off, total int64) bool {
	var hdr [recordHeader]byte
	if off+recordHeader > total {
		return false
	}
	if _, err := f.ReadAt(hdr[:], off); err != nil {
		return false
	}
	n := binary.LittleEndian.Uint32(hdr[0:4])
	if n == 0 || n > maxRecord || int64(n) > total-off-recordHeader {
		return false
	}
	p := make([]byte, n)
	if _, err := f.ReadAt(p, off+recordHeader); err != nil {
		return false
	}
	return crc32.Checksum(p, castagnoli) == binary.LittleEndian.Uint32(hdr[4:8])
}

// checkBatch validates a batch payload without applying it.
func checkBatch(p []byte) error {
	b := Batch{ops: p}
	return b.forEach(func(bool, []byte, []byte) {})
}

// wal is the log being appended to.
type wal struct {
	num  uint64
	f    file
	size int64 // end of the valid data: the next record goes here
	last int64 // start of the last record
}

// append writes one record at the end of the log, after pointing the tip
// at it. A failed write leaves size where it was, so the next record
// overwrites the partial one (and the tail is cut back to size, so no
// stale bytes follow it).
func (w *wal) append(tip *tipFile, rec []byte, sync bool) error {
	if err := tip.set(w.num, w.size); err != nil {
		return err
	}
	if _, err := w.f.WriteAt(rec, w.size); err != nil {
		w.f.Truncate(w.size)
		return err
	}
	if sync {
		if err := w.f.Sync(); err != nil {
			return err
		}
	}
	w.last = w.size
	w.size += int64(len(rec))
	return nil
}
