package sqlgw_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/catalog/ixmaint"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
)

// adminRows runs a table maintenance statement and returns its rows as
// "Table|Op|Msg_type|Msg_text" lines.
func adminRows(t *testing.T, c sqltest.Execer, q string) []string {
	t.Helper()
	var out []string
	for _, l := range sqltest.NewRunner(t, c).Rows(q) {
		out = append(out, strings.ReplaceAll(l, "\t", "|"))
	}
	return out
}

func expectAdmin(t *testing.T, c sqltest.Execer, q string, want ...string) {
	t.Helper()
	if got := adminRows(t, c, q); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s:\n got: %q\nwant: %q", q, got, want)
	}
}

// adminFixture is a table with a global index (covering), a global unique
// index, a local index and a row split over continuation entities.
func adminFixture(t *testing.T, c sqltest.Execer) {
	sqltest.NewRunner(t, c).Exec("CREATE DATABASE d")
	sqltest.NewRunner(t, c).Exec("USE d")
	sqltest.NewRunner(t, c).Exec(`CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(10), c INT, body LONGTEXT,
		KEY ga (a) COMMENT 'sqlgw: global, cover=(c)', UNIQUE KEY ub (b) COMMENT 'sqlgw: global',
		KEY la (id, c) COMMENT 'sqlgw: local')`)
	sqltest.NewRunner(t, c).Exec("INSERT INTO t VALUES (1, 10, 'x', 1, 'small'), (2, 10, 'y', 2, NULL), (3, 20, NULL, 3, NULL), (4, NULL, 'z', 4, NULL)")
	sqltest.NewRunner(t, c).Exec("INSERT INTO t VALUES (5, 30, 'w', 5, ?)", strings.Repeat("0123456789abcdef", 3<<20/16))
}

// indexEntities returns every stored entry of index name of d.t.
func indexEntities(t *testing.T, store storage.Store, tbl *catalog.Table, name string) (*catalog.Index, string, []*storage.Entity) {
	t.Helper()
	ix := tbl.Index(name)
	if ix == nil {
		t.Fatalf("no index %s", name)
	}
	table, q := ix.Physical, &storage.Query{}
	if !ix.Global {
		_, pre, err := tbl.IndexPrefix(ix, nil)
		if err != nil {
			t.Fatal(err)
		}
		table, q = tbl.Physical, &storage.Query{Row: catalog.PrefixRange(pre)}
	}
	var out []*storage.Entity
	for {
		page, err := store.Query(context.Background(), table, q)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, page.Entities...)
		if page.Continuation == "" {
			return ix, table, out
		}
		q.Continuation = page.Continuation
	}
}

func baseID(t *testing.T, tbl *catalog.Table, e *storage.Entity) any {
	t.Helper()
	k, err := tbl.DecodeKey(e.Properties[catalog.PropBasePK].Str(), e.Properties[catalog.PropBaseRK].Str())
	if err != nil {
		t.Fatal(err)
	}
	return k[0]
}

// indexCorruption names the rows (by id) whose entries corruptIndex
// corrupts: the entry of row missing is deleted, that of row wrong changed
// by change, and an extra entry is added for row extra with values.
type indexCorruption struct {
	missing, wrong, extra int64
	change                func(e *storage.Entity)
	values                []catalog.Datum
}

