package txn_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/catalog/keys"
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

// TestReviewReinsertAfterDeleteOutsideCommit: a row with history (updated
// through Commit) deleted outside Commit (the gateway's batch-by-batch
// paths, txnatomic.go, delete without a tombstone), then inserted again
// through Commit. A snapshot taken after the delete and before the
// insert's commit must see the row absent: the delete is visible to it
// (package doc, "Not covered": such a write is visible to every snapshot
// once it lands) and the insert committed after it. The insert's
// resolution wrote the absent previous value as a history tombstone at
// version 0, below the row's older history entities, so the snapshot
// read the deleted row's old value back.
func TestReviewReinsertAfterDeleteOutsideCommit(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		s := env.wrap(env.inner)
		commit := func(op storage.Operation) {
			t.Helper()
			p9, err := s.Get(ctx, env.acct, "p9", "r", nil)
			if err != nil {
				t.Fatal(err)
			}
			// Two groups: through the record, with a commit timestamp.
			if err := s.Commit(ctx, []txn.Group{{Table: env.acct, Ops: []storage.Operation{op}},
				{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: p9.ETag, Entity: ent("p9", p9.Properties["bal"].Int()+1)}}}}, nil); err != nil {
				t.Fatal(err)
			}
		}
		cur, err := s.Get(ctx, env.acct, "p1", "r", nil)
		if err != nil {
			t.Fatal(err)
		}
		commit(storage.Operation{Kind: storage.OpUpdate, IfMatch: cur.ETag, Entity: ent("p1", 11)})
		if cur, err = s.Get(ctx, env.acct, "p1", "r", nil); err != nil {
			t.Fatal(err)
		}
		commit(storage.Operation{Kind: storage.OpUpdate, IfMatch: cur.ETag, Entity: ent("p1", 12)})
		if cur, err = s.Get(ctx, env.acct, "p1", "r", nil); err != nil {
			t.Fatal(err)
		}
		// The delete outside Commit, conditional as the gateway's are.
		if err := s.Delete(ctx, env.acct, "p1", "r", cur.ETag); err != nil {
			t.Fatal(err)
		}
		after := snap(t, s)
		if _, err := s.Get(after, env.acct, "p1", "r", nil); !errors.Is(err, storage.ErrNotFound) {
			t.Fatalf("before the insert, the snapshot reads p1: %v", err)
		}
		commit(storage.Operation{Kind: storage.OpInsert, Entity: ent("p1", 99)})
		if e, err := s.Get(after, env.acct, "p1", "r", nil); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("Get at a snapshot taken after the delete and before the insert: %v, %v; want not found", e, err)
		}
		if b, ok := env.balances(t, after, s)["p1"]; ok {
			t.Errorf("Query at a snapshot taken after the delete and before the insert: p1 = %d; want absent", b)
		}
		if e, err := s.Get(ctx, env.acct, "p1", "r", nil); err != nil || e.Properties["bal"].Int() != 99 {
			t.Fatalf("current p1: %v, %v", e, err)
		}
	})
}

// TestReviewUpdateOutsideCommitThenCommit: a row with history replaced
// outside Commit (no version, no history), then updated through Commit: a
// snapshot taken between the two reads the value written outside Commit
// (visible to every snapshot once it landed), not the row's older
// history.
func TestReviewUpdateOutsideCommitThenCommit(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		s := env.wrap(env.inner)
		update := func(bal int64) {
			t.Helper()
			cur, err := s.Get(ctx, env.acct, "p1", "r", nil)
			if err != nil {
				t.Fatal(err)
			}
			p9, err := s.Get(ctx, env.acct, "p9", "r", nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Commit(ctx, []txn.Group{{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: cur.ETag, Entity: ent("p1", bal)}}},
				{Table: env.acct, Ops: []storage.Operation{{Kind: storage.OpUpdate, IfMatch: p9.ETag, Entity: ent("p9", p9.Properties["bal"].Int()+1)}}}}, nil); err != nil {
				t.Fatal(err)
			}
		}
		update(11)
		update(12)
		cur, err := s.Get(ctx, env.acct, "p1", "r", nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Update(ctx, env.acct, ent("p1", 50), storage.Replace, cur.ETag); err != nil {
			t.Fatal(err)
		}
		between := snap(t, s)
		update(13)
		update(14)
		if e, err := s.Get(between, env.acct, "p1", "r", nil); err != nil || e.Properties["bal"].Int() != 50 {
			t.Errorf("Get at the snapshot between the write outside Commit and the next commit: %v, %v; want bal 50", e, err)
		}
		if b := env.balances(t, between, s)["p1"]; b != 50 {
			t.Errorf("Query at the snapshot: p1 = %d, want 50", b)
		}
		if e, err := s.Get(snap(t, s), env.acct, "p1", "r", nil); err != nil || e.Properties["bal"].Int() != 14 {
			t.Errorf("Get at a new snapshot: %v, %v; want bal 14", e, err)
		}
	})
}

