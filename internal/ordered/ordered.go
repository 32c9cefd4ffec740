// Package ordered runs a commit's store requests concurrently and
// reports the failure that comes first in the caller's order, not the
// first to arrive: a multi-row INSERT whose rows hit several stored keys
// names the first row's, as MySQL does, whichever request answers first.
// The transaction commit (catalog/txn) and the engine's commits
// (sqlgw/engine: batches, global index writes) share it; it imports
// nothing of the module.
package ordered

import "sync"

// Group runs functions on at most limit goroutines at a time and keeps
// the error recorded at the lowest position. Its methods may be called
// from any goroutine; Go and Wait from one (the caller's) at a time.
type Group struct {
	sem chan struct{}
	wg  sync.WaitGroup

	mu     sync.Mutex
	err    error
	at     int
	failed bool
}

// NewGroup returns a Group running at most limit (at least 1)
// functions at a time.
func NewGroup(limit int) *Group {
	return &Group{sem: make(chan struct{}, max(limit, 1))}
}

// Go runs f on a new goroutine, first waiting (on the caller's goroutine)
// until fewer than limit run; f's error, if any, is recorded at position
// at (Fail). Go starts f even after a failure: callers that stop at the
// first failure check Err before calling it.
func (g *Group) Go(at int, f func() error) {
	g.wg.Add(1)
	g.sem <- struct{}{}
	go func() {
		defer g.wg.Done()
		defer func() { <-g.sem }()
		if err := f(); err != nil {
			g.Fail(at, err)
		}
	}()
}

// Fail records err (if not nil) at position at: Err and Wait report it
// unless an error was recorded at a lower position.
func (g *Group) Fail(at int, err error) {
	if err == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.failed || at < g.at {
		g.err, g.at, g.failed = err, at, true
	}
}

// Err returns the error recorded at the lowest position so far, or nil.
func (g *Group) Err() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}

// Wait waits for the functions started by Go to return and returns Err.
// Go may be called again afterwards.
func (g *Group) Wait() error {
	g.wg.Wait()
	return g.Err()
}