// corruptIndex corrupts the entries es of index ix of tbl, stored in table,
// as c says.
func corruptIndex(t *testing.T, store storage.Store, tbl *catalog.Table, ix *catalog.Index, table string, es []*storage.Entity, c indexCorruption) {
	t.Helper()
	ctx := context.Background()
	for _, e := range es {
		switch baseID(t, tbl, e) {
		case c.missing:
			if err := store.Delete(ctx, table, e.PartitionKey, e.RowKey, e.ETag); err != nil {
				t.Fatal(err)
			}
		case c.wrong:
			c.change(e)
			if _, err := store.Update(ctx, table, e, storage.Replace, e.ETag); err != nil {
				t.Fatal(err)
			}
		case c.extra:
			fake, err := tbl.IndexEntity(ix, e.Properties[catalog.PropBasePK].Str(), e.Properties[catalog.PropBaseRK].Str(), c.values)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := store.Insert(ctx, table, fake); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestAdminCheckRepair corrupts indexes directly in the store: CHECK
// TABLE must name each corrupt index, REPAIR TABLE must fix it, and CHECK
// TABLE (and ixmaint.Check, an independent implementation) must then find
// the table consistent. Pending marks are not corruption; a row whose
// continuation entity is gone is, and cannot be repaired.
func TestAdminCheckRepair(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		store, co := ts.Store, ts.Catalog
		ctx := context.Background()
		c := ts.Conn()
		adminFixture(t, c)
		sqltest.NewRunner(t, c).Script(`
			query CHECK TABLE t
			= d.t | check | status | OK
			query CHECK TABLE d.t EXTENDED
			= d.t | check | status | OK
		`)

		tbl := sqltest.StoreTable(t, store, co, "d", "t")

		for _, ic := range []struct {
			index string
			c     indexCorruption
		}{
			// ga: delete row 1's entry (missing) and change row 2's
			// covered value (wrong values); add an entry for a value no
			// row has (extra).
			{"ga", indexCorruption{
				missing: 1,
				wrong:   2,
				change:  func(e *storage.Entity) { e.Properties[tbl.Columns[tbl.ColumnIndex("c")].Property] = storage.Int32(99) },
				extra:   3,
				values:  []catalog.Datum{int64(3), int64(777), nil, int64(3), nil},
			}},
			// la (local): delete row 4's entry (missing), add a property
			// to row 1's (wrong values), add an entry for row 3 with c =
			// 777 (extra).
			{"la", indexCorruption{
				missing: 4,
				wrong:   1,
				change:  func(e *storage.Entity) { e.Properties["zz"] = storage.Int32(1) },
				extra:   3,
				values:  []catalog.Datum{int64(3), int64(20), nil, int64(777), nil},
			}},
		} {
			ix, table, es := indexEntities(t, txnView(t, store, co), tbl, ic.index)
			if len(es) != 5 {
				t.Fatalf("%s has %d entries, want 5", ic.index, len(es))
			}
			corruptIndex(t, store, tbl, ix, table, es, ic.c)
		}
		if mm, err := ixmaint.Check(ctx, txnView(t, store, co), tbl); err != nil || len(mm) != 6 {
			t.Fatalf("ixmaint.Check after corrupting: %v %v, want 6 mismatches", mm, err)
		}

		got := adminRows(t, c, "CHECK TABLE t")
		want := []string{
			"d.t|check|Warning|Index 'ga' (global) is corrupt: 1 entries missing, 1 extra, 1 with wrong values",
			"d.t|check|Warning|Index 'la' (local) is corrupt: 1 entries missing, 1 extra, 1 with wrong values (the entry for row (1) has other values; an entry for row (3) that the row does not imply; no entry for row (4))",
			"d.t|check|error|Corrupt",
		}
		if len(got) != 3 || !strings.HasPrefix(got[0], want[0]) || got[1] != want[1] || got[2] != want[2] {
			t.Fatalf("CHECK TABLE of corrupt indexes:\n got: %q\nwant: %q", got, want)
		}
		for _, part := range []string{"no entry for row (1)", "the entry for row (2) has other values", "an entry for row (3) that the row does not imply"} {
			if !strings.Contains(got[0], part) {
				t.Errorf("CHECK TABLE: %q does not say %q", got[0], part)
			}
		}
		// Covering reads trust unmarked entries: the corruption shows.
		sqltest.NewRunner(t, c).ExpectRows("SELECT id, c FROM t WHERE a IN (10, 777) ORDER BY id", "2\t99", "3\t3")

		got = adminRows(t, c, "REPAIR TABLE t")
		if len(got) == 0 || got[len(got)-1] != "d.t|repair|status|OK" {
			t.Fatalf("REPAIR TABLE: %q", got)
		}
		for _, n := range []string{"Index 'ga': 3 entries repaired", "Index 'la': 3 entries repaired"} {
			if !strings.Contains(strings.Join(got, "\n"), n) {
				t.Errorf("REPAIR TABLE: %q does not say %q", got, n)
			}
		}
		expectAdmin(t, c, "CHECK TABLE t", "d.t|check|status|OK")
		if mm, err := ixmaint.Check(ctx, txnView(t, store, co), tbl); err != nil || len(mm) != 0 {
			t.Fatalf("ixmaint.Check after REPAIR TABLE: %v %v", mm, err)
		}
		sqltest.NewRunner(t, c).ExpectRows("SELECT id, c FROM t WHERE a IN (10, 777) ORDER BY id", "1\t1", "2\t2")

		// A pending mark (a write in flight) is a note, not corruption;
		// REPAIR TABLE leaves a mark younger than the lease to its writer.
		_, table, es := indexEntities(t, txnView(t, store, co), tbl, "ub")
		e := es[0]
		e.Properties[ixmaint.PropPending] = storage.Int64(time.Now().UnixMicro())
		if _, err := store.Update(ctx, table, e, storage.Replace, e.ETag); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"CHECK TABLE t", "REPAIR TABLE t"} {
			got = adminRows(t, c, q)
			op := strings.ToLower(strings.Fields(q)[0])
			if len(got) != 2 || !strings.Contains(got[0], "|note|Index 'ub': 1 entries of writes in flight or interrupted are pending") || got[1] != "d.t|"+op+"|status|OK" {
				t.Fatalf("%s with a pending entry: %q", q, got)
			}
		}
		// An old mark (a crash's leftover) is settled by REPAIR TABLE.
		_, _, es = indexEntities(t, txnView(t, store, co), tbl, "ub")
		for _, e := range es {
			if _, ok := e.Properties[ixmaint.PropPending]; ok {
				e.Properties[ixmaint.PropPending] = storage.Int64(time.Now().Add(-time.Hour).UnixMicro())
				if _, err := store.Update(ctx, table, e, storage.Replace, e.ETag); err != nil {
					t.Fatal(err)
				}
			}
		}
		sqltest.NewRunner(t, c).Script(`
			query REPAIR TABLE t
			= d.t | repair | note | 1 pending index entries settled
			= d.t | repair | status | OK
			query CHECK TABLE t
			= d.t | check | status | OK
		`)

		// A continuation entity gone: the row cannot be read.
		var cont *storage.Entity
		q := &storage.Query{}
		for {
			page, err := store.Query(ctx, tbl.Physical, q)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range page.Entities {
				if tbl.IsContinuation(e) && cont == nil {
					cont = e
				}
			}
			if page.Continuation == "" {
				break
			}
			q.Continuation = page.Continuation
		}
		if cont == nil {
			t.Fatal("row 5 has no continuation entity")
		}
		if err := store.Delete(ctx, tbl.Physical, cont.PartitionKey, cont.RowKey, cont.ETag); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{"CHECK TABLE t", "REPAIR TABLE t"} {
			got = adminRows(t, c, q)
			op := strings.ToLower(strings.Fields(q)[0])
			if len(got) != 2 || !strings.HasPrefix(got[0], "d.t|"+op+"|Warning|Cannot read row (5): ") || got[1] != "d.t|"+op+"|error|Corrupt" {
				t.Fatalf("%s with a continuation entity missing: %q", q, got)
			}
		}
	})
}