// TestReviewForeignSystemProperties: entities another application wrote
// (an attached table's: sqlgw reads them through this Store) may carry
// properties named like the versioning's, _d and _v, and RowKeys in the
// history namespace. They are the application's data: such an entity must
// be read as it is, with those properties, at a snapshot or not. A
// Boolean _d true hid the entity (taken for a tombstone), an Int64 _v
// above the snapshot sent the read to a history that does not exist
// (ErrSnapshotTooOld), both properties were stripped from what the reader
// got, a RowKey in the history namespace was hidden, and once a query met
// one, the table was taken for one holding history and every query was
// cut below the namespace (a CJK RowKey sorts above it). The gateway
// declares such tables foreign (Options.Foreign).
func TestReviewForeignSystemProperties(t *testing.T) {
	forEachVersionedStore(t, func(t *testing.T, env *mvccEnv) {
		ctx := context.Background()
		opts := env.wrapOptions
		opts.Foreign = func(table string) bool { return table == env.acct }
		s := txn.Wrap(env.inner, env.txns, opts)
		if !s.Versioned(ctx) {
			t.Fatal("not versioned")
		}
		hist := "\u00ffh" + "d 7fffffffffffffff 0000000000000001"
		ents := []*storage.Entity{
			{PartitionKey: "x", RowKey: "d", Properties: storage.Properties{"_d": storage.Bool(true), "bal": storage.Int64(1)}},
			{PartitionKey: "x", RowKey: "v", Properties: storage.Properties{"_v": storage.Int64(1 << 40), "bal": storage.Int64(2)}},
			{PartitionKey: "x", RowKey: hist, Properties: storage.Properties{"bal": storage.Int64(3)}},
			{PartitionKey: "x", RowKey: "漢字", Properties: storage.Properties{"bal": storage.Int64(4)}},
		}
		for _, e := range ents {
			if _, err := env.inner.Insert(ctx, env.acct, e); err != nil {
				t.Fatal(err)
			}
		}
		sn := snap(t, s)
		for _, c := range []context.Context{ctx, sn} {
			for _, rk := range []string{"d", "v"} {
				e, err := s.Get(c, env.acct, "x", rk, nil)
				if err != nil {
					t.Errorf("Get x/%s (snapshot %v): %v", rk, c != ctx, err)
					continue
				}
				if _, ok := e.Properties["_"+rk]; !ok {
					t.Errorf("Get x/%s (snapshot %v): property _%s stripped: %v", rk, c != ctx, rk, e.Properties)
				}
			}
			if e, err := s.Get(c, env.acct, "x", hist, nil); err != nil || e.Properties["bal"].Int() != 3 {
				t.Errorf("Get of a RowKey in the history namespace (snapshot %v): %v %v", c != ctx, e, err)
			}
			// Twice: the first query meets the history-namespace key.
			for range 2 {
				page, err := s.Query(c, env.acct, &storage.Query{Partition: storage.Exactly("x")})
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, e := range page.Entities {
					got = append(got, fmt.Sprintf("%s=%d/%d", e.RowKey, e.Properties["bal"].Int(), len(e.Properties)))
				}
				want := []string{"d=1/2", "v=2/2", hist + "=3/1", "漢字=4/1"}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("Query (snapshot %v): %q, want %q", c != ctx, got, want)
				}
			}
		}
		// A write over a foreign entity whose _d is true replaces nothing
		// it should not: an insert finds it present.
		if _, err := s.Insert(ctx, env.acct, &storage.Entity{PartitionKey: "x", RowKey: "d", Properties: storage.Properties{"bal": storage.Int64(9)}}); !errors.Is(err, storage.ErrAlreadyExists) {
			t.Errorf("insert over a foreign entity with _d true: %v, want ErrAlreadyExists", err)
		}
	})
}

// TestHistoryNamespaceAboveCatalogKeys: the catalog's keys (catalog/keys)
// never reach the history namespace: its alphabet is printable ASCII, and
// every encoded string stays in it, CJK and U+00FF included.
func TestHistoryNamespaceAboveCatalogKeys(t *testing.T) {
	for _, c := range keys.Alphabet {
		if string(c) >= "\u00ffh" {
			t.Fatalf("key alphabet character %q in the history namespace", c)
		}
	}
	for _, v := range []string{"漢字", "\u00ffh", "\u00ff", "\U0010ffff", "~~~"} {
		for _, enc := range [][]byte{keys.EncodeStringAscending(nil, v), keys.EncodeStringDescending(nil, v)} {
			for _, c := range string(enc) {
				if !strings.ContainsRune(keys.Alphabet, c) {
					t.Errorf("%q encodes to %q, outside the key alphabet", v, enc)
				}
			}
		}
	}
}
