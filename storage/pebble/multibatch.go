package pebble

import (
	"context"
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
// conditions (If-Match, insert-only) checked as Batch checks them.
//
// With no batches it is a sync barrier: it syncs the log, which makes every
// write committed before it durable (storage.WithDeferredSync).
func (s *Store) MultiBatch(ctx context.Context, batches []storage.TableBatch) ([][]storage.ETag, error) {
	if len(batches) == 0 {
		return nil, s.syncBarrier(ctx)
	}
	for i, b := range batches {
		if err := s.limits.ValidateBatch(b.Ops); err != nil {
			return nil, &storage.MultiBatchError{Batch: i, Err: err}
		}
	}
	if err := s.rlock(ctx); err != nil {
		return nil, err
	}
	defer s.mu.RUnlock()
	keys := make([][][]byte, len(batches))
	seen := map[string]bool{}
	var stripes []int
	for i, b := range batches {
		t, err := s.table(b.Table)
		if err != nil {
			return nil, &storage.MultiBatchError{Batch: i, Err: &storage.BatchError{Index: -1, Err: err}}
		}
		keys[i] = make([][]byte, len(b.Ops))
		for j, op := range b.Ops {
			k := appendEntityKey(nil, t.id, op.Entity.PartitionKey, op.Entity.RowKey)
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
	ticks := storage.DateTime(time.Now()).Ticks()
	pb := s.db.NewBatch()
	defer pb.Close()
	out := make([][]storage.ETag, len(batches))
	for i, b := range batches {
		out[i] = make([]storage.ETag, len(b.Ops))
		for j, op := range b.Ops {
			etag, val, err := s.apply(op, keys[i][j], ticks, s.get)
			if err != nil {
				return nil, &storage.MultiBatchError{Batch: i, Err: &storage.BatchError{Index: j, Err: err}}
			}
			if val == nil {
				pb.Delete(keys[i][j], nil)
			} else {
				pb.Set(keys[i][j], val, nil)
			}
			out[i][j] = etag
		}
	}
	if err := pb.Commit(s.writeOptions(ctx)); err != nil {
		return nil, fmt.Errorf("sqlgw/pebble: commit: %w", err)
	}
	return out, nil
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
