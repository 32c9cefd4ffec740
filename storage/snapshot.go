package storage

import (
	"context"
	"errors"
)

// Snapshot is a consistent point-in-time view of a store, taken by
// Snapshotter.Snapshot. Reads (Get, Query) whose context carries it
// (WithSnapshot) see exactly the writes applied before it was taken: every
// atomic write (an entity, a batch, a MultiBatch) wholly or not at all, in
// every table and partition, on every page of a query. Writes are never
// affected by it: they apply to the store's current state, and their
// conditions (If-Match, an insert's absence) are checked there, so a write
// based on a value read in a snapshot and changed since fails.
type Snapshot interface {
	// Release frees the snapshot. Reads that carry it afterwards fail
	// with ErrSnapshotReleased. Release may be called more than once.
	Release()
}

// Snapshotter is implemented by stores that can take snapshots (the
// embedded Pebble store). Wrappers forward it with ForwardSnapshot.
type Snapshotter interface {
	Snapshot(ctx context.Context) (Snapshot, error)
}

var (
	// ErrSnapshotUnsupported: the store (or the backend below a wrapper)
	// cannot take snapshots; its reads are each of the latest committed
	// state (read committed).
	ErrSnapshotUnsupported = errors.New("storage: this store has no snapshots")
	// ErrSnapshotReleased: a read carried a snapshot already released.
	ErrSnapshotReleased = errors.New("storage: the read's snapshot was released")
)

type snapshotKey struct{}

// WithSnapshot returns ctx carrying snap (nil: carrying none, hiding one
// ctx carries). A store only honours a snapshot it took itself.
func WithSnapshot(ctx context.Context, snap Snapshot) context.Context {
	return context.WithValue(ctx, snapshotKey{}, snapshotBox{snap})
}

type snapshotBox struct{ s Snapshot }

// SnapshotOf returns the snapshot ctx carries, or nil.
func SnapshotOf(ctx context.Context) Snapshot {
	b, _ := ctx.Value(snapshotKey{}).(snapshotBox)
	return b.s
}

// ForwardSnapshot is Snapshot for wrappers: it calls inner's, or returns
// ErrSnapshotUnsupported.
func ForwardSnapshot(ctx context.Context, inner Store) (Snapshot, error) {
	if s, ok := inner.(Snapshotter); ok {
		return s.Snapshot(ctx)
	}
	return nil, ErrSnapshotUnsupported
}
