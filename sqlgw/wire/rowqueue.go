package wire

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/sqlgw/sqlgw/sqlgw/mysqlerr"
)

// rowQueues are the gateway's wait queues of conflicting autocommit
// statements, one per entity (autoretry.go): a statement that conflicted
// on an entity waits for that entity's turn, first come first served, and
// holds it while its retry runs. A queue exists while a statement holds or
// waits for its entity's turn; the zero value is ready to use.
type rowQueues struct {
	mu sync.Mutex
	m  map[mysqlerr.ConflictKey]*rowQueue
	// hints: the row a statement text last conflicted on, while that
	// row's queue exists (autoretry.go); nhints is len(hints), read
	// without mu.
	hints  map[string]mysqlerr.ConflictKey
	nhints atomic.Int32
}

// rowQueue is one entity's turn: whether a statement holds it, and the
// statements waiting for it, in arrival order.
type rowQueue struct {
	held    bool
	waiting []*rowTicket
	texts   []string // the hints naming this row
}

// rowTicket is one waiting statement; turn is closed when the turn passes
// to it.
type rowTicket struct {
	turn chan struct{}
}

// acquire waits for key's turn and returns the function that passes it
// on (to be called once, after the statement's attempt). waited reports
// whether the statement had to wait behind another one. If ctx ends
// first, the statement leaves the queue and acquire returns ctx's cause.
// A text (not "") is recorded as a hint of key: until key's queue goes,
// the next statements of that text queue for key before their first
// attempt (autoretry.go).
func (q *rowQueues) acquire(ctx context.Context, key mysqlerr.ConflictKey, text string) (release func(), waited bool, err error) {
	release = func() { q.release(key) }
	q.mu.Lock()
	if q.m == nil {
		q.m = map[mysqlerr.ConflictKey]*rowQueue{}
	}
	rq := q.m[key]
	if rq == nil {
		rq = &rowQueue{}
		q.m[key] = rq
	}
	if text != "" {
		q.hint(rq, text, key)
	}
	if !rq.held {
		rq.held = true
		q.mu.Unlock()
		return release, false, nil
	}
	t := &rowTicket{turn: make(chan struct{})}
	rq.waiting = append(rq.waiting, t)
	q.mu.Unlock()
	select {
	case <-t.turn:
		return release, true, nil
	case <-ctx.Done():
	}
	q.mu.Lock()
	select {
	case <-t.turn:
		// The turn came at the same time: pass it on.
		q.mu.Unlock()
		q.release(key)
		return nil, true, context.Cause(ctx)
	default:
	}
	for i, w := range rq.waiting {
		if w == t {
			rq.waiting = append(rq.waiting[:i], rq.waiting[i+1:]...)
			break
		}
	}
	q.mu.Unlock()
	return nil, true, context.Cause(ctx)
}

// release passes key's turn to the first waiting statement, or drops the
// queue when none waits.
func (q *rowQueues) release(key mysqlerr.ConflictKey) {
	q.mu.Lock()
	defer q.mu.Unlock()
	rq := q.m[key]
	if rq == nil || !rq.held {
		panic("sqlgw/wire: release of a row turn not held")
	}
	if len(rq.waiting) == 0 {
		delete(q.m, key)
		for _, text := range rq.texts {
			if q.hints[text] == key {
				delete(q.hints, text)
			}
		}
		q.nhints.Store(int32(len(q.hints)))
		return
	}
	next := rq.waiting[0]
	rq.waiting[0] = nil
	rq.waiting = rq.waiting[1:]
	close(next.turn)
}

// hint records text as a hint of key, whose queue is rq (under mu).
func (q *rowQueues) hint(rq *rowQueue, text string, key mysqlerr.ConflictKey) {
	if q.hints == nil {
		q.hints = map[string]mysqlerr.ConflictKey{}
	}
	if old, ok := q.hints[text]; ok && old == key {
		return
	}
	q.hints[text] = key
	rq.texts = append(rq.texts, text)
	q.nhints.Store(int32(len(q.hints)))
}

// anyHints reports whether some row has a hint (without the lock).
func (q *rowQueues) anyHints() bool { return q.nhints.Load() > 0 }

// hinted returns the row statement text last conflicted on, if that
// row's queue still exists.
func (q *rowQueues) hinted(text string) (mysqlerr.ConflictKey, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	key, ok := q.hints[text]
	return key, ok
}

// state returns the number of statements waiting for key's turn and
// whether one holds it (for tests).
func (q *rowQueues) state(key mysqlerr.ConflictKey) (held bool, waiting int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if rq := q.m[key]; rq != nil {
		return rq.held, len(rq.waiting)
	}
	return false, 0
}
