package storage

import (
	"context"
	"sync"
)

// Requests sent for several callers
//
// A store request is sometimes sent by one goroutine for several callers:
// catalog/txn's clock writes the commit points of every transaction queued
// while it runs in one batch. That goroutine must not run under any one
// caller's context (a statement's context is recycled when the statement
// ends; a caller's values, such as WithDeferredSync, must not decide how
// other callers' writes are made), yet the request is made for each of
// them and should count where their own requests count (a statement's
// request counters, EXPLAIN ANALYZE's trace: storage/recorder).
//
// OnBehalfOf gives such a request a context carrying, of the callers'
// values, only the attributions: the values that packages registered with
// RegisterAttribution, each merged over the callers by its package.

type attribution struct {
	key   any
	merge func(vals []any) any
}

var attributions struct {
	mu   sync.RWMutex
	list []attribution
}

// RegisterAttribution registers a context key whose values say for whom a
// request is made (the recorder's counters and traces). merge combines the
// values of several callers (at least one, never nil) into the value a
// request made for all of them carries. Packages call it from init.
func RegisterAttribution(key any, merge func(vals []any) any) {
	attributions.mu.Lock()
	defer attributions.mu.Unlock()
	attributions.list = append(attributions.list, attribution{key, merge})
}

// OnBehalfOf returns ctx carrying, for each registered attribution, the
// merge of the callers' values. It keeps no other value of the callers,
// nor their deadlines or cancellation. Each caller's context must stay
// live until the request is sent.
func OnBehalfOf(ctx context.Context, callers ...context.Context) context.Context {
	attributions.mu.RLock()
	defer attributions.mu.RUnlock()
	var vals []any
	for _, a := range attributions.list {
		vals = vals[:0]
		for _, c := range callers {
			if v := c.Value(a.key); v != nil {
				vals = append(vals, v)
			}
		}
		if len(vals) > 0 {
			ctx = context.WithValue(ctx, a.key, a.merge(vals))
		}
	}
	return ctx
}
