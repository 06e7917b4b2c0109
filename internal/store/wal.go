package store

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sync/atomic"
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
	rec = append(rec, payload...)
	seal(rec)
	return rec
}

// seal fills in the header of rec, a record whose payload follows its
// first recordHeader bytes.
func seal(rec []byte) {
	payload := rec[recordHeader:]
	binary.LittleEndian.PutUint32(rec[0:4], uint32(len(payload)))
	binary.LittleEndian.PutUint32(rec[4:8], crc32.Checksum(payload, castagnoli))
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
	// zeroTail is set when the log ends in zeros from end on: space
	// written ahead for records to come, not damage.
	zeroTail bool
}

// whole reports whether the log holds nothing but valid records (and the
// zeros written ahead of them).
func (r scanResult) whole() bool { return r.end == r.total || r.zeroTail }

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
	if off < total && zeroFrom(f, off, total) {
		res.zeroTail, res.reason = true, ""
	}
	return res, nil
}

// zeroFrom reports whether the file holds only zero bytes from off to total.
func zeroFrom(f file, off, total int64) bool {
	buf := make([]byte, min(total-off, 1<<20))
	for off < total {
		n := min(int64(len(buf)), total-off)
		if _, err := f.ReadAt(buf[:n], off); err != nil {
			return false
		}
		for _, c := range buf[:n] {
			if c != 0 {
				return false
			}
		}
		off += n
	}
	return true
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

// wal is the log being appended to. Its file is written ahead with zeros,
// walChunk at a time, and synced: a record then overwrites bytes already
// on disk, and syncing it (fdatasync) writes only the data, not the file's
// size and block map (on ext4 that is a journal commit per write saved).
// A full disk shows when a chunk is written ahead, before any record.
type wal struct {
	num   uint64
	f     file
	size  int64 // end of the valid data: the next record goes here
	last  int64 // start of the last record
	alloc int64 // bytes of the file written ahead
	ahead int64 // how far past a record to write ahead (walAhead)
	// durable is how much of alloc is known to be on disk, blocks and
	// size: a record written below it needs only fdatasync. Chunks
	// written ahead without a sync (NoSync writes, or a log reopened
	// after a crash) may still be delayed allocations, which fdatasync
	// would write block by block with the metadata of each; one fsync
	// makes the whole of alloc durable at once.
	durable int64
	// written is size for readers outside the writer's turn (Size).
	written atomic.Int64
}

const walChunk = 1 << 20

// walAhead is how far past a record a log is written ahead: walChunk, or
// less when a memtable's log holds less than that before it is flushed
// and the log dropped.
func walAhead(memtableBytes int64) int64 { return min(walChunk, memtableBytes) }

// append writes one record at the end of the log, after pointing the tip
// at it. A failed write leaves size where it was, so the next record
// overwrites the partial one (which is zeroed again, so no stale bytes
// follow it).
func (w *wal) append(tip *tipFile, rec []byte, sync bool) error {
	end := w.size + int64(len(rec))
	// Zeros are written ahead only for a record that will be synced:
	// they make its fdatasync cheap, and an unsynced record would only
	// pay for them (a page write each) in the writer's time.
	if end > w.alloc && sync {
		if err := w.reserve(end + w.ahead); err != nil {
			return err
		}
	}
	if err := tip.set(w.num, w.size); err != nil {
		return err
	}
	if _, err := w.f.WriteAt(rec, w.size); err != nil {
		w.f.WriteAt(make([]byte, len(rec)), w.size)
		return err
	}
	if sync {
		if err := w.sync(end); err != nil {
			return err
		}
	}
	w.last = w.size
	w.size = end
	w.alloc = max(w.alloc, end)
	w.written.Store(end)
	return nil
}

// reserve writes zeros up to n (rounded up to a whole page).
//
// The zeros go one page per write: the page cache sizes a folio by the
// write that creates it, and a folio made by one large write (Linux 6.16+
// gives ext4 large folios) would be dirtied whole by every small record
// written into it, so each fsync'd commit would write back up to a
// megabyte. Page-sized folios keep a commit's writeback to the pages it
// touched.
func (w *wal) reserve(n int64) error {
	n = (n + walPage - 1) / walPage * walPage
	var zeros [walPage]byte
	for off := w.alloc; off < n; {
		next := min((off/walPage+1)*walPage, n)
		if _, err := w.f.WriteAt(zeros[:next-off], off); err != nil {
			w.f.Truncate(max(w.alloc, w.size))
			return err
		}
		off = next
	}
	w.alloc = n
	return nil
}

const walPage = 4096

// sync makes the log durable up to end: data only when end lies in the
// part written ahead and synced, else the whole file once, which makes
// every chunk written ahead so far durable too.
func (w *wal) sync(end int64) error {
	if end <= w.durable {
		return w.f.datasync()
	}
	if err := w.f.Sync(); err != nil {
		return err
	}
	w.durable = w.alloc
	return nil
}

// finish cuts the zeros written ahead and syncs the log, which then ends
// with its last record.
func (w *wal) finish() error {
	return errors.Join(w.f.Truncate(w.size), w.f.Sync())
}