// TestAdminStatements: the statements' result sets as MySQL's, missing
// tables and views, qualified names without a current database, empty
// tables, errors, the implicit commit, multi-statement queries and
// prepared statements (SQL PREPARE and the binary protocol).
func TestAdminStatements(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		ctx := context.Background()
		c := ts.Conn()
		r := sqltest.NewRunner(t, c)
		r.Script(`
			exec CREATE DATABASE c1
			exec CREATE TABLE c1.t (k INT PRIMARY KEY, v INT, KEY kv (v))
			exec CREATE TABLE c1.e (k INT PRIMARY KEY)
			exec INSERT INTO c1.t VALUES (1, 1), (2, 2)
			exec CREATE VIEW c1.v AS SELECT * FROM c1.t
			exec CREATE TABLE c1.gone (k INT PRIMARY KEY)
			exec CREATE VIEW c1.bad AS SELECT * FROM c1.gone
			exec DROP TABLE c1.gone
		`)

		// No current database: qualified names work.
		expectAdmin(t, c, "ANALYZE TABLE c1.t, c1.e, c1.nosuch, c1.v",
			"c1.t|analyze|status|OK",
			"c1.e|analyze|status|OK",
			"c1.nosuch|analyze|Error|Table 'c1.nosuch' doesn't exist",
			"c1.nosuch|analyze|status|Operation failed",
			"c1.v|analyze|Error|'c1.v' is not BASE TABLE",
			"c1.v|analyze|status|Operation failed")
		expectAdmin(t, c, "check table c1.t, `c1`.`e`, c1.nosuch, c1.v, c1.bad quick",
			"c1.t|check|status|OK",
			"c1.e|check|status|OK",
			"c1.nosuch|check|Error|Table 'c1.nosuch' doesn't exist",
			"c1.nosuch|check|status|Operation failed",
			"c1.v|check|status|OK",
			"c1.bad|check|Error|View 'c1.bad' references invalid table(s) or column(s) or function(s) or definer/invoker of view lack rights to use them",
			"c1.bad|check|error|Corrupt")
		expectAdmin(t, c, "OPTIMIZE TABLE c1.t",
			"c1.t|optimize|note|Table does not support optimize, doing recreate + analyze instead",
			"c1.t|optimize|status|OK")
		expectAdmin(t, c, "REPAIR NO_WRITE_TO_BINLOG TABLE c1.t, c1.v",
			"c1.t|repair|status|OK",
			"c1.v|repair|Error|'c1.v' is not BASE TABLE",
			"c1.v|repair|status|Operation failed")
		// go-mysql-server's own tables (mysqlcheck --all-databases).
		sqltest.NewRunner(t, c).Script(`
			query CHECK TABLE mysql.user
			= mysql.user | check | note | The storage engine for the table doesn't support check
			query SELECT DATABASE()
			= NULL
		`)
		r.Script(`
			error 1046 CHECK TABLE t
			error 1064 CHECK TABLE c1.t foo
			error 1064 CHECK TABLE
			error 1235 CHECKSUM TABLE c1.t
			error 1066 CHECK TABLE c1.t, C1.T
			exec USE c1
		`)
		expectAdmin(t, c, "/* mysqlcheck */ CHECK TABLE `t` FOR UPGRADE;", "c1.t|check|status|OK")
		expectAdmin(t, c, "ANALYZE LOCAL TABLES e", "c1.e|analyze|status|OK")
		// ANALYZE's count becomes the coster's estimate: COUNT(*) still
		// reads the rows, and is right.
		r.Script(`
			query SELECT COUNT(*) FROM t
			= 2

			# Implicit commit, as MySQL: the transaction's insert survives the
			# ROLLBACK that follows.
			exec BEGIN
			exec INSERT INTO t VALUES (5, 5)
		`)
		expectAdmin(t, c, "CHECK TABLE t", "c1.t|check|status|OK")
		r.Script(`
			exec ROLLBACK
			query SELECT k FROM t WHERE k = 5
			= 5

			# SQL PREPARE / EXECUTE / DEALLOCATE.
			exec PREPARE s FROM 'CHECK TABLE c1.t, e'
		`)
		sqltest.NewRunner(t, c).Script(`
			query EXECUTE s
			= c1.t | check | status | OK
			= c1.e | check | status | OK
			query EXECUTE s
			= c1.t | check | status | OK
			= c1.e | check | status | OK
		`)
		r.Exec("DEALLOCATE PREPARE s")
		if _, err := c.ExecContext(ctx, "EXECUTE s"); err == nil {
			t.Fatal("EXECUTE of a deallocated statement succeeded")
		}
		r.Exec("PREPARE s FROM 'SELECT 7'")
		r.ExpectRows("EXECUTE s", "7")

		// Binary protocol.
		for _, q := range []string{"CHECK TABLE t", "ANALYZE TABLE c1.t", "REPAIR TABLE t", "OPTIMIZE TABLE t"} {
			st, err := c.PrepareContext(ctx, q)
			if err != nil {
				t.Fatalf("prepare %s: %v", q, err)
			}
			op := strings.ToLower(strings.Fields(q)[0])
			got := adminRows(t, st2execer{st}, "")
			if len(got) == 0 || got[len(got)-1] != "c1.t|"+op+"|status|OK" {
				t.Errorf("prepared %s: %q", q, got)
			}
			st.Close()
		}

		// Multi-statement queries.
		mr := sqltest.NewRunner(t, ts.Open("c1?multiStatements=true"))
		var sets [][]string
		for _, set := range mr.ResultSets("CHECK TABLE t; SELECT 42; ANALYZE TABLE e") {
			for i := range set {
				set[i] = strings.ReplaceAll(set[i], "\t", "|")
			}
			sets = append(sets, set)
		}
		if want := "[[c1.t|check|status|OK] [42] [c1.e|analyze|status|OK]]"; strings.Join(strings.Fields(strings.TrimSpace(fmtSets(sets))), " ") != want {
			t.Fatalf("multi-statement: %v, want %s", sets, want)
		}
	})
}

