package sqlgw_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
)

// keylessSchema is the shape of log, staging and import tables: no
// primary key, a plain index and a UNIQUE one.
const keylessSchema = "CREATE TABLE t (a INT, b VARCHAR(20), c INT, KEY ka (a), UNIQUE KEY ub (b))"

// TestKeylessIndexes: secondary and UNIQUE indexes on a table without a
// primary key (MySQL's hidden key; sqlgw's generated RowKey). Lookups use
// them (EXPLAIN, the session counters); INSERT, UPDATE, DELETE, INSERT
// IGNORE, ON DUPLICATE KEY UPDATE and REPLACE maintain and enforce them;
// CREATE INDEX backfills (and a UNIQUE one over duplicates fails with
// 1062); SHOW CREATE TABLE, SHOW INDEX and information_schema show them,
// and the dump reloads; on both backends.
func TestKeylessIndexes(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, s *sqltest.Server) {
		c := s.Session("d", keylessSchema)
		r := sqltest.NewRunner(t, c)
		var vals []string
		for i := range 200 {
			b := fmt.Sprintf("'b%d'", i)
			if i%50 == 0 {
				b = "NULL" // many NULLs in a UNIQUE index
			}
			vals = append(vals, fmt.Sprintf("(%d, %s, %d)", i%20, b, i))
		}
		r.Exec("INSERT INTO t VALUES " + strings.Join(vals, ", "))

		create := r.Rows("SHOW CREATE TABLE t")[0]
		for _, want := range []string{"KEY `ka` (`a`),", "UNIQUE KEY `ub` (`b`)\n"} {
			if !strings.Contains(create, want) {
				t.Errorf("SHOW CREATE TABLE: no %q in\n%s", want, create)
			}
		}
		if strings.Contains(create, "COMMENT") {
			t.Errorf("SHOW CREATE TABLE: an index comment (a keyless table's indexes are all local):\n%s", create)
		}
		r.ExpectRows("SELECT INDEX_NAME, COLUMN_NAME, NON_UNIQUE FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 't' ORDER BY INDEX_NAME",
			"ka\ta\t1", "ub\tb\t0")
		if got := len(r.Rows("SHOW INDEX FROM t")); got != 2 {
			t.Errorf("SHOW INDEX: %d rows, want 2", got)
		}

		// checkIndexes compares every indexed lookup with a scan.
		checkIndexes := func(when string) {
			t.Helper()
			for _, w := range []string{"a = 0", "a = 7", "a = 19", "a = 100", "a IN (3, 4)", "b = 'b42'", "b = 'b43'", "b = 'zz'", "b = 'new'", "b IN ('b1', 'b2')"} {
				got := r.Rows(fmt.Sprintf("SELECT a, b, c FROM t WHERE %s ORDER BY c", w))
				want := r.Rows(fmt.Sprintf("SELECT a, b, c FROM t WHERE CONCAT(%s) ORDER BY c", w)) // opaque: a scan
				if !slices.Equal(got, want) {
					t.Errorf("%s: WHERE %s: %q, want %q", when, w, got, want)
				}
			}
		}
		checkIndexes("loaded")

		for _, tc := range []struct {
			q          string
			path       string
			reqs, ents int64
		}{
			{"SELECT c FROM t WHERE a = 7", "IndexLookup", 11, 20},
			{"SELECT c FROM t WHERE b = 'b42'", "IndexLookup", 2, 2},
			{"SELECT c FROM t WHERE b IN ('b1', 'b2', 'b3')", "IndexLookup", 6, 6},
		} {
			plan := strings.Join(r.Rows("EXPLAIN PLAN "+tc.q), "\n")
			if !strings.Contains(plan, tc.path) {
				t.Errorf("%s: want %s:\n%s", tc.q, tc.path, plan)
			}
			if reqs, ents := r.Cost(tc.q); reqs > tc.reqs || ents > tc.ents {
				t.Errorf("%s: %d requests, %d entities; want at most %d, %d\n%s", tc.q, reqs, ents, tc.reqs, tc.ents, plan)
			}
		}
		r.ExpectRows("SELECT COUNT(*) FROM t WHERE a = 7", "10")
		r.ExpectRows("SELECT c FROM t WHERE b = 'b42'", "42")
		r.Exec("ANALYZE TABLE t")
		r.ExpectRows("SELECT INDEX_NAME, CARDINALITY FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 't' ORDER BY INDEX_NAME",
			"ka\t20", "ub\t197")
		r.ExpectRows("SELECT COUNT(*) FROM t WHERE a = 7", "10")

		// UNIQUE is enforced; NULLs are not duplicates.
		r.ExpectErrno(1062, "INSERT INTO t VALUES (1, 'b42', 1000)")
		r.ExpectErrno(1062, "UPDATE t SET b = 'b44' WHERE b = 'b45'")
		r.Exec("INSERT INTO t VALUES (1, NULL, 1001)")
		r.ExpectAffected(0, "INSERT IGNORE INTO t VALUES (1, 'b42', 1002)")
		r.Exec("INSERT INTO t VALUES (5, 'b43', 1003) ON DUPLICATE KEY UPDATE c = 4300")
		r.ExpectRows("SELECT a, c FROM t WHERE b = 'b43'", "3\t4300")
		r.Exec("REPLACE INTO t VALUES (6, 'b44', 4400)")
		r.ExpectRows("SELECT a, c FROM t WHERE b = 'b44'", "6\t4400")
		r.ExpectRows("SELECT COUNT(*) FROM t WHERE b = 'b44'", "1")
		checkIndexes("after the unique statements")

		// Maintenance: updates move entries, deletes remove them.
		r.ExpectAffected(1, "UPDATE t SET a = 100, b = 'new' WHERE b = 'b45'")
		r.ExpectAffected(10, "DELETE FROM t WHERE a = 7")
		r.ExpectAffected(5, "UPDATE t SET c = c + 1 WHERE a = 19 AND c < 100")
		checkIndexes("after updates and deletes")
		r.ExpectRows("SELECT COUNT(*) FROM t WHERE a = 7", "0")
		r.ExpectRows("SELECT c FROM t WHERE a = 100", "45")

		// A transaction's buffered writes are seen by its reads.
		r.Exec("BEGIN")
		r.Exec("INSERT INTO t VALUES (7, 'zz', 2000)")
		r.ExpectRows("SELECT c FROM t WHERE a = 7", "2000")
		r.ExpectErrno(1062, "INSERT INTO t VALUES (8, 'zz', 2001)")
		r.Exec("ROLLBACK")
		r.ExpectRows("SELECT COUNT(*) FROM t WHERE b = 'zz'", "0")
		checkIndexes("after the rollback")

		// Concurrent inserts of one UNIQUE value: one wins.
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.DB.ExecContext(context.Background(), fmt.Sprintf("INSERT INTO d.t VALUES (%d, 'same', %d)", i, 3000+i))
			}()
		}
		wg.Wait()
		r.ExpectRows("SELECT COUNT(*) FROM t WHERE b = 'same'", "1")
		r.ExpectRows("SELECT COUNT(*) FROM t WHERE CONCAT(b = 'same')", "1")

		// CREATE INDEX backfills; a UNIQUE one over duplicates fails.
		r.Exec("CREATE INDEX kc ON t (c)")
		q := "SELECT a FROM t WHERE c = 42"
		r.ExpectRows(q, "2")
		if plan := strings.Join(r.Rows("EXPLAIN PLAN "+q), "\n"); !strings.Contains(plan, "index kc") {
			t.Errorf("%s: want index kc:\n%s", q, plan)
		}
		r.ExpectErrno(1062, "CREATE UNIQUE INDEX ua ON t (a)")
		r.ExpectRows("SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 't' AND INDEX_NAME = 'ua'", "0")

		// The dump reloads with its indexes.
		create = r.Rows("SHOW CREATE TABLE t")[0]
		ddl := strings.Replace(strings.SplitN(create, "\t", 2)[1], "CREATE TABLE `t`", "CREATE TABLE `t2`", 1)
		r.Exec(ddl)
		r.Exec("INSERT INTO t2 SELECT * FROM t")
		r.ExpectRows("SELECT INDEX_NAME, COLUMN_NAME, NON_UNIQUE FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 't2' ORDER BY INDEX_NAME",
			"ka\ta\t1", "kc\tc\t1", "ub\tb\t0")
		r.ExpectRows("SELECT c FROM t2 WHERE b = 'b42'", "42")
		r.ExpectErrno(1062, "INSERT INTO t2 VALUES (1, 'b42', 1)")
		r.ExpectRows("SELECT COUNT(*) FROM t2 WHERE a = 3", r.Rows("SELECT COUNT(*) FROM t WHERE a = 3")...)

		// ORDER BY the index with a LIMIT reads LIMIT entries and rows;
		// a join looks rows up through the index.
		q = "SELECT a, c FROM t ORDER BY a DESC, c DESC LIMIT 2"
		r.ExpectRows("SELECT a, c FROM t ORDER BY c LIMIT 2", "0\t0", "1\t1")
		r.ExpectRows(q, r.Rows("SELECT a, c FROM t ORDER BY a + 0 DESC, c DESC LIMIT 2")...)
		if reqs, ents := r.Cost("SELECT a, c FROM t ORDER BY c LIMIT 2"); reqs > 3 || ents > 4 {
			t.Errorf("ORDER BY c LIMIT 2: %d requests, %d entities; want at most 3, 4", reqs, ents)
		}
		r.ExpectRows("SELECT COUNT(*) FROM t2 JOIN t ON t.b = t2.b WHERE t2.a = 3", r.Rows("SELECT COUNT(*) FROM t2 JOIN t ON CONCAT(t.b) = t2.b WHERE t2.a = 3")...)

		r.Exec("DROP INDEX ka ON t")
		r.ExpectRows("SELECT COUNT(*) FROM t WHERE a = 3", r.Rows("SELECT COUNT(*) FROM t2 WHERE a = 3")...)
	})
}

