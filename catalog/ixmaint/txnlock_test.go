package ixmaint

import (
	"context"
	"errors"
	"testing"
	"time"

	txnrec "github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/storage"
)

// plainStore hides the embedded store's atomic batch, so that catalog/txn
// commits through a record with locks and placeholders, as on the Table
// service.
type plainStore struct{ storage.Store }

// TestBeginWaitsForRecordPlaceholder: a transaction record that inserts a
// row and its unique global index entity (the gateway's atomic form on
// the Table service) holds a placeholder of the entity until its commit
// point; Begin inserting the same value meanwhile waits for the outcome
// and reports a duplicate once the record commits, instead of failing with
// the placeholder's precondition error (before: a 1105 to the client).
func TestBeginWaitsForRecordPlaceholder(t *testing.T) {
	ctx := context.Background()
	f := setup(t, testDef(), initialRows())
	txs := txnrec.Wrap(plainStore{f.inner}, "txnrec", txnrec.Options{Owner: "test"})
	m := &Maintainer{Store: txs}
	r := row(7, 700, nil, "held", nil, nil)
	pk, rk, ents, err := f.tbl.EncodeRow(r)
	if err != nil {
		t.Fatal(err)
	}
	w := Write{PK: pk, RK: rk, New: r}
	rowOps := []storage.Operation{{Kind: storage.OpInsert, Entity: ents[0]}}
	local, _, err := LocalOps(f.tbl, w)
	if err != nil {
		t.Fatal(err)
	}
	groups := []txnrec.Group{{Table: f.tbl.Physical, Ops: append(rowOps, local...)}}
	ios, ok, err := GlobalOps(f.tbl, w)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	for _, io := range ios {
		groups = append(groups, txnrec.Group{Table: io.Index.Physical, Ops: []storage.Operation{io.Op}})
	}
	locked, release := make(chan struct{}), make(chan struct{})
	committed := make(chan error, 1)
	go func() {
		committed <- txs.Commit(ctx, groups, func() error { close(locked); <-release; return nil })
	}()
	<-locked
	time.AfterFunc(300*time.Millisecond, func() { close(release) })
	r2 := row(8, 800, nil, "held", nil, nil)
	pk2, rk2, _, err := f.tbl.EncodeRow(r2)
	if err != nil {
		t.Fatal(err)
	}
	op, err := m.Begin(ctx, f.tbl, []Write{{PK: pk2, RK: rk2, New: r2}})
	if err == nil {
		op.Finish(ctx, func(int) bool { return false })
	}
	if !errors.Is(err, ErrDuplicate) {
		t.Fatalf("Begin over a live transaction's placeholder: %v, want a duplicate once it commits", err)
	}
	if err := <-committed; err != nil {
		t.Fatal(err)
	}
	// Through the transactional view: the raw store also holds versions
	// (catalog/txn, mvcc.go).
	if mm, err := Check(ctx, txs, f.tbl); err != nil || len(mm) > 0 {
		t.Fatalf("%v %v", mm, err)
	}
}