func fmtSets(sets [][]string) string {
	var b strings.Builder
	b.WriteString("[")
	for i, s := range sets {
		if i > 0 {
			b.WriteString(" ")
		}
		b.WriteString("[" + strings.Join(s, " ") + "]")
	}
	b.WriteString("]")
	return b.String()
}

// st2execer runs a prepared statement as an execer (the query is ignored).
type st2execer struct{ st *sql.Stmt }

func (s st2execer) ExecContext(ctx context.Context, _ string, args ...any) (sql.Result, error) {
	return s.st.ExecContext(ctx, args...)
}

func (s st2execer) QueryContext(ctx context.Context, _ string, args ...any) (*sql.Rows, error) {
	return s.st.QueryContext(ctx, args...)
}

// TestAdminCheckUnderWrites runs CHECK TABLE while other sessions update,
// insert and delete indexed rows: the scans are not a snapshot, and every
// difference a concurrent write explains must be dropped, never reported
// as corruption (pending entries are notes).
func TestAdminCheckUnderWrites(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		ctx := context.Background()
		c := ts.Session("d")
		sqltest.NewRunner(t, c).Exec(`CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(20), c INT,
			KEY ga (a) COMMENT 'sqlgw: global, cover=(c)', UNIQUE KEY ub (b) COMMENT 'sqlgw: global',
			KEY la (id, c) COMMENT 'sqlgw: local')`)
		for i := 0; i < 40; i++ {
			sqltest.NewRunner(t, c).Exec("INSERT INTO t VALUES (?, ?, ?, ?)", i, i%7, "v"+string(rune('a'+i%26))+strings.Repeat("x", i/26), i)
		}
		stop := make(chan struct{})
		errs := make(chan error, 2)
		var writes [2]int
		for w := 0; w < 2; w++ {
			go func(w int) {
				wc, err := ts.DB.Conn(ctx)
				if err != nil {
					errs <- err
					return
				}
				defer wc.Close()
				for n := 0; ; n++ {
					select {
					case <-stop:
						errs <- nil
						return
					default:
					}
					id := (n*7 + w*13) % 40
					var err error
					switch n % 3 {
					case 0:
						_, err = wc.ExecContext(ctx, "UPDATE d.t SET a = a + 1, c = c + 1 WHERE id = ?", id)
					case 1:
						_, err = wc.ExecContext(ctx, "UPDATE d.t SET b = ? WHERE id = ?", "w"+string(rune('0'+w))+"-"+strings.Repeat("y", n%5)+string(rune('a'+id%26))+string(rune('a'+id/26)), id)
					case 2:
						_, err = wc.ExecContext(ctx, "DELETE FROM d.t WHERE id = ?", 100+w)
						if err == nil {
							_, err = wc.ExecContext(ctx, "INSERT INTO d.t VALUES (?, ?, NULL, ?)", 100+w, n%5, n)
						}
					}
					if err != nil && sqltest.Errno(err) != 1062 && sqltest.Errno(err) != 1213 && sqltest.Errno(err) != 1205 {
						errs <- err
						return
					}
					writes[w]++
				}
			}(w)
		}
		checks := 0
		deadline := time.Now().Add(3 * time.Second)
		var bad []string
		for time.Now().Before(deadline) && bad == nil {
			for _, l := range adminRows(t, c, "CHECK TABLE t") {
				if !strings.Contains(l, "|note|") && l != "d.t|check|status|OK" {
					bad = append(bad, l)
				}
			}
			checks++
		}
		close(stop)
		for w := 0; w < 2; w++ {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		if bad != nil {
			t.Fatalf("CHECK TABLE under writes reported: %q", bad)
		}
		t.Logf("%d CHECK TABLE runs during %d writes", checks, writes[0]+writes[1])
		if checks < 2 || writes[0]+writes[1] < 10 {
			t.Fatalf("too little overlap: %d checks, %d writes", checks, writes[0]+writes[1])
		}
		expectAdmin(t, c, "CHECK TABLE t", "d.t|check|status|OK")
	})
}

