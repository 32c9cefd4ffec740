package pebble

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"slices"
	"time"

	pebbledb "github.com/cockroachdb/pebble/v2"

	"github.com/sqlgw/sqlgw/storage"
)

var _ storage.MultiBatcher = (*Store)(nil)

// MultiBatch implements storage.MultiBatcher: every batch is validated as
// Batch validates it, then all of them are applied under the stripe locks
// of all their entities and committed as one Pebble batch, so a write
// across partitions and tables is atomic and costs one request, with the
// conditions (If-Match, insert-only) checked as Batch checks them. An
// OpCheck is checked the same way (read under its stripe lock, like an
// If-Match update) and writes nothing.
//
// With no batches it is a sync barrier: it syncs the log, which makes every
// write committed before it durable (storage.WithDeferredSync).
func (s *Store) MultiBatch(ctx context.Context, batches []storage.TableBatch) ([][]storage.ETag, error) {
	if len(batches) == 0 {
		return nil, s.syncBarrier(ctx)
	}
	for i, b := range batches {
		if err := s.limits.ValidateMultiBatchOps(b.Ops); err != nil {
			return nil, &storage.MultiBatchError{Batch: i, Err: err}
		}
	}
	if err := s.rlock(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	keys := make([][][]byte, len(batches))
	n := 0
	for _, b := range batches {
		n += len(b.Ops)
	}
	// Sized once, and one array each for the keys, the keys' bytes and
	// the ETags of all the batches: a bulk INSERT has thousands of
	// batches of one operation.
	seen := make(map[string]bool, n)
	stripes := make([]int, 0, n)
	allKeys := make([][]byte, n)
	var arena []byte
	off := 0
	for i, b := range batches {
		t, err := s.table(b.Table)
		if err != nil {
			return nil, &storage.MultiBatchError{Batch: i, Err: &storage.BatchError{Index: -1, Err: err}}
		}
		keys[i] = allKeys[off : off+len(b.Ops) : off+len(b.Ops)]
		off += len(b.Ops)
		for j, op := range b.Ops {
			start := len(arena)
			arena = appendEntityKey(arena, t.id, op.Entity.PartitionKey, op.Entity.RowKey)
			k := arena[start:len(arena):len(arena)] // earlier keys keep the arrays they were written to
			if seen[string(k)] {
				return nil, &storage.MultiBatchError{Batch: i, Err: &storage.BatchError{Index: j,
					Err: fmt.Errorf("%w: entity %s/%s of table %s in two batches", storage.ErrInvalid, op.Entity.PartitionKey, op.Entity.RowKey, b.Table)}}
			}
			seen[string(k)] = true
			keys[i][j] = k
			stripes = append(stripes, int(maphash.Bytes(s.seed, k)&(numStripes-1)))
		}
	}
	slices.Sort(stripes)
	stripes = slices.Compact(stripes)
	for _, i := range stripes {
		s.stripes[i].Lock()
	}
	defer func() {
		for _, i := range stripes {
			s.stripes[i].Unlock()
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	read := s.get
	if len(seen) >= multiBatchIterOps {
		r, closeAll := s.tableReaders()
		defer closeAll()
		read = r
	}
	read = s.cachedRead(read) // the keys' stripes are locked (rowcache.go)
	ticks := storage.DateTime(time.Now()).Ticks()
	pb := s.db.NewBatch()
	defer pb.Close()
	out := make([][]storage.ETag, len(batches))
	allOut := make([]storage.ETag, n)
	off = 0
	var buf []byte // each record, copied by Set
	for i, b := range batches {
		out[i] = allOut[off : off+len(b.Ops) : off+len(b.Ops)]
		off += len(b.Ops)
		for j, op := range b.Ops {
			if op.Kind == storage.OpCheck {
				etag, err := check(op, keys[i][j], read)
				if err != nil {
					return nil, &storage.MultiBatchError{Batch: i, Err: &storage.BatchError{Index: j, Err: err}}
				}
				out[i][j] = etag
				continue
			}
			etag, val, err := s.apply(op, keys[i][j], ticks, read, buf)
			if err != nil {
				return nil, &storage.MultiBatchError{Batch: i, Err: &storage.BatchError{Index: j, Err: err}}
			}
			if val == nil {
				pb.Delete(keys[i][j], nil)
			} else {
				pb.Set(keys[i][j], val, nil)
				buf = val[:0]
			}
			out[i][j] = etag
		}
	}
	// The row cache's entries of the keys become the records written,
	// or go if the commit failed (rowcache.go).
	w := s.rc.begin(allKeys, storage.BulkWrite(ctx))
	err := s.commit(pb, s.writeOptions(ctx))
	w.done(committed(pb, err))
	if err != nil {
		return nil, fmt.Errorf("sqlgw/pebble: commit: %w", err)
	}
	return out, nil
}

// check verifies an OpCheck against the current record under key (its
// stripe locked): it must exist and match op.IfMatch. It returns the
// record's ETag.
func check(op storage.Operation, key []byte, read func([]byte) ([]byte, bool, error)) (storage.ETag, error) {
	cur, found, err := read(key)
	if err != nil {
		return "", err
	}
	if !found {
		return "", fmt.Errorf("%w: entity (%q, %q)", storage.ErrNotFound, op.Entity.PartitionKey, op.Entity.RowKey)
	}
	rec, err := parseRecord(cur)
	if err != nil {
		return "", err
	}
	if op.IfMatch != "" && op.IfMatch != storage.ETagAny && string(op.IfMatch) != string(rec.etag) {
		return "", fmt.Errorf("%w: entity (%q, %q)", storage.ErrPreconditionFailed, op.Entity.PartitionKey, op.Entity.RowKey)
	}
	return storage.ETag(rec.etag), nil
}

// writeOptions is how a write under ctx commits: synced unless the store
// is NoSync or ctx defers the sync (storage.WithDeferredSync).
func (s *Store) writeOptions(ctx context.Context) *pebbledb.WriteOptions {
	if storage.DeferredSync(ctx) {
		return pebbledb.NoSync
	}
	return s.wo
}

// syncBarrier returns once every write committed before it is durable: a
// synced write of a log-only record (Pebble's log is ordered, so syncing
// it syncs everything before it).
func (s *Store) syncBarrier(ctx context.Context) error {
	if err := s.rlock(ctx); err != nil {
		return err
	}
	defer s.mu.RUnlock()
	if s.wo != pebbledb.Sync {
		return nil
	}
	if err := s.db.LogData(nil, pebbledb.Sync); err != nil {
		return fmt.Errorf("sqlgw/pebble: sync: %w", err)
	}
	return nil
}

// multiBatchIterOps is the number of operations from which MultiBatch reads
// the current records through one iterator per table instead of a Get per
// operation: a Get builds and discards a read path through every level
// each time, while an iterator's seeks reuse it (and a seek to a key after
// the last one continues from there), so a statement's thousands of rows
// (a bulk INSERT, a backfill page) cost much less to check.
var multiBatchIterOps = 16

// tableReaders returns a read function (as get) that seeks in one
// iterator per table prefix, created on first use, and a function closing
// them. The entities read are locked by the caller, so the iterators'
// view of them is current.
func (s *Store) tableReaders() (func([]byte) ([]byte, bool, error), func()) {
	type tableIter struct {
		prefix []byte
		it     *pebbledb.Iterator
	}
	var iters []tableIter
	read := func(key []byte) ([]byte, bool, error) {
		var it *pebbledb.Iterator
		for _, ti := range iters {
			if bytes.HasPrefix(key, ti.prefix) {
				it = ti.it
				break
			}
		}
		if it == nil {
			id := binary.BigEndian.Uint64(key[1:tablePrefixLen])
			prefix := appendTablePrefix(nil, id)
			var err error
			it, err = s.db.NewIter(&pebbledb.IterOptions{LowerBound: prefix, UpperBound: appendTablePrefix(nil, id+1)})
			if err != nil {
				return nil, false, err
			}
			iters = append(iters, tableIter{prefix: prefix, it: it})
		}
		if !it.SeekGE(key) || !bytes.Equal(it.Key(), key) {
			return nil, false, it.Error()
		}
		v, err := it.ValueAndErr()
		return v, err == nil, err
	}
	return read, func() {
		for _, ti := range iters {
			ti.it.Close()
		}
	}
}
