package storage

import "context"

type deferredSyncKey struct{}

// WithDeferredSync returns a context under which a store that keeps an
// ordered write-ahead log (the embedded store) may return from a write
// before the write reaches stable storage. Such a write becomes durable
// together with the next write that is synced (the log is ordered, so a
// synced write makes every write before it durable), or with a sync
// barrier: MultiBatch with no batches. The Table service ignores it (every
// request it acknowledges is durable).
//
// Only a caller whose writes are not acknowledged to anyone until it has
// made them durable may use it: the index backfill (catalog/ixmaint),
// whose pages are worthless until the index is made ready by a synced
// catalog write, and which ends with a barrier anyway. A statement that a
// client sees succeed must never be written under it.
func WithDeferredSync(ctx context.Context) context.Context {
	return context.WithValue(ctx, deferredSyncKey{}, true)
}

// DeferredSync reports whether ctx was made by WithDeferredSync.
func DeferredSync(ctx context.Context) bool {
	v, _ := ctx.Value(deferredSyncKey{}).(bool)
	return v
}
