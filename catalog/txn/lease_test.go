package txn_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/storage"
)

// slowCommitPoint delays the commit point (the first batch of the clock
// partition inserting a commit row: the clock's batch may wait for the one
// before it, and a loaded store is slow to answer): before sending it, it
// moves the clock two leases on, waits for the committer to renew, and
// runs another gateway's recovery sweep.
type slowCommitPoint struct {
	*renewals
	clock   *fakeClock
	lease   time.Duration
	sweep   func()
	once    sync.Once
	renewed bool
}

func (s *slowCommitPoint) Batch(ctx context.Context, tbl string, ops []storage.Operation) ([]storage.ETag, error) {
	if tbl == "txns" && ops[0].Entity.PartitionKey == "clock" && commitRowInsert(ops) {
		s.once.Do(func() {
			s.clock.Advance(2 * s.lease)
			s.renewed = s.renewedSince()
			s.sweep()
		})
	}
	return s.renewals.Batch(ctx, tbl, ops)
}

func commitRowInsert(ops []storage.Operation) bool {
	for _, op := range ops {
		if op.Kind == storage.OpInsert && strings.HasPrefix(op.Entity.RowKey, "c-") {
			return true
		}
	}
	return false
}

// bigCommit is 2 x 80 inserts: 161 record-table entities, two batches.
func bigCommit() []txn.Group {
	var gs []txn.Group
	for _, pk := range []string{"q0", "q1"} {
		g := txn.Group{Table: table}
		for i := 0; i < 80; i++ {
			g.Ops = append(g.Ops, storage.Operation{Kind: storage.OpInsert, Entity: &storage.Entity{PartitionKey: pk, RowKey: fmt.Sprintf("r%03d", i), Properties: storage.Properties{"bal": storage.Int64(1)}}})
		}
		gs = append(gs, g)
	}
	return gs
}

// TestLeaseRenewedUntilCommitPoint: a committer whose commit point is slow
// to land (a store or machine under load) keeps renewing its lease until
// it lands, so another gateway's sweep meanwhile leaves it alone and the
// commit succeeds. Before, the renewals stopped once the locks were
// written, and the sweep aborted the live transaction (1213 at COMMIT,
// TestLargeIndexedTransaction/azurite on a loaded machine).
func TestLeaseRenewedUntilCommitPoint(t *testing.T) {
	ctx := context.Background()
	inner := setup(t)
	lease := 200 * time.Millisecond
	clock := newFakeClock()
	other := txn.Wrap(inner, "txns", txn.Options{Lease: lease, Now: clock.Now})
	var swept txn.RecoverStats
	slow := &slowCommitPoint{renewals: newRenewals(inner), clock: clock, lease: lease, sweep: func() {
		st, err := other.Recover(ctx)
		if err != nil {
			t.Error(err)
		}
		swept = st
	}}
	s := txn.Wrap(slow, "txns", txn.Options{Lease: lease, Now: clock.Now})
	if err := s.Commit(ctx, bigCommit(), nil); err != nil {
		t.Fatalf("commit (renewed before the commit point: %v; sweep meanwhile: %+v): %v", slow.renewed, swept, err)
	}
	if !slow.renewed || swept.Pending != 1 || swept.Resolved != 0 {
		t.Fatalf("before the commit point: renewed %v, sweep %+v; want renewed, the record left pending", slow.renewed, swept)
	}
	page, err := other.Query(ctx, table, &storage.Query{Partition: storage.Exactly("q1")})
	if err != nil || len(page.Entities) != 80 {
		t.Fatalf("after commit: %d rows, %v", len(page.Entities), err)
	}
}

// lostRenewal applies the first update of the record table (a lease
// renewal) but reports a failure, as a request whose answer is lost (a
// timeout, a reset connection) or that the client retried after it landed.
type lostRenewal struct {
	storage.Store
	mu   sync.Mutex
	lost bool
}

func (l *lostRenewal) Update(ctx context.Context, tbl string, e *storage.Entity, mode storage.UpdateMode, ifMatch storage.ETag) (storage.ETag, error) {
	et, err := l.Store.Update(ctx, tbl, e, mode, ifMatch)
	l.mu.Lock()
	defer l.mu.Unlock()
	if tbl == "txns" && err == nil && !l.lost {
		l.lost = true
		return "", errors.New("read tcp: connection reset by peer (the update landed)")
	}
	return et, err
}

// TestLeaseRenewalAfterLostAnswer: a renewal that landed but whose answer
// was lost does not end the renewals (the next one, refused on the ETag it
// held, goes on from the record's current one), so the committer keeps its
// lease while its intents are slow to write and another gateway's sweep
// leaves it alone. Before, every later renewal failed on the stale ETag,
// the lease ran out and the sweep aborted the live transaction.
func TestLeaseRenewalAfterLostAnswer(t *testing.T) {
	ctx := context.Background()
	inner := setup(t)
	lease := 200 * time.Millisecond
	clock := newFakeClock()
	other := txn.Wrap(inner, "txns", txn.Options{Lease: lease, Now: clock.Now})
	var swept txn.RecoverStats
	slow := slowIntents{renewals: newRenewals(&lostRenewal{Store: inner}), clock: clock, lease: lease, sweep: func() {
		st, err := other.Recover(ctx)
		if err != nil {
			t.Error(err)
		}
		swept = st
	}}
	s := txn.Wrap(slow, "txns", txn.Options{Lease: lease, Now: clock.Now})
	if err := s.Commit(ctx, bigCommit(), nil); err != nil {
		t.Fatalf("commit (sweep meanwhile: %+v): %v", swept, err)
	}
	if swept.Pending != 1 || swept.Resolved != 0 {
		t.Fatalf("the sweep during the commit: %+v, want the record left pending", swept)
	}
	page, err := other.Query(ctx, table, &storage.Query{Partition: storage.Exactly("q1")})
	if err != nil || len(page.Entities) != 80 {
		t.Fatalf("after commit: %d rows, %v", len(page.Entities), err)
	}
}