// TestAdminDuplicateUnique: two rows holding one value of a unique index
// (a row changed in the store behind the index's back) is corruption that
// CHECK TABLE names and REPAIR TABLE cannot fix (the entry names one row).
func TestAdminDuplicateUnique(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		store, co := ts.Store, ts.Catalog
		ctx := context.Background()
		c := ts.Session("d",
			"CREATE TABLE t (id INT PRIMARY KEY, b VARCHAR(10), UNIQUE KEY ub (b) COMMENT 'sqlgw: global')",
			"INSERT INTO t VALUES (1, 'x'), (2, 'y')")
		r := sqltest.NewRunner(t, c)
		tbl := sqltest.StoreTable(t, store, co, "d", "t")
		pk, rk, err := tbl.EncodePrimaryKey([]catalog.Datum{int64(2)})
		if err != nil {
			t.Fatal(err)
		}
		e, err := store.Get(ctx, tbl.Physical, pk, rk, nil)
		if err != nil {
			t.Fatal(err)
		}
		e.Properties[tbl.Columns[tbl.ColumnIndex("b")].Property] = storage.String("x")
		if _, err := store.Update(ctx, tbl.Physical, e, storage.Replace, e.ETag); err != nil {
			t.Fatal(err)
		}
		sqltest.NewRunner(t, c).Script(`
			query CHECK TABLE t
			= d.t | check | Warning | Index 'ub' (global) is corrupt: 1 entries missing, 1 extra, 0 with wrong values (an entry for row (2) that the row does not imply; no entry for row (2))
			= d.t | check | error | Corrupt
			query REPAIR TABLE t
			= d.t | repair | note | Index 'ub': 1 entries repaired
			= d.t | repair | Warning | Index 'ub' (global) is corrupt: 1 entries missing, 0 extra, 0 with wrong values (no entry for row (2))
			= d.t | repair | error | Corrupt
		`)
		// Fixing the data, then the index, fixes the table. (The UPDATE's
		// index maintenance trusts the index: it removes the entry 'x'
		// as row 2's old one, though it names row 1, which REPAIR TABLE
		// then restores.)
		r.Exec("UPDATE t SET b = 'z' WHERE id = 2")
		sqltest.NewRunner(t, c).Script(`
			query REPAIR TABLE t
			= d.t | repair | note | Index 'ub': 1 entries repaired
			= d.t | repair | status | OK
			query CHECK TABLE t
			= d.t | check | status | OK
		`)
		r.ExpectRows("SELECT id FROM t WHERE b = 'x'", "1")

		// The global index's store table deleted: REPAIR TABLE
		// creates it and rebuilds the index.
		phys := tbl.Index("ub").Physical
		if err := store.DeleteTable(ctx, phys); err != nil {
			t.Fatal(err)
		}
		expectAdmin(t, c, "CHECK TABLE t",
			"d.t|check|Warning|Index 'ub' (global) is corrupt: its store table "+phys+" is missing",
			"d.t|check|error|Corrupt")
		expectAdmin(t, c, "REPAIR TABLE t",
			"d.t|repair|note|Index 'ub': store table "+phys+" created and the index rebuilt",
			"d.t|repair|status|OK")
		expectAdmin(t, c, "CHECK TABLE t", "d.t|check|status|OK")
		r.ExpectRows("SELECT id FROM t WHERE b IN ('x', 'z') ORDER BY id", "1", "2")
	})
}
