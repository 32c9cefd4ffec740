package catalog

import (
	"context"
	"time"
)

// RefreshInterval returns how long this catalog trusts its cached metadata
// (Options.RefreshInterval): another gateway sees a DDL change at most this
// long after it committed (online index builds wait this long before
// backfilling, so every writer maintains the new index by then).
func (c *Catalog) RefreshInterval() time.Duration { return c.opts.RefreshInterval }

// Refreshing ahead (issue 13, Azure)
//
// The cached catalog is trusted for RefreshInterval after the version
// check that produced it started (checkedAt); a read that finds it older
// checks the version entity first, one store request inline in whatever
// statement made the read (on Azure Table a Get Entity of a few hundred
// µs, paid by 0.5–1.5% of point selects under a steady load). A read that
// finds the cache past half its interval but still within it uses it and
// starts the check in the background instead (one at a time, on its own
// goroutine): under a load of more than one statement per half interval
// the cache is renewed before it expires and no statement waits for the
// check.
//
// The bound is unchanged, because a background check is the same refresh
// as an inline one: checkedAt is taken before its Get, a read still
// refreshes inline once the cache is RefreshInterval old (when the
// background check failed, hangs or has not finished by then: it then
// waits behind it on refreshMu, as concurrent inline checks always did,
// and checks again itself), and Refresh forces a check as before. So a
// statement never uses a schema older than a check started less than
// RefreshInterval before it, and a gateway sees another's DDL within
// RefreshInterval of its commit. An idle gateway sends nothing: the check
// is started by reads only. Its errors are dropped; the inline check past
// the bound reports them to a statement. It runs with its own context
// (the statement that started it may end first), bounded by
// refreshAheadTimeout beside the store's own per-request timeouts.
// TestCacheRefreshAhead checks all of this with a held store and a fake
// clock.

// refreshAheadTimeout bounds one background check.
const refreshAheadTimeout = 30 * time.Second

// aheadDue reports whether a background check may start at now: none is
// in flight and none started in the last eighth of the interval (a
// failing check is not retried by every read; the inline check past the
// bound still is). It records the start. c.mu is held.
func (c *Catalog) aheadDue(now time.Time) bool {
	if c.ahead.Load() || now.Sub(c.aheadAt) < c.opts.RefreshInterval/8 {
		return false
	}
	c.aheadAt = now
	return true
}

// startRefreshAhead starts a background version check unless one is in
// flight.
func (c *Catalog) startRefreshAhead() {
	if !c.ahead.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer c.ahead.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), refreshAheadTimeout)
		defer cancel()
		_, _ = c.refresh(ctx, false)
	}()
}
