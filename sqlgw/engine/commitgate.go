package engine

import "sync"

// commitGate tracks this gateway's commits in flight, so that CREATE INDEX
// can wait for those that may have resolved the table before the index
// was added (drain) instead of a whole catalog refresh interval when no
// other gateway shares the store (buildIndex). A commit that writes
// enters before it looks at its tables' indexes (indexesSince, txn.go)
// and leaves when it has written and finished its index writes; drain
// returns once every commit that entered before it has left. Commits that
// enter after it see the index.
//
// It is also the backfill's writer gate (ixmaint.WriterGate, through
// writerGate): on an embedded store this gateway alone uses, its commits
// are every write of a row, so a backfill page read while none was in
// flight (idle) and written while none has entered or left since, with
// new ones held back during the write (hold), needs no check of its rows
// (catalog/ixmaint backfillQuiet). seq counts every enter and leave; a
// commit that arrives during a hold waits for its release (one unsynced
// write of a page's index entities).
//
// So every write that changes a row of a table on the embedded store
// must pass this gate (commitWrites does, from before indexesSince until
// after finishIndexes): a new write path that bypassed it (a bulk load
// writing its own batches, say) would let a backfill page written
// unchecked miss its change and leave a stale index entry.
// TestIndexBuildQuietUnderWriters and TestIndexBuildQuietPage* (sqlgw)
// catch a gate that lets a commit through. Writes that change only a
// row's ETag (REPAIR TABLE's touch) need not pass: the page's entities
// depend on the rows' values.
type commitGate struct {
	mu       sync.Mutex
	cond     *sync.Cond
	epoch    uint64         // current epoch; drain starts a new one
	active   map[uint64]int // commits in flight per epoch they entered in
	inflight int            // commits in flight
	seq      uint64         // enters and leaves so far
	held     bool           // a backfill page is being written (hold)
}

func (c *commitGate) init() {
	if c.active == nil {
		c.active = map[uint64]int{}
		c.cond = sync.NewCond(&c.mu)
	}
}

// enter registers a commit; the caller calls the returned func when it
// has finished.
func (c *commitGate) enter() (leave func()) {
	c.mu.Lock()
	c.init()
	for c.held {
		c.cond.Wait()
	}
	e := c.epoch
	c.active[e]++
	c.inflight++
	c.seq++
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		c.inflight--
		c.seq++
		if c.active[e]--; c.active[e] == 0 {
			delete(c.active, e)
			c.cond.Broadcast()
		}
		c.mu.Unlock()
	}
}

// drain waits until every commit that entered before the call has left.
func (c *commitGate) drain() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.active == nil {
		return
	}
	target := c.epoch
	c.epoch++
	for {
		busy := false
		for e := range c.active {
			if e <= target {
				busy = true
				break
			}
		}
		if !busy {
			return
		}
		c.cond.Wait()
	}
}

// idle returns the count of enters and leaves when no commit is in flight
// (a hold changes neither).
func (c *commitGate) idle() (uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seq, c.inflight == 0
}

// hold keeps commits from entering until release, if none has entered or
// left since idle returned token (none is in flight then either).
func (c *commitGate) hold(token uint64) (release func(), ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seq != token || c.inflight != 0 || c.held {
		return nil, false
	}
	c.init()
	c.held = true
	return func() {
		c.mu.Lock()
		c.held = false
		c.cond.Broadcast()
		c.mu.Unlock()
	}, true
}

// writerGate is the gateway's commit gate as the backfill's
// ixmaint.WriterGate: it answers only while the store is this gateway's
// alone (storage.Claimer), at the page's read and at its write, since
// another gateway's writers do not pass this gate.
type writerGate struct{ g *Gateway }

func (w writerGate) alone() bool { return w.g.alone != nil && w.g.alone() }

// Idle implements ixmaint.WriterGate.
func (w writerGate) Idle() (uint64, bool) {
	if !w.alone() {
		return 0, false
	}
	return w.g.commits.idle()
}

// Hold implements ixmaint.WriterGate.
func (w writerGate) Hold(token uint64) (func(), bool) {
	if !w.alone() {
		return nil, false
	}
	return w.g.commits.hold(token)
}

// commitIndexesHook, if set (tests only), runs in a commit after it has
// taken its tables' indexes (indexesSince), before it writes: the window
// CREATE INDEX's drain must wait out.
var commitIndexesHook func()
