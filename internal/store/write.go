package store

import (
	"fmt"
	"time"
)

// writeReq is a batch waiting in the write queue.
type writeReq struct {
	b    *Batch
	sync bool
	err  error
	done bool
}

// groupBytes bounds the batches the head of the queue writes for those
// behind it: enough to share one fsync among many block-sized commits,
// little enough that a small batch at the head is not held up long.
// A head of at most smallBatch bytes takes no more than smallBatch
// bytes of others: a block's commit queued behind a bulk loader's
// write is not made to write and sync the next one too.
const (
	groupBytes = 1 << 20
	smallBatch = 128 << 10
)

// Write logs the batch and makes it durable before applying it and
// returning. Readers see all of it or none of it.
//
// Concurrent writers commit in groups: the batch at the head of the queue
// writes itself and the batches queued behind it as one log record, with
// one write and one fsync, and applies them in queue order. The record is
// replayed whole or not at all, as each batch is; none of the batches is
// acknowledged before the fsync, so a crash may lose the group but never
// part of a batch or an acknowledged one, and the tip still points at the
// start of the only record that a crash can tear.
func (db *DB) Write(b *Batch) error {
	if b.n == 0 {
		return nil
	}
	if len(b.ops) > maxRecord {
		return fmt.Errorf("store: batch of %d bytes exceeds the %d-byte record limit", len(b.ops), maxRecord)
	}
	if d := slowDelay(int(db.l0Tables.Load()), len(b.ops)); d > 0 {
		t := time.Now()
		time.Sleep(d)
		db.stallSlow.Add(int64(time.Since(t)))
	}
	req := &writeReq{b: b, sync: !db.NoSync}
	db.qmu.Lock()
	db.queue = append(db.queue, req)
	for !req.done && db.queue[0] != req {
		db.qcond.Wait()
	}
	if req.done {
		db.qmu.Unlock()
		return req.err
	}
	n, size := 1, len(b.ops)
	limit := groupBytes
	if size <= smallBatch {
		limit = size + smallBatch
	}
	for _, r := range db.queue[1:] {
		if size+len(r.b.ops) > limit {
			break
		}
		n, size = n+1, size+len(r.b.ops)
	}
	// Appends by the writers arriving meanwhile go past these n
	// elements, which only this leader reads until it takes them out.
	group := db.queue[:n:n]
	db.qmu.Unlock()

	err := db.writeGroup(group, size)

	db.qmu.Lock()
	for _, r := range group {
		r.err, r.done = err, true
	}
	if len(db.queue) == n {
		clear(db.queue)
		db.queue = db.queue[:0]
	} else {
		db.queue = db.queue[n:]
	}
	db.qcond.Broadcast()
	db.qmu.Unlock()
	return err
}

// writeGroup writes a group of batches (size bytes of operations) to the
// log as one record and applies them to the memtable.
//
// Writers take turns on writeMu; db.mu is held only to make room and
// take the log and memtable, not across the log's fsync, so readers
// (which take db.mu to pick the current version) never wait on a commit
// reaching the disk. The memtable takes one writer beside lock-free
// readers, and readers see the group only once seq moves.
func (db *DB) writeGroup(group []*writeReq, size int) error {
	db.writeMu.Lock()
	defer db.writeMu.Unlock()
	db.mu.Lock()
	if err := db.writable(); err != nil {
		db.mu.Unlock()
		return err
	}
	if err := db.makeRoom(); err != nil {
		db.mu.Unlock()
		return err
	}
	log, mem := db.log, db.cur.mem
	db.mu.Unlock()

	rec := db.recBuf[:0]
	if cap(rec) < recordHeader+size {
		rec = make([]byte, 0, recordHeader+size)
	}
	rec = rec[:recordHeader]
	sync := false
	for _, r := range group {
		rec = append(rec, r.b.ops...)
		sync = sync || r.sync
	}
	seal(rec)
	if cap(rec) <= 4*groupBytes { // a huge batch's buffer is not kept
		db.recBuf = rec
	}
	if err := log.append(db.tip, rec, sync); err != nil {
		return fmt.Errorf("store: writing the log: %w", err)
	}
	seq := db.seq.Load()
	for _, r := range group {
		r.b.forEach(func(del bool, key, value []byte) {
			seq++
			mem.add(key, value, seq, del)
		})
	}
	db.seq.Store(seq)
	return nil
}