// TestKeylessIndexCrashRecovery crashes the store at every request of
// statements on an indexed keyless table: a new server answers every
// indexed query as a scan does, and the indexes equal what the rows imply
// (the local index entities are in the row's batch).
func TestKeylessIndexCrashRecovery(t *testing.T) {
	sqltest.Long(t) // crashes the store at every request of five statements
	stmts := []string{
		"INSERT INTO t VALUES (9, 'z', 5)",
		"UPDATE t SET a = 40, b = 'w' WHERE b = 'x'",
		"UPDATE t SET c = 77 WHERE b = 'y'",
		"DELETE FROM t WHERE a = 20",
		"INSERT INTO t VALUES (10, 'x', 1)", // unique violation
	}
	for _, stmt := range stmts {
		sqltest.CrashAtEveryRequest(t, sqltest.Crash{
			Name: stmt,
			Setup: func(r *sqltest.Runner, _ storage.Store) {
				r.ExecAll("CREATE DATABASE d", "USE d", keylessSchema,
					"INSERT INTO t VALUES (10, 'x', 1), (10, 'y', 2), (20, NULL, 3), (NULL, NULL, 4)")
			},
			Op: func(r *sqltest.Runner) { r.Try(stmt) },
			Check: func(r *sqltest.Runner, _ storage.Store, p sqltest.CrashPoint) {
				r.Exec("USE d")
				for _, w := range []string{"a = 10", "a = 20", "a = 40", "a = 9", "b = 'x'", "b = 'y'", "b = 'z'", "b = 'w'"} {
					got := r.Rows(fmt.Sprintf("SELECT a, b, c FROM t WHERE %s ORDER BY c", w))
					want := r.Rows(fmt.Sprintf("SELECT a, b, c FROM t WHERE CONCAT(%s) ORDER BY c", w))
					if !slices.Equal(got, want) {
						t.Errorf("%s %s: WHERE %s: %v, want %v", stmt, p, w, got, want)
					}
				}
			},
			After: func(store storage.Store, p sqltest.CrashPoint) {
				if mm, err := recoverIndexes(t, store, "d", "t"); err != nil || len(mm) > 0 {
					t.Errorf("%s %s: after recovery: %v %v", stmt, p, mm, err)
				}
			},
		})
	}
}
