package engine

import "sync"

// commitGate tracks this gateway's commits in flight, so that CREATE INDEX
// can wait for those that may have resolved the table before the index
// was added (drain) instead of a whole catalog refresh interval when no
// other gateway shares the store (buildIndex). A commit enters before it
// looks at its tables' indexes (indexesSince, txn.go) and leaves when it
// has written; drain returns once every commit that entered before it
// has left. Commits that enter after it see the index.
type commitGate struct {
	mu     sync.Mutex
	cond   *sync.Cond
	epoch  uint64         // current epoch; drain starts a new one
	active map[uint64]int // commits in flight per epoch they entered in
}

// enter registers a commit; the caller calls the returned func when it
// has finished.
func (c *commitGate) enter() (leave func()) {
	c.mu.Lock()
	if c.active == nil {
		c.active = map[uint64]int{}
		c.cond = sync.NewCond(&c.mu)
	}
	e := c.epoch
	c.active[e]++
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
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

// commitIndexesHook, if set (tests only), runs in a commit after it has
// taken its tables' indexes (indexesSince), before it writes: the window
// CREATE INDEX's drain must wait out.
var commitIndexesHook func()
