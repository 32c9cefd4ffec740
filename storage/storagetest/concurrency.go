package storagetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/sqlgw/sqlgw/storage"
)

const (
	writers    = 8  // goroutines
	increments = 25 // successful increments per goroutine
)

// increment reads entity (pk, rk) and writes n+1 with If-Match, retrying on
// ErrPreconditionFailed; it returns the number of conflicts seen.
func increment(ctx context.Context, s storage.Store, table, pk, rk string) (int, error) {
	for conflicts := 0; ; conflicts++ {
		if conflicts > 10_000 {
			return conflicts, fmt.Errorf("no progress after %d conflicts", conflicts)
		}
		cur, err := s.Get(ctx, table, pk, rk, nil)
		if err != nil {
			return conflicts, err
		}
		n := cur.Properties["n"].Int()
		_, err = s.Update(ctx, table, ent(pk, rk, storage.Properties{"n": storage.Int64(n + 1)}), storage.Merge, cur.ETag)
		if errors.Is(err, storage.ErrPreconditionFailed) {
			continue
		}
		return conflicts, err
	}
}

func (r *runner) testConcurrentUpdates(t *testing.T) {
	e := r.setup(t)
	e.insert("p", "counter", storage.Properties{"n": storage.Int64(0)})
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	conflicts := make([]int, writers)
	for w := range writers {
		wg.Go(func() {
			for range increments {
				c, err := increment(e.ctx, e.s, e.table, "p", "counter")
				conflicts[w] += c
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("increment: %v", err)
	}
	got := e.get("p", "counter").Properties["n"].Int()
	if got != writers*increments {
		t.Fatalf("counter = %d after %d x %d conditional increments: updates were lost", got, writers, increments)
	}
	total := 0
	for _, c := range conflicts {
		total += c
	}
	t.Logf("%d increments, %d conflicts retried", got, total)
}

func (r *runner) testConcurrentInserts(t *testing.T) {
	e := r.setup(t)
	for round := range 5 {
		rk := fmt.Sprintf("r%d", round)
		var wg sync.WaitGroup
		results := make([]error, writers)
		for w := range writers {
			wg.Go(func() {
				_, results[w] = e.s.Insert(e.ctx, e.table, ent("p", rk, storage.Properties{"w": storage.Int32(int32(w))}))
			})
		}
		wg.Wait()
		winner := -1
		for w, err := range results {
			switch {
			case err == nil:
				if winner >= 0 {
					t.Fatalf("round %d: writers %d and %d both inserted", round, winner, w)
				}
				winner = w
			case !errors.Is(err, storage.ErrAlreadyExists):
				t.Fatalf("round %d: writer %d: %v", round, w, err)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: no insert succeeded", round)
		}
		if got := e.get("p", rk).Properties["w"].Int(); got != int64(winner) {
			t.Fatalf("round %d: entity written by %d, but %d won", round, got, winner)
		}
	}
}

// testConcurrentBatches moves units between two entities with conditional
// batches: the sum stays constant and every successful batch counts.
func (r *runner) testConcurrentBatches(t *testing.T) {
	e := r.setup(t)
	const start = 1000
	e.insert("p", "a", storage.Properties{"n": storage.Int64(start)})
	e.insert("p", "b", storage.Properties{"n": storage.Int64(start)})
	e.insert("p", "moves", storage.Properties{"n": storage.Int64(0)})
	const perWriter = 10
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for done := 0; done < perWriter; {
				var cur [3]*storage.Entity
				for i, rk := range []string{"a", "b", "moves"} {
					x, err := e.s.Get(e.ctx, e.table, "p", rk, nil)
					if err != nil {
						errs <- err
						return
					}
					cur[i] = x
				}
				d := int64(w + 1)
				ops := []storage.Operation{
					{Kind: storage.OpUpdate, Mode: storage.Replace, IfMatch: cur[0].ETag, Entity: ent("p", "a", storage.Properties{"n": storage.Int64(cur[0].Properties["n"].Int() - d)})},
					{Kind: storage.OpUpdate, Mode: storage.Replace, IfMatch: cur[1].ETag, Entity: ent("p", "b", storage.Properties{"n": storage.Int64(cur[1].Properties["n"].Int() + d)})},
					{Kind: storage.OpUpdate, Mode: storage.Merge, IfMatch: cur[2].ETag, Entity: ent("p", "moves", storage.Properties{"n": storage.Int64(cur[2].Properties["n"].Int() + 1)})},
				}
				_, err := e.s.Batch(e.ctx, e.table, ops)
				var be *storage.BatchError
				if errors.As(err, &be) && errors.Is(err, storage.ErrPreconditionFailed) {
					continue
				}
				if err != nil {
					errs <- err
					return
				}
				done++
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("batch: %v", err)
	}
	a := e.get("p", "a").Properties["n"].Int()
	b := e.get("p", "b").Properties["n"].Int()
	moves := e.get("p", "moves").Properties["n"].Int()
	moved := int64(0)
	for w := range writers {
		moved += int64(w+1) * perWriter
	}
	if a+b != 2*start || a != start-moved || moves != writers*perWriter {
		t.Fatalf("after concurrent batches a=%d b=%d moves=%d; want a=%d b=%d moves=%d", a, b, moves, start-moved, start+moved, writers*perWriter)
	}
}

func (r *runner) testCancellation(t *testing.T) {
	e := r.setup(t)
	e.insert("p", "r", nil)
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	x := ent("p", "new", nil)
	checks := map[string]error{}
	_, checks["Get"] = e.s.Get(ctx, e.table, "p", "r", nil)
	_, checks["Insert"] = e.s.Insert(ctx, e.table, x)
	_, checks["Upsert"] = e.s.Upsert(ctx, e.table, x, storage.Replace)
	checks["Delete"] = e.s.Delete(ctx, e.table, "p", "r", "")
	_, checks["Batch"] = e.s.Batch(ctx, e.table, []storage.Operation{{Kind: storage.OpInsert, Entity: x}})
	_, checks["Query"] = e.s.Query(ctx, e.table, &storage.Query{})
	checks["CreateTable"] = e.s.CreateTable(ctx, e.tableName("cancelled"))
	for what, err := range checks {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a cancelled context: %v, want context.Canceled", what, err)
		}
	}
	e.get("p", "r")
	e.mustNotExist("p", "new")
	if ok, _ := e.s.TableExists(e.ctx, e.tableName("cancelled")); ok {
		e.s.DeleteTable(e.ctx, e.tableName("cancelled"))
		t.Errorf("CreateTable with a cancelled context created the table")
	}
}
