package txn_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/storage"
)

// Review tests of snapshot reads on stores without snapshots (issue 15):
// each failed on the code it was written against.

// TestReviewLongRowKeyCommit: a row whose RowKey leaves no room for the
// history entity's key (the history key is the RowKey plus about 20
// characters) must either be refused by Commit with nothing applied
// (storage.ErrTooLarge, so that the gateway writes it on its single-batch
// path) or be committed and readable. It was committed (the commit point
// passed) and then its resolution failed on the history key: every read
// of the row failed from then on, and Recover stopped at its record.
func TestReviewLongRowKeyCommit(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		s := env.wrap(env.inner)
		rk := strings.Repeat("k", storage.MaxKeyUTF16-5)
		long := &storage.Entity{PartitionKey: "p0", RowKey: rk, Properties: storage.Properties{"bal": storage.Int64(1)}}
		if _, err := env.inner.Insert(ctx, env.acct, long); err != nil {
			t.Fatal(err)
		}
		cur, err := s.Get(ctx, env.acct, "p0", rk, nil)
		if err != nil {
			t.Fatal(err)
		}
		p1, err := s.Get(ctx, env.acct, "p1", "r", nil)
		if err != nil {
			t.Fatal(err)
		}
		err = s.Commit(ctx, []txn.Group{
			{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: cur.ETag,
				Entity: &storage.Entity{PartitionKey: "p0", RowKey: rk, Properties: storage.Properties{"bal": storage.Int64(2)}}}}},
			{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: p1.ETag, Entity: ent("p1", 7)}}},
		}, nil)
		switch {
		case err == nil:
			e, gerr := s.Get(ctx, env.acct, "p0", rk, nil)
			if gerr != nil || e.Properties["bal"].Int() != 2 {
				t.Fatalf("the committed row reads %v, %v; want bal 2", e, gerr)
			}
		case errors.Is(err, storage.ErrTooLarge):
			// Refused: nothing may be applied.
			e, gerr := s.Get(ctx, env.acct, "p0", rk, nil)
			if gerr != nil || e.Properties["bal"].Int() != 1 {
				t.Fatalf("after a refused commit the row reads %v, %v; want bal 1", e, gerr)
			}
			if e, gerr := s.Get(ctx, env.acct, "p1", "r", nil); gerr != nil || e.Properties["bal"].Int() != 100 {
				t.Fatalf("after a refused commit p1 reads %v, %v; want bal 100", e, gerr)
			}
		default:
			t.Fatalf("commit: %v", err)
		}
	})
}
