package txn_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/faultstore"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

const table = "acct"

func ent(pk string, bal int64) *storage.Entity {
	return &storage.Entity{PartitionKey: pk, RowKey: "r", Properties: storage.Properties{"bal": storage.Int64(bal)}}
}

// protocolOnly hides the embedded store's atomic multi-partition batch
// (storage.MultiBatcher), so that commits go through the record protocol
// as on the Table service.
type protocolOnly struct{ storage.Store }

// setup writes 10 accounts (partitions p0..p9) of 100 each, and p10 absent;
// the store returned commits through the record protocol.
func setup(t *testing.T) storage.Store {
	t.Helper()
	s, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	if err := s.CreateTable(ctx, table); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		if _, err := s.Insert(ctx, table, ent(fmt.Sprintf("p%d", i), 100)); err != nil {
			t.Fatal(err)
		}
	}
	return protocolOnly{s}
}

// transfer builds the groups of one transaction over the store's state:
// p0..p4 give 10 each, p5..p8 receive 10 each, p9 is deleted (its 100 go
// to the new account p10, inserted).
func transfer(t *testing.T, s storage.Store) []txn.Group {
	t.Helper()
	return transferIn(t, s, table)
}

// transferIn is transfer on the accounts of table tbl.
func transferIn(t *testing.T, s storage.Store, tbl string) []txn.Group {
	t.Helper()
	ctx := context.Background()
	var gs []txn.Group
	for i := 0; i < 10; i++ {
		pk := fmt.Sprintf("p%d", i)
		e, err := s.Get(ctx, tbl, pk, "r", nil)
		if err != nil {
			t.Fatal(err)
		}
		var op storage.Operation
		switch {
		case i < 5:
			op = storage.Operation{Kind: storage.OpUpdate, IfMatch: e.ETag, Entity: ent(pk, e.Properties["bal"].Int()-10)}
		case i < 9:
			op = storage.Operation{Kind: storage.OpUpdate, IfMatch: e.ETag, Entity: ent(pk, e.Properties["bal"].Int()+10)}
		default:
			op = storage.Operation{Kind: storage.OpDelete, IfMatch: e.ETag, Entity: &storage.Entity{PartitionKey: pk, RowKey: "r"}}
		}
		gs = append(gs, txn.Group{Table: tbl, Ops: []storage.Operation{op}})
	}
	gs = append(gs, txn.Group{Table: tbl, Ops: []storage.Operation{{Kind: storage.OpInsert, Entity: ent("p10", 100)}}})
	return gs
}

// state reads every account through s: balances by partition.
func state(t *testing.T, s storage.Store) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	q := &storage.Query{}
	for {
		page, err := s.Query(context.Background(), table, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Entities {
			if _, ok := e.Properties[txn.PropLock]; ok {
				t.Fatalf("a reader sees the lock property on %s", e.PartitionKey)
			}
			if e.RowKey != "r" || e.Properties[txn.PropDeleted].BoolValue() {
				// In the raw store: a history entity or a tombstone
				// (versions, mvcc.go).
				continue
			}
			out[e.PartitionKey] = e.Properties["bal"].Int()
		}
		if page.Continuation == "" {
			return out
		}
		q.Continuation = page.Continuation
	}
}

func classify(m map[string]int64) string {
	old, neu := true, true
	for i := 0; i <= 10; i++ {
		pk := fmt.Sprintf("p%d", i)
		v, ok := m[pk]
		var wantOld, wantNew int64 = 100, 100
		switch {
		case i < 5:
			wantNew = 90
		case i < 9:
			wantNew = 110
		}
		oldPresent, newPresent := i < 10, i != 9
		if ok != oldPresent || ok && v != wantOld {
			old = false
		}
		if ok != newPresent || ok && v != wantNew {
			neu = false
		}
	}
	switch {
	case old:
		return "old"
	case neu:
		return "new"
	}
	return fmt.Sprint("mixed ", m)
}

func TestCommitAcrossPartitions(t *testing.T) {
	inner := setup(t)
	s := txn.Wrap(inner, "txns", txn.Options{Owner: "test"})
	if err := s.Commit(context.Background(), transfer(t, s), nil); err != nil {
		t.Fatal(err)
	}
	if got := classify(state(t, s)); got != "new" {
		t.Fatalf("after commit: %s", got)
	}
	// No lock, intent or record is left.
	if got := classify(state(t, inner)); got != "new" {
		t.Fatalf("raw store after commit: %s", got)
	}
	if left := leftovers(t, inner); len(left) != 0 {
		t.Fatalf("record table after commit: %v", left)
	}
}

