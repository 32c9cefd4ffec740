package ixmaint

import (
	"context"
	"slices"
	"testing"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/storage"
)

// TestReview13cBackfillAmidWriteCrash: a backfill page written between a
// writer's Begin and its row's commit (the row still unchanged, so the
// page's check passes), then the writer's gateway dies before Finish.
// Recovery (Recover, as the index sweep runs it) must leave the index
// exactly what the rows imply: a page must not turn the writer's marked
// entity into an unmarked one that no recovery ever looks at again. (Found
// on h7prepare's acc26a5; h7prepare's fe1257e fixed it in parallel, and
// its TestBackfillPageAmidWrite crash variants cover more orders.)
func TestReview13cBackfillAmidWriteCrash(t *testing.T) {
	for _, name := range []string{"update-indexed", "delete"} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			f, ix := buildingIndex(t)
			m := &Maintainer{Store: f.inner, MultiBatch: f.inner.MultiBatch}
			pk, rk, err := f.tbl.EncodePrimaryKey([]catalog.Datum{int64(1), int64(5)})
			if err != nil {
				t.Fatal(err)
			}
			old, etag, _, err := GetRow(ctx, f.inner, f.tbl, pk, rk)
			if err != nil {
				t.Fatal(err)
			}
			var nw []catalog.Datum
			op := storage.Operation{Kind: storage.OpDelete, IfMatch: etag, Entity: &storage.Entity{PartitionKey: pk, RowKey: rk}}
			if name == "update-indexed" {
				nw = slices.Clone(old)
				nw[2] = int64(99)
				ents, err := f.tbl.EncodeEntities(pk, rk, nw)
				if err != nil {
					t.Fatal(err)
				}
				op = storage.Operation{Kind: storage.OpUpdate, Mode: storage.Replace, IfMatch: etag, Entity: ents[0]}
			}
			if _, err := m.Begin(ctx, f.tbl, []Write{{OldPK: pk, OldRK: rk, Old: old, PK: pk, RK: rk, New: nw}}); err != nil {
				t.Fatal(err)
			}
			if err := m.Backfill(ctx, f.tbl, ix, nil); err != nil {
				t.Fatal(err)
			}
			_, cerr := f.inner.Batch(ctx, f.tbl.Physical, []storage.Operation{op})
			// The gateway dies here: no Finish. Another one's recovery
			// resolves every marked entity.
			if _, err := m.Recover(ctx, f.tbl, true); err != nil {
				t.Fatal(err)
			}
			if mm, err := Check(ctx, f.inner, f.tbl); err != nil || len(mm) > 0 {
				t.Fatalf("writer's commit: %v; after recovery, %d mismatches: %v %v", cerr, len(mm), mm, err)
			}
		})
	}
}
