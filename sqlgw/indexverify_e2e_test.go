package sqlgw_test

import (
	"context"
	"testing"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// TestGlobalIndexHitVerified: a row read through a global index is
// returned only if it still implies the index entity that led to it
// (sqlgw/engine/secondary.go, verifyHit: the index's columns decoded, its
// keys compared). A stale entity claiming row 1 has k = 99 (as a crash
// between the index's steps can leave) must not make a prepared IN list
// or equality on k, run directly from the plan cache, return row 1.
func TestGlobalIndexHitVerified(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		store, co := ts.Store, ts.Catalog
		ctx := context.Background()
		c := ts.Conn()
		r := sqltest.NewRunner(t, c)
		r.Exec("CREATE DATABASE d")
		r.Exec("USE d")
		r.Exec("CREATE TABLE t (id INT PRIMARY KEY, k INT, v VARCHAR(10), KEY k_1 (k) COMMENT 'sqlgw: global')")
		r.Exec("INSERT INTO t VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c')")
		in, err := c.PrepareContext(ctx, "SELECT id, k, v FROM t WHERE k IN (?, ?)")
		if err != nil {
			t.Fatal(err)
		}
		defer in.Close()
		eq, err := c.PrepareContext(ctx, "SELECT id FROM t WHERE k = ?")
		if err != nil {
			t.Fatal(err)
		}
		defer eq.Close()
		query := func(args ...any) []int {
			t.Helper()
			st := in
			if len(args) == 1 {
				st = eq
			}
			rs, err := st.QueryContext(ctx, args...)
			if err != nil {
				t.Fatal(err)
			}
			defer rs.Close()
			var out []int
			for rs.Next() {
				var id int
				if len(args) == 1 {
					err = rs.Scan(&id)
				} else {
					var k int
					var v string
					err = rs.Scan(&id, &k, &v)
				}
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, id)
			}
			if err := rs.Err(); err != nil {
				t.Fatal(err)
			}
			return out
		}
		// Plans cached (the first execute of each builds them).
		for range 2 {
			query(20, 30)
			query(30)
		}

		tbl := sqltest.StoreTable(t, store, co, "d", "t")
		ix, table, es := indexEntities(t, txnView(t, store, co), tbl, "k_1")
		for _, e := range es {
			if baseID(t, tbl, e) != int64(1) {
				continue
			}
			fake, err := tbl.IndexEntity(ix, e.Properties[catalog.PropBasePK].Str(), e.Properties[catalog.PropBaseRK].Str(), []catalog.Datum{int64(1), int64(99), "a"})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := store.Insert(ctx, table, fake); err != nil {
				t.Fatal(err)
			}
		}

		d0 := directRuns(t, c)
		if got := query(99, 20); len(got) != 1 || got[0] != 2 {
			t.Errorf("k IN (99, 20) with a stale entity for row 1 at 99: rows %v, want [2]", got)
		}
		if got := query(99); len(got) != 0 {
			t.Errorf("k = 99 with a stale entity for row 1 at 99: rows %v, want none", got)
		}
		if got := query(10, 20); len(got) != 2 || got[0] != 1 || got[1] != 2 {
			t.Errorf("k IN (10, 20): rows %v, want [1 2]", got)
		}
		if d := directRuns(t, c) - d0; d != 3 {
			t.Errorf("%d of 3 executes ran directly", d)
		}
	})
}
