package storage

import "context"

type bulkWriteKey struct{}

// WithBulkWrite returns a context under which a write is part of a bulk
// load: a multi-row INSERT, LOAD DATA, INSERT ... SELECT. A store that
// caches the records its writes commit (the embedded store's row cache,
// storage/pebble rowcache.go) adds such a write's records as new entries
// only into free room, never evicting for them, as a scan-resistant cache
// keeps a scan from flushing what reads cached. The hint changes nothing
// a reader sees:
// a cached entry of a key the write changes is still replaced (or
// dropped), so the cache never serves a record older than the store's.
// Durability and atomicity are the write's as without it.
func WithBulkWrite(ctx context.Context) context.Context {
	if BulkWrite(ctx) {
		return ctx
	}
	return context.WithValue(ctx, bulkWriteKey{}, true)
}

// BulkWrite reports whether ctx was made by WithBulkWrite.
func BulkWrite(ctx context.Context) bool {
	v, _ := ctx.Value(bulkWriteKey{}).(bool)
	return v
}