// leftovers returns the record table's entities but those of the clock
// partition: the clock, and commit rows (a finished one is deleted with a
// later commit or by the sweep; an aborted one is kept for a while).
func leftovers(t *testing.T, inner storage.Store) []string {
	t.Helper()
	page, err := inner.Query(context.Background(), "txns", &storage.Query{})
	if errors.Is(err, storage.ErrNotFound) {
		return nil // never created
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range page.Entities {
		if e.PartitionKey == "clock" {
			continue
		}
		out = append(out, e.PartitionKey+"/"+e.RowKey)
	}
	return out
}

// TestConflictAppliesNothing: a transaction whose lock on one partition
// fails (another writer changed the row) applies nothing, and the other
// rows it locked are readable and writable at once.
func TestConflictAppliesNothing(t *testing.T) {
	inner := setup(t)
	s := txn.Wrap(inner, "txns", txn.Options{Owner: "test"})
	gs := transfer(t, s)
	// Another writer changes p7 after the read.
	if _, err := s.Update(context.Background(), table, ent("p7", 100), storage.Replace, ""); err != nil {
		t.Fatal(err)
	}
	err := s.Commit(context.Background(), gs, nil)
	var ge *txn.GroupError
	if !errors.As(err, &ge) || !errors.Is(err, storage.ErrPreconditionFailed) || ge.Group != 7 {
		t.Fatalf("commit: %v, want the precondition failure of group 7", err)
	}
	if got := classify(state(t, s)); got != "old" {
		t.Fatalf("after a failed commit: %s", got)
	}
	if got := classify(state(t, inner)); got != "old" {
		t.Fatalf("raw store after a failed commit (locks left): %s", got)
	}
	// Retried, it commits.
	if err := s.Commit(context.Background(), transfer(t, s), nil); err != nil {
		t.Fatal(err)
	}
	if got := classify(state(t, s)); got != "new" {
		t.Fatalf("after the retry: %s", got)
	}
}

// TestPendingLockBlocksWriters: a row locked by a live transaction reads
// as its previous value, and a write conditional on that read fails.
func TestPendingLockBlocksWriters(t *testing.T) {
	inner := setup(t)
	ctx := context.Background()
	s := txn.Wrap(inner, "txns", txn.Options{Owner: "test"})
	gs := transfer(t, s)
	hold := make(chan struct{})
	locked := make(chan struct{})
	done := make(chan error)
	go func() {
		done <- s.Commit(ctx, gs, func() error { close(locked); <-hold; return nil })
	}()
	// Wait for every lock: the commit writes the partitions' locks in
	// parallel, so one partition's lock says nothing of the others' (p10's
	// placeholder could still be missing; the test failed so at load 20).
	select {
	case <-locked:
	case err := <-done:
		t.Fatalf("commit ended before its commit point: %v", err)
	}
	if e, err := inner.Get(ctx, table, "p8", "r", nil); err != nil {
		t.Fatal(err)
	} else if _, ok := e.Properties[txn.PropLock]; !ok {
		t.Fatal("p8 has no lock before the commit point")
	}
	other := txn.Wrap(inner, "txns", txn.Options{Owner: "other"})
	e, err := other.Get(ctx, table, "p8", "r", nil)
	if err != nil || e.Properties["bal"].Int() != 100 {
		t.Fatalf("locked row reads %v %v, want the previous value 100", e, err)
	}
	if _, err := other.Update(ctx, table, ent("p8", 1), storage.Replace, e.ETag); !errors.Is(err, storage.ErrPreconditionFailed) {
		t.Fatalf("write over a live lock: %v", err)
	}
	if _, err := other.Get(ctx, table, "p10", "r", nil); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("an uncommitted insert is visible: %v", err)
	}
	if _, err := other.Insert(ctx, table, ent("p10", 5)); !errors.Is(err, storage.ErrPreconditionFailed) {
		t.Fatalf("insert over a live placeholder: %v, want a conflict", err)
	}
	close(hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := classify(state(t, other)); got != "new" {
		t.Fatalf("after commit: %s", got)
	}
}

// TestCrashAtEveryRequest stops the commit after its N-th request, for
// every N (the request dropped, or applied with its reply lost), then
// recovers with another gateway once the lease has expired: the
// transaction is all or nothing, matches what Commit returned, and no
// lock, intent or record is left.
func TestCrashAtEveryRequest(t *testing.T) {
	ctx := context.Background()
	// Count the requests of a clean commit.
	fs := faultstore.New(setup(t))
	s := txn.Wrap(fs, "txns", txn.Options{})
	gs := transfer(t, s)
	fs.CrashAt(0, false)
	if err := s.Commit(ctx, gs, nil); err != nil {
		t.Fatal(err)
	}
	total := fs.Requests()
	t.Logf("a clean commit of 11 partitions: %d requests", total)
	seen := map[string]int{}
	for n := 1; n <= total; n++ {
		for _, applied := range []bool{false, true} {
			inner := setup(t)
			fs := faultstore.New(inner)
			s := txn.Wrap(fs, "txns", txn.Options{})
			gs := transfer(t, s)
			fs.CrashAt(n, applied)
			err := s.Commit(ctx, gs, nil)
			// Recovery by another gateway after the lease: the sweep, then
			// readers.
			later := func() time.Time { return time.Now().Add(2 * txn.DefaultLease) }
			r := txn.Wrap(inner, "txns", txn.Options{Now: later})
			if _, rerr := r.Recover(ctx); rerr != nil {
				t.Fatalf("n=%d applied=%v: recover: %v", n, applied, rerr)
			}
			got := classify(state(t, r))
			seen[got]++
			switch {
			case got != "old" && got != "new":
				t.Fatalf("n=%d applied=%v (commit: %v): %s", n, applied, err, got)
			case err == nil && got != "new":
				t.Fatalf("n=%d applied=%v: commit succeeded, state %s", n, applied, got)
			case err != nil && !errors.Is(err, txn.ErrUnknownOutcome) && got != "old":
				t.Fatalf("n=%d applied=%v: commit failed (%v) but applied", n, applied, err)
			}
			if raw := classify(state(t, inner)); raw != got {
				t.Fatalf("n=%d applied=%v: raw store %s after recovery, reader %s", n, applied, raw, got)
			}
			if left := leftovers(t, inner); len(left) != 0 {
				t.Fatalf("n=%d applied=%v: record table after recovery: %v", n, applied, left)
			}
		}
	}
	t.Logf("outcomes: %v", seen)
}

// TestFilteredReadOfCommittedLocks: after a crash just past the commit
// point, a filtered query sees the committed values (the store evaluates
// its filter on the previous ones: the filter is widened to locked
// entities and evaluated again on the resolved values).
func TestFilteredReadOfCommittedLocks(t *testing.T) {
	ctx := context.Background()
	inner := setup(t)
	fs := faultstore.New(inner)
	s := txn.Wrap(fs, "txns", txn.Options{})
	gs := transfer(t, s)
	// ensure table, intents, 11 locks, the commit point: crash right after.
	fs.CrashAt(1+1+11+1+1, false)
	if err := s.Commit(ctx, gs, nil); err != nil {
		t.Fatalf("commit: %v", err)
	}
	r := txn.Wrap(inner, "txns", txn.Options{})
	for _, f := range []storage.Expr{
		storage.Eq("bal", storage.Int64(90)),
		storage.And{storage.Ge("bal", storage.Int64(85)), storage.Le("bal", storage.Int64(95))},
	} {
		page, err := r.Query(ctx, table, &storage.Query{Filter: f, Select: []string{"bal"}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range page.Entities {
			if len(e.Properties) != 1 {
				t.Fatalf("projection: %v", e.Properties)
			}
			got = append(got, e.PartitionKey)
		}
		if fmt.Sprint(got) != "[p0 p1 p2 p3 p4]" {
			t.Fatalf("filter %v: %v", f, got)
		}
	}
	if got := classify(state(t, inner)); got != "new" {
		t.Fatalf("raw store after the reads resolved the locks: %s", got)
	}
}

// fakeClock is a clock the test moves: a lease expires when the test says
// so, not when the scheduler happens to stall a goroutine (the tests below
// used real 200-300 ms leases and failed now and then at load average 20).
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Now()} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// renewals counts the committer's writes of its pending record (the
// lease renewals: an Update of the record table) as they complete.
type renewals struct {
	storage.Store
	n chan struct{}
}

func newRenewals(inner storage.Store) *renewals {
	return &renewals{Store: inner, n: make(chan struct{}, 1024)}
}

func (r *renewals) Update(ctx context.Context, tbl string, e *storage.Entity, mode storage.UpdateMode, ifMatch storage.ETag) (storage.ETag, error) {
	et, err := r.Store.Update(ctx, tbl, e, mode, ifMatch)
	if tbl == "txns" && err == nil {
		r.n <- struct{}{}
	}
	return et, err
}

// renewedSince waits for two renewals completed after the call: the
// second one read the clock after the call (the renewer is sequential), so
// the record's lease runs from the clock's time at the call or later. It
// reports false when the committer did not renew within 10 s of real time.
func (r *renewals) renewedSince() bool {
	for {
		select {
		case <-r.n:
			continue
		default:
		}
		break
	}
	for i := 0; i < 2; i++ {
		select {
		case <-r.n:
		case <-time.After(10 * time.Second):
			return false
		}
	}
	return true
}

// TestLeaseRenewed: a commit that takes longer than its lease keeps its
// record alive (the committer renews it), so a reader meeting its locks
// meanwhile does not abort it. The clock is the test's: each step moves it
// half a lease and waits for the committer to renew, so three leases pass
// during the commit whatever the scheduler does.
func TestLeaseRenewed(t *testing.T) {
	ctx := context.Background()
	inner := setup(t)
	lease := 300 * time.Millisecond
	clock := newFakeClock()
	counted := newRenewals(inner)
	s := txn.Wrap(counted, "txns", txn.Options{Lease: lease, Now: clock.Now})
	gs := transfer(t, s)
	other := txn.Wrap(inner, "txns", txn.Options{Lease: lease, Now: clock.Now})
	err := s.Commit(ctx, gs, func() error {
		for i := 0; i < 6; i++ {
			clock.Advance(lease / 2)
			if !counted.renewedSince() {
				return errors.New("the committer did not renew its lease")
			}
			e, err := other.Get(ctx, table, "p0", "r", nil)
			if err != nil || e.Properties["bal"].Int() != 100 {
				return fmt.Errorf("reader during the commit: %v %v", e, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("commit longer than its lease: %v", err)
	}
	if got := classify(state(t, other)); got != "new" {
		t.Fatalf("after commit: %s", got)
	}
}

// TestLeaseExpiresWithoutRenewal is TestLeaseRenewed's control: the same
// reader, with the clock moved past the lease before the committer could
// renew, takes the record for abandoned and aborts it, so the commit
// fails. Without it TestLeaseRenewed could pass because readers never
// abort at all.
func TestLeaseExpiresWithoutRenewal(t *testing.T) {
	ctx := context.Background()
	inner := setup(t)
	lease := time.Hour // the renewer's ticker (lease/3) does not fire during the test
	clock := newFakeClock()
	s := txn.Wrap(inner, "txns", txn.Options{Lease: lease, Now: clock.Now})
	gs := transfer(t, s)
	other := txn.Wrap(inner, "txns", txn.Options{Lease: lease, Now: clock.Now})
	err := s.Commit(ctx, gs, func() error {
		clock.Advance(lease + time.Second)
		e, err := other.Get(ctx, table, "p0", "r", nil)
		if err != nil || e.Properties["bal"].Int() != 100 {
			return fmt.Errorf("reader of an abandoned transaction: %v %v", e, err)
		}
		return nil
	})
	if err == nil {
		t.Fatal("a commit whose lease expired unrenewed committed after a reader aborted it")
	}
	if got := classify(state(t, other)); got != "old" {
		t.Fatalf("after the aborted commit: %s", got)
	}
}

// TestCommitMultiBatch: on a store with an atomic batch across partitions
// (Pebble) a commit is that one request: all or nothing, conflicts and
// duplicates reported per group as with the record protocol.
func TestCommitMultiBatch(t *testing.T) {
	ctx := context.Background()
	raw := setup(t).(protocolOnly).Store
	if _, ok := raw.(storage.MultiBatcher); !ok {
		t.Fatal("pebble has no MultiBatch")
	}
	s := txn.Wrap(raw, "txns", txn.Options{})
	gs := transfer(t, s)
	if _, err := s.Update(ctx, table, ent("p6", 100), storage.Replace, ""); err != nil {
		t.Fatal(err)
	}
	var ge *txn.GroupError
	if err := s.Commit(ctx, gs, nil); !errors.As(err, &ge) || ge.Group != 6 || !errors.Is(err, storage.ErrPreconditionFailed) {
		t.Fatalf("commit after a conflicting write: %v", err)
	}
	if got := classify(state(t, s)); got != "old" {
		t.Fatalf("after the failed commit: %s", got)
	}
	if err := s.Commit(ctx, transfer(t, s), nil); err != nil {
		t.Fatal(err)
	}
	if got := classify(state(t, s)); got != "new" {
		t.Fatalf("after commit: %s", got)
	}
	if ok, _ := raw.TableExists(ctx, "txns"); ok {
		t.Fatal("the multi-batch path wrote a transaction record")
	}
}

// TestFilterOnUnselectedProperty: a query whose filter names a property
// its projection leaves out returns the rows the store's filter kept (the
// filter is evaluated again only on the values the resolution produced,
// which carry every property), with or without a lock pending.
func TestFilterOnUnselectedProperty(t *testing.T) {
	ctx := context.Background()
	inner := setup(t)
	s := txn.Wrap(inner, "txns", txn.Options{})
	gs := transfer(t, s)
	q := func() []string {
		t.Helper()
		page, err := s.Query(ctx, table, &storage.Query{Filter: storage.Ge("bal", storage.Int64(100)), Select: []string{}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range page.Entities {
			got = append(got, e.PartitionKey)
		}
		return got
	}
	if got := fmt.Sprint(q()); got != "[p0 p1 p2 p3 p4 p5 p6 p7 p8 p9]" {
		t.Fatalf("no lock: %s", got)
	}
	hold := make(chan struct{})
	done := make(chan error)
	go func() { done <- s.Commit(ctx, gs, func() error { <-hold; return nil }) }()
	for i := 0; ; i++ {
		e, err := inner.Get(ctx, table, "p8", "r", nil)
		if err == nil {
			if _, ok := e.Properties[txn.PropLock]; ok {
				break
			}
		}
		if i > 1000 {
			t.Fatal("no lock written")
		}
		time.Sleep(time.Millisecond)
	}
	got := fmt.Sprint(q())
	close(hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got != "[p0 p1 p2 p3 p4 p5 p6 p7 p8 p9]" {
		t.Fatalf("locks pending: %s", got)
	}
	if got := fmt.Sprint(q()); got != "[p10 p5 p6 p7 p8]" {
		t.Fatalf("after commit: %s", got)
	}
}

// slowIntents delays the batches of intent values after the record's own
// (a large transaction on a slow link): before each it moves the clock two
// leases on, waits for the committer to renew, and runs another gateway's
// recovery sweep.
type slowIntents struct {
	*renewals
	clock *fakeClock
	lease time.Duration
	sweep func()
}

func (s slowIntents) Batch(ctx context.Context, tbl string, ops []storage.Operation) ([]storage.ETag, error) {
	if tbl == "txns" && ops[0].Kind == storage.OpInsert && ops[0].Entity.RowKey != "r" && ops[0].Entity.PartitionKey != "clock" {
		s.clock.Advance(2 * s.lease)
		if !s.renewedSince() {
			return nil, errors.New("the committer did not renew its lease")
		}
		s.sweep()
	}
	return s.renewals.Batch(ctx, tbl, ops)
}

// TestLeaseRenewedWhileWritingIntents: a transaction whose intent values
// take longer than the lease to write keeps its record alive from the
// moment it is written, so another gateway's sweep does not abort it.
func TestLeaseRenewedWhileWritingIntents(t *testing.T) {
	ctx := context.Background()
	inner := setup(t)
	lease := 200 * time.Millisecond
	clock := newFakeClock()
	other := txn.Wrap(inner, "txns", txn.Options{Lease: lease, Now: clock.Now})
	var swept txn.RecoverStats
	slow := slowIntents{renewals: newRenewals(inner), clock: clock, lease: lease, sweep: func() {
		st, err := other.Recover(ctx)
		if err != nil {
			t.Error(err)
		}
		swept = st
	}}
	s := txn.Wrap(slow, "txns", txn.Options{Lease: lease, Now: clock.Now})
	// 2 x 80 inserts: 161 record-table entities, two batches.
	var gs []txn.Group
	for _, pk := range []string{"q0", "q1"} {
		g := txn.Group{Table: table}
		for i := 0; i < 80; i++ {
			g.Ops = append(g.Ops, storage.Operation{Kind: storage.OpInsert, Entity: &storage.Entity{PartitionKey: pk, RowKey: fmt.Sprintf("r%03d", i), Properties: storage.Properties{"bal": storage.Int64(1)}}})
		}
		gs = append(gs, g)
	}
	if err := s.Commit(ctx, gs, nil); err != nil {
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

// TestUnconditionalWriteOverLivePlaceholder: an unconditional update in a
// group without a conditional operation, of an entity another transaction
// is inserting (its placeholder reads as absent), fails as an update of an
// absent entity; it does not take over the placeholder's lock, and the
// insert commits.
func TestUnconditionalWriteOverLivePlaceholder(t *testing.T) {
	ctx := context.Background()
	inner := setup(t)
	s := txn.Wrap(inner, "txns", txn.Options{})
	other := txn.Wrap(inner, "txns", txn.Options{})
	gs := transfer(t, s)
	hold := make(chan struct{})
	done := make(chan error)
	go func() { done <- s.Commit(ctx, gs, func() error { <-hold; return nil }) }()
	for i := 0; ; i++ {
		if e, err := inner.Get(ctx, table, "p10", "r", nil); err == nil {
			if _, ok := e.Properties[txn.PropLock]; ok {
				break
			}
		}
		if i > 1000 {
			t.Fatal("no placeholder written")
		}
		time.Sleep(time.Millisecond)
	}
	z0, err := other.Insert(ctx, table, ent("z0", 1))
	if err != nil {
		t.Fatal(err)
	}
	err = other.Commit(ctx, []txn.Group{
		{Table: table, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: z0, Entity: ent("z0", 2)}}},
		{Table: table, Ops: []storage.Operation{{Kind: storage.OpUpdate, Entity: ent("p10", 7)}}},
	}, nil)
	var ge *txn.GroupError
	if !errors.As(err, &ge) || ge.Group != 1 || !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("update of an entity being inserted: %v, want not found in group 1", err)
	}
	close(hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	st := state(t, other)
	if z := st["z0"]; z != 1 {
		t.Errorf("z0 = %d after a failed commit, want 1", z)
	}
	delete(st, "z0")
	if got := classify(st); got != "new" {
		t.Fatalf("after the insert's commit: %s (%v)", got, st)
	}
}

// hookGet runs hook once, before returning the first Get of table tbl
// (any table when tbl is ""), the clock partition's aside.
type hookGet struct {
	storage.Store
	tbl  string
	once *sync.Once
	hook func()
}

func (h hookGet) Get(ctx context.Context, tbl, pk, rk string, o *storage.GetOptions) (*storage.Entity, error) {
	e, err := h.Store.Get(ctx, tbl, pk, rk, o)
	if (h.tbl == "" || tbl == h.tbl) && pk != "clock" { // a record read (the commit row is read first)
		h.once.Do(h.hook)
	}
	return e, err
}

// Snapshot forwards the inner store's snapshots, if any.
func (h hookGet) Snapshot(ctx context.Context) (storage.Snapshot, error) {
	return storage.ForwardSnapshot(ctx, h.Store)
}

// TestQueryPageOneOutcome: a query page that met a transaction's lock
// pending shows that transaction's previous values in every entity of
// the page, even when the transaction commits while the page is being
// resolved; otherwise one page (one row split over several entities, or
// a SUM over the accounts) mixes the values before and after the commit.
func TestQueryPageOneOutcome(t *testing.T) {
	ctx := context.Background()
	inner := setup(t)
	s := txn.Wrap(inner, "txns", txn.Options{})
	gs := transfer(t, s)
	hold := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- s.Commit(ctx, gs, func() error { <-hold; return nil }) }()
	for i := 0; ; i++ {
		if e, err := inner.Get(ctx, table, "p10", "r", nil); err == nil {
			if _, ok := e.Properties[txn.PropLock]; ok {
				break
			}
		}
		if i > 1000 {
			t.Fatal("no lock written")
		}
		time.Sleep(time.Millisecond)
	}
	var commitErr error
	// The transaction commits (and resolves every lock) right after the
	// reader's first record read, which finds it pending.
	reader := txn.Wrap(hookGet{Store: inner, tbl: "txns", once: &sync.Once{}, hook: func() {
		close(hold)
		commitErr = <-done
	}}, "txns", txn.Options{})
	page, err := reader.Query(ctx, table, &storage.Query{})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-hold:
	default:
		t.Fatal("the reader read no record")
	}
	if commitErr != nil {
		t.Fatal(commitErr)
	}
	got := map[string]int64{}
	for _, e := range page.Entities {
		got[e.PartitionKey] = e.Properties["bal"].Int()
	}
	if c := classify(got); c != "old" {
		t.Fatalf("one page across the commit point: %s %v", c, got)
	}
	if c := classify(state(t, reader)); c != "new" {
		t.Fatalf("the next query: %s (raw %v)", c, state(t, inner))
	}
}
