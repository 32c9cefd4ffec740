package storage

import (
	"context"
	"errors"
	"fmt"
)

// TableBatch is the operations of one batch (one partition of one table,
// valid for Store.Batch) within a MultiBatch.
type TableBatch struct {
	Table string
	Ops   []Operation
}

// MultiBatcher is implemented by stores that can apply batches of several
// partitions and tables as one atomic write (the embedded store: one
// Pebble batch). The Table service cannot; callers that need atomicity
// across partitions there use a transaction record (catalog/txn), with the
// same semantics.
type MultiBatcher interface {
	// MultiBatch applies every batch (each valid for Store.Batch: at most
	// MaxBatchOps operations on distinct entities of one partition; no
	// entity in two batches) atomically: all succeed, or none has any
	// effect and the error is a *MultiBatchError. It returns the ETags of
	// each batch. A wrapper whose inner store cannot returns
	// ErrMultiBatchUnsupported before sending anything.
	//
	// Batches may hold OpCheck operations (Store.Batch may not): an entity
	// that must exist with the ETag given, written by nobody. Such a check
	// orders the write after every write of that entity the caller saw,
	// and before every later one, without rewriting it (the index
	// backfill's condition that a page's rows are unchanged,
	// catalog/ixmaint). Its ETag in the result is the entity's own.
	//
	// With no batches it writes nothing and returns once every write the
	// store returned before it is durable: the sync barrier for writes
	// made under WithDeferredSync.
	MultiBatch(ctx context.Context, batches []TableBatch) ([][]ETag, error)
}

// ErrMultiBatchUnsupported is returned by a MultiBatcher wrapper whose
// inner store has no atomic multi-partition batch.
var ErrMultiBatchUnsupported = errors.New("storage: this store has no atomic batch across partitions")

// MultiBatchError names the batch of a MultiBatch that failed; Err is a
// *BatchError naming the operation.
type MultiBatchError struct {
	Batch int
	Err   error
}

func (e *MultiBatchError) Error() string {
	return fmt.Sprintf("storage: multi-batch %d: %v", e.Batch, e.Err)
}

func (e *MultiBatchError) Unwrap() error { return e.Err }

// ForwardMultiBatch is MultiBatch for wrappers: it calls inner's, or
// returns ErrMultiBatchUnsupported.
func ForwardMultiBatch(ctx context.Context, inner Store, batches []TableBatch) ([][]ETag, error) {
	if m, ok := inner.(MultiBatcher); ok {
		return m.MultiBatch(ctx, batches)
	}
	return nil, ErrMultiBatchUnsupported
}

// Writes counts the operations of batches that write an entity: all but
// OpCheck (for the counters of wrappers: entities written).
func Writes(batches []TableBatch) int {
	n := 0
	for _, b := range batches {
		for _, op := range b.Ops {
			if op.Kind != OpCheck {
				n++
			}
		}
	}
	return n
}
