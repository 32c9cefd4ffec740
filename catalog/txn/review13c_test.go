package txn_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/storage"
)

// slowFirst delays the inserts into partition p0 of the accounts table
// (a one-operation group's lock), so that the locks of the later groups
// fail first.
type slowFirst struct{ storage.Store }

func (s slowFirst) Insert(ctx context.Context, tbl string, e *storage.Entity) (storage.ETag, error) {
	if tbl == table && e.PartitionKey == "p0" {
		time.Sleep(50 * time.Millisecond)
	}
	return s.Store.Insert(ctx, tbl, e)
}

// TestReview13cFirstGroupErrorWins: when the locks of several groups fail
// (each inserts an entity that exists: a multi-row INSERT with several
// duplicate keys), Commit reports the first group's failure, in the order
// of the groups (the transaction's rows), not the first to arrive: the
// gateway names that row's key in its 1062, as MySQL names the first
// duplicate row of a statement.
func TestReview13cFirstGroupErrorWins(t *testing.T) {
	inner := setup(t)
	s := txn.Wrap(slowFirst{inner}, "txns", txn.Options{Owner: "test"})
	var gs []txn.Group
	for i := 0; i < 10; i++ {
		gs = append(gs, txn.Group{Table: table, Ops: []storage.Operation{{Kind: storage.OpInsert, Entity: ent(fmt.Sprintf("p%d", i), 1)}}})
	}
	err := s.Commit(context.Background(), gs, nil)
	var ge *txn.GroupError
	if !errors.As(err, &ge) || !errors.Is(err, storage.ErrAlreadyExists) || ge.Group != 0 {
		t.Fatalf("commit: %v, want the duplicate of group 0", err)
	}
	if got := classify(state(t, inner)); got != "old" {
		t.Fatalf("raw store after a failed commit: %s", got)
	}
}
