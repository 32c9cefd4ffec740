package sqlgw_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// Cross-feature review: each test runs the same statements on table group
// members (or salted / keyless tables) and on plain tables of the same
// shape, and wants the same answers.

// TestCrossGroupSnapshot: a REPEATABLE READ transaction joining two group
// members keeps reading its snapshot while another connection commits to
// both, exactly like the plain pair; the statement's partition read must
// come from the snapshot, not the current rows.
func TestCrossGroupSnapshot(t *testing.T) {
	snapshotBackends(t, func(t *testing.T, ts *sqltest.Server) {
		ra, rb := ts.Pair("d")
		ra.Script(`
			exec CREATE TABLE orders (cust INT NOT NULL, id INT NOT NULL, total INT, PRIMARY KEY (cust, id)) COMMENT 'sqlgw: group=sales'
			exec CREATE TABLE order_lines (cust INT NOT NULL, id INT NOT NULL, line INT NOT NULL, sku VARCHAR(20), PRIMARY KEY (cust, id, line)) COMMENT 'sqlgw: group=sales'
			exec CREATE TABLE porders (cust INT NOT NULL, id INT NOT NULL, total INT, PRIMARY KEY (cust, id))
			exec CREATE TABLE porder_lines (cust INT NOT NULL, id INT NOT NULL, line INT NOT NULL, sku VARCHAR(20), PRIMARY KEY (cust, id, line))
		`)
		forTwins(ra, []string{"", "p"},
			"INSERT INTO %sorders VALUES (1, 1, 10), (1, 2, 20), (2, 1, 30)",
			"INSERT INTO %sorder_lines VALUES (1, 1, 1, 'a'), (1, 1, 2, 'b'), (1, 2, 1, 'c'), (2, 1, 1, 'd')")
		for _, p := range []string{"", "p"} {
			join := "SELECT o.id, o.total, l.line, l.sku FROM " + p + "orders o JOIN " + p + "order_lines l ON l.cust = o.cust AND l.id = o.id WHERE o.cust = 1 ORDER BY o.id, l.line"
			want := []string{"1\t10\t1\ta", "1\t10\t2\tb", "2\t20\t1\tc"}
			ra.Exec("BEGIN")
			ra.ExpectRows(join, want...)
			rb.Exec("BEGIN")
			rb.Exec("UPDATE " + p + "orders SET total = total + 1 WHERE cust = 1")
			rb.Exec("INSERT INTO " + p + "order_lines VALUES (1, 2, 2, 'e')")
			rb.Exec("DELETE FROM " + p + "order_lines WHERE cust = 1 AND id = 1 AND line = 1")
			rb.Exec("COMMIT")
			ra.ExpectRows(join, want...)
			ra.ExpectRows("SELECT SUM(total) FROM "+p+"orders WHERE cust = 1", "30")
			ra.ExpectRows("SELECT COUNT(*) FROM "+p+"order_lines WHERE cust = 1", "3")
			ra.ExpectRows("SELECT (SELECT SUM(total) FROM "+p+"orders WHERE cust = 1), (SELECT COUNT(*) FROM "+p+"order_lines WHERE cust = 1)", "30\t3")
			// Own writes on top of the snapshot.
			ra.Exec("INSERT INTO " + p + "order_lines VALUES (1, 1, 3, 'f')")
			ra.ExpectRows(join, append(append([]string{}, want[:2]...), "1\t10\t3\tf", want[2])...)
			ra.Exec("ROLLBACK")
			ra.ExpectRows(join, "1\t11\t2\tb", "2\t21\t1\tc", "2\t21\t2\te")
		}
		// First read of the transaction inside the other session's write.
		for _, p := range []string{"", "p"} {
			ra.Exec("START TRANSACTION WITH CONSISTENT SNAPSHOT")
			rb.Exec("UPDATE " + p + "orders SET total = 0 WHERE cust = 1")
			ra.ExpectRows("SELECT o.total, COUNT(*) FROM "+p+"orders o JOIN "+p+"order_lines l ON l.cust = o.cust AND l.id = o.id WHERE o.cust = 1 GROUP BY o.id, o.total ORDER BY o.id", "11\t1", "21\t2")
			ra.Exec("COMMIT")
		}
	})
}

// TestCrossGroupDescLimit: ORDER BY ... DESC LIMIT over group members,
// within a partition and across partitions, with and without an open
// transaction's buffered writes, matches the plain tables.
func TestCrossGroupDescLimit(t *testing.T) {
	runTwinCase(t, twinCase{
		names:  []string{"", "p"},
		schema: groupSchema,
		seed: `
			INSERT INTO %sorders VALUES (1, 1, 10), (1, 2, 20), (1, 3, 30), (2, 1, 40), (2, 2, 50)
			INSERT INTO %sorder_lines VALUES (1, 1, 1, 'a'), (1, 1, 2, 'b'), (1, 2, 1, 'c'), (1, 3, 1, 'd'), (2, 1, 1, 'e'), (2, 2, 1, 'f')
		`,
		qs: `
			SELECT id, total FROM %sorders WHERE cust = 1 ORDER BY id DESC LIMIT 2
			SELECT id, line FROM %sorder_lines WHERE cust = 1 ORDER BY id DESC, line DESC LIMIT 3
			SELECT cust, id FROM %sorders ORDER BY cust DESC, id DESC LIMIT 3
			SELECT cust, id, line FROM %sorder_lines ORDER BY cust DESC, id DESC, line DESC LIMIT 4
			SELECT o.id, l.line FROM %[1]sorders o JOIN %[1]sorder_lines l ON l.cust = o.cust AND l.id = o.id WHERE o.cust = 1 ORDER BY o.id DESC, l.line DESC LIMIT 3
			SELECT id FROM %sorder_lines WHERE cust = 1 AND id < 3 ORDER BY id DESC, line DESC LIMIT 2
		`,
		writes: `
			INSERT INTO %sorders VALUES (1, 4, 5), (1, 0, 1)
			INSERT INTO %sorder_lines VALUES (1, 3, 2, 'x'), (1, 4, 1, 'y')
			DELETE FROM %sorder_lines WHERE cust = 1 AND id = 2
			UPDATE %sorders SET total = 99 WHERE cust = 1 AND id = 3
		`,
	})
}

// twinRows fails when a query of qs, formatted with each of names (the
// tables under test), answers other rows than formatted with ref (their
// plain twins).
func twinRows(t *testing.T, r *sqltest.Runner, stage string, qs []string, ref string, names ...string) {
	t.Helper()
	for _, q := range qs {
		want := r.Rows(fmt.Sprintf(q, ref))
		for _, n := range names {
			if got := r.Rows(fmt.Sprintf(q, n)); !equalRows(got, want) {
				t.Errorf("%s: %s on %q:\ngot  %q\nwant %q (on %q)", stage, q, n, got, want, ref)
			}
		}
	}
}

func equalRows(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// twinCase is a cross-feature comparison: in database d (use: a new one;
// otherwise schema or setup makes it), after them and the seed statements
// (forTwins over names), each query of qs answers on every name as on the
// last one (the plain twin): committed, inside a transaction after its
// writes (forTwins over names), and after the transaction commits.
// Statements and queries are written one a line.
type twinCase struct {
	names            []string
	use              bool
	schema           string // a script run first (sqltest.Runner.Script)
	setup            func(t *testing.T, r *sqltest.Runner)
	seed, qs, writes string
}

// runTwinCase runs c on each backend.
func runTwinCase(t *testing.T, c twinCase) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, s *sqltest.Server) {
		r := s.Runner()
		if c.use {
			r = s.Use("d")
		}
		r.Script(c.schema)
		if c.setup != nil {
			c.setup(t, r)
		}
		forTwins(r, c.names, sqltest.Lines(c.seed)...)
		qs := sqltest.Lines(c.qs)
		ref, others := c.names[len(c.names)-1], c.names[:len(c.names)-1]
		compare := func(stage string) { t.Helper(); twinRows(t, r, stage, qs, ref, others...) }
		twinTransaction(r, compare, c.names, "COMMIT", sqltest.Lines(c.writes)...)
	})
}

// forTwins runs the statements (%s, or %[1]s, is the table name or
// prefix; a statement without one, such as BEGIN, runs as it is) for each
// of names in turn: all of them for the first, then for the next.
func forTwins(r *sqltest.Runner, names []string, stmts ...string) {
	for _, n := range names {
		for _, q := range stmts {
			if strings.Contains(q, "%") {
				q = fmt.Sprintf(q, n)
			}
			r.Exec(q)
		}
	}
}

// twinTransaction runs compare on the committed rows, after the writes
// (forTwins over names) inside a transaction, and after end (COMMIT or
// ROLLBACK) ends it.
func twinTransaction(r *sqltest.Runner, compare func(stage string), names []string, end string, writes ...string) {
	compare("committed")
	r.Exec("BEGIN")
	forTwins(r, names, writes...)
	compare("in transaction")
	r.Exec(end)
	compare("after " + strings.ToLower(end))
}

// snapshotReads reads each query of qs on each of names through rows, and
// fails where a table answers otherwise than the plain one (names[0];
// unless plain(q) is false) or, given want, than at the snapshot's first
// read. It returns the answers by query and table name.
func snapshotReads(t *testing.T, stage string, qs, names []string, want map[string][]string, plain func(q string) bool, rows func(q, n string) []string) map[string][]string {
	t.Helper()
	got := map[string][]string{}
	for _, q := range qs {
		for _, n := range names {
			rs := rows(q, n)
			if n != names[0] && plain(q) && !equalRows(rs, got[q+names[0]]) {
				t.Errorf("%s: %s on %s: %q, plain table %q", stage, q, n, rs, got[q+names[0]])
			}
			if want != nil && !equalRows(rs, want[q+n]) {
				t.Errorf("%s: %s on %s: %q, want the snapshot's %q", stage, q, n, rs, want[q+n])
			}
			got[q+n] = rs
		}
	}
	return got
}

// TestCrossGroupCurrentReads: a statement that reads group members from the
// transaction's snapshot and then checks a foreign key (a current read,
// snapshot.go) must not answer the check from the snapshot's partition
// read: a parent deleted after the snapshot fails the child's insert with
// 1452, as with plain tables.
func TestCrossGroupCurrentReads(t *testing.T) {
	snapshotBackends(t, func(t *testing.T, ts *sqltest.Server) {
		ra, rb := ts.Pair("d")
		for _, p := range []string{"", "p"} {
			group := ""
			if p == "" {
				group = " COMMENT 'sqlgw: group=sales'"
			}
			ra.Exec("CREATE TABLE " + p + "orders (cust INT NOT NULL, id INT NOT NULL, total INT, PRIMARY KEY (cust, id))" + group)
			ra.Exec("CREATE TABLE " + p + "order_lines (cust INT NOT NULL, id INT NOT NULL, line INT NOT NULL, sku VARCHAR(20), PRIMARY KEY (cust, id, line), FOREIGN KEY (cust, id) REFERENCES " + p + "orders (cust, id))" + group)
			ra.Exec("INSERT INTO " + p + "orders VALUES (1, 1, 10), (1, 2, 20)")
			ra.Exec("INSERT INTO " + p + "order_lines VALUES (1, 1, 1, 'a')")
		}
		for _, p := range []string{"p", ""} {
			ra.Exec("BEGIN")
			ra.ExpectRows("SELECT COUNT(*) FROM "+p+"orders WHERE cust = 1", "2")
			rb.Exec("DELETE FROM " + p + "orders WHERE cust = 1 AND id = 2")
			ra.ExpectErrno(1452, "INSERT INTO "+p+"order_lines SELECT o.cust, o.id, 7, 'z' FROM "+p+"orders o LEFT JOIN "+p+"order_lines l ON l.cust = o.cust AND l.id = o.id WHERE o.cust = 1 AND o.id = 2")
			ra.Exec("ROLLBACK")
			ra.ExpectRows("SELECT cust, id, line FROM "+p+"order_lines ORDER BY id, line", "1\t1\t1")
			rb.Exec("INSERT INTO " + p + "orders VALUES (1, 2, 20)")
		}
		for _, p := range []string{"p", ""} {
			ra.Exec("BEGIN")
			ra.ExpectRows("SELECT COUNT(*) FROM "+p+"orders WHERE cust = 1", "2")
			rb.Exec("DELETE FROM " + p + "orders WHERE cust = 1 AND id = 2")
			ra.ExpectErrno(1452, "UPDATE "+p+"order_lines SET id = 2 WHERE cust = 1 AND id = 1 AND EXISTS (SELECT 1 FROM "+p+"orders o WHERE o.cust = 1 AND o.id = 2)")
			ra.Exec("ROLLBACK")
			ra.ExpectRows("SELECT cust, id, line FROM "+p+"order_lines ORDER BY id, line", "1\t1\t1")
		}
		// A duplicate key committed after the snapshot (a current read)
		// fails the statement that read the partition from the snapshot.
		for _, p := range []string{"p", ""} {
			ra.Exec("BEGIN")
			ra.ExpectRows("SELECT COUNT(*) FROM "+p+"order_lines WHERE cust = 1", "1")
			rb.Exec("INSERT INTO " + p + "order_lines VALUES (1, 1, 2, 'b')")
			ra.ExpectErrno(1062, "INSERT INTO "+p+"order_lines SELECT o.cust, o.id, 2, 'c' FROM "+p+"orders o JOIN "+p+"order_lines l ON l.cust = o.cust AND l.id = o.id WHERE o.cust = 1")
			ra.Exec("ROLLBACK")
			ra.ExpectRows("SELECT cust, id, line, sku FROM "+p+"order_lines ORDER BY id, line", "1\t1\t1\ta", "1\t1\t2\tb")
		}
	})
}

// TestCrossSaltedGroupDescLimit: salted members of a table group, ORDER BY ... DESC LIMIT
// inside and outside a transaction, against plain salted and unsalted
// tables.
func TestCrossSaltedGroupDescLimit(t *testing.T) {
	runTwinCase(t, twinCase{
		names: []string{"", "s", "p"},
		use:   true,
		setup: func(t *testing.T, r *sqltest.Runner) {
			r.Script(`
				exec CREATE TABLE orders (cust INT NOT NULL, id INT NOT NULL, total INT, PRIMARY KEY (cust, id)) COMMENT 'sqlgw: group=sales' PARTITION BY KEY (cust) PARTITIONS 4
				exec CREATE TABLE order_lines (cust INT NOT NULL, id INT NOT NULL, line INT NOT NULL, sku VARCHAR(20), PRIMARY KEY (cust, id, line)) COMMENT 'sqlgw: group=sales' PARTITION BY KEY (cust) PARTITIONS 4
				exec CREATE TABLE sorders (cust INT NOT NULL, id INT NOT NULL, total INT, PRIMARY KEY (cust, id)) PARTITION BY KEY (cust) PARTITIONS 4
				exec CREATE TABLE sorder_lines (cust INT NOT NULL, id INT NOT NULL, line INT NOT NULL, sku VARCHAR(20), PRIMARY KEY (cust, id, line)) PARTITION BY KEY (cust) PARTITIONS 4
				exec CREATE TABLE porders (cust INT NOT NULL, id INT NOT NULL, total INT, PRIMARY KEY (cust, id))
				exec CREATE TABLE porder_lines (cust INT NOT NULL, id INT NOT NULL, line INT NOT NULL, sku VARCHAR(20), PRIMARY KEY (cust, id, line))
			`)
		},
		seed: `
			INSERT INTO %sorders VALUES (1, 1, 10), (1, 2, 20), (1, 3, 30), (2, 1, 40), (2, 2, 50), (3, 7, 70), (5, 1, 1)
			INSERT INTO %sorder_lines VALUES (1, 1, 1, 'a'), (1, 1, 2, 'b'), (1, 2, 1, 'c'), (1, 3, 1, 'd'), (2, 1, 1, 'e'), (2, 2, 1, 'f'), (3, 7, 1, 'g'), (5, 1, 1, 'h')
		`,
		qs: `
			SELECT id, total FROM %sorders WHERE cust = 1 ORDER BY id DESC LIMIT 2
			SELECT id, line FROM %sorder_lines WHERE cust = 1 ORDER BY id DESC, line DESC LIMIT 3
			SELECT cust, id FROM %sorders ORDER BY cust DESC, id DESC LIMIT 3
			SELECT cust, id FROM %sorders WHERE cust IN (1, 2, 3) ORDER BY cust DESC, id DESC LIMIT 4
			SELECT cust, id, line FROM %sorder_lines ORDER BY cust DESC, id DESC, line DESC LIMIT 4
			SELECT o.id, l.line FROM %[1]sorders o JOIN %[1]sorder_lines l ON l.cust = o.cust AND l.id = o.id WHERE o.cust = 1 ORDER BY o.id DESC, l.line DESC LIMIT 3
			SELECT o.cust, o.id, l.line FROM %[1]sorders o JOIN %[1]sorder_lines l ON l.cust = o.cust AND l.id = o.id ORDER BY o.cust DESC, o.id DESC, l.line DESC LIMIT 5
			SELECT id FROM %sorder_lines WHERE cust = 1 AND id < 3 ORDER BY id DESC, line DESC LIMIT 2
			SELECT cust, id FROM %sorders WHERE cust BETWEEN 1 AND 3 ORDER BY cust DESC, id DESC LIMIT 2 OFFSET 1
		`,
		writes: `
			INSERT INTO %sorders VALUES (1, 4, 5), (1, 0, 1), (4, 1, 9), (6, 6, 6)
			INSERT INTO %sorder_lines VALUES (1, 3, 2, 'x'), (1, 4, 1, 'y'), (6, 6, 1, 'z')
			DELETE FROM %sorder_lines WHERE cust = 1 AND id = 2
			DELETE FROM %sorders WHERE cust = 3
			UPDATE %sorders SET total = 99 WHERE cust = 1 AND id = 3
		`,
	})
}

// TestCrossGroupIndexesInTransaction: unique and non-unique (global)
// indexes on table group members, written inside transactions (one
// partition: the group's merged batch; several partitions: the atomic
// commit or the transaction record), read back through the indexes, give
// the same answers and the same duplicate-key errors as plain tables.
func TestCrossGroupIndexesInTransaction(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, s *sqltest.Server) {
		r := s.Use("d")
		for _, p := range []string{"", "p"} {
			group := ""
			if p == "" {
				group = " COMMENT 'sqlgw: group=sales'"
			}
			r.Exec("CREATE TABLE " + p + "orders (cust INT NOT NULL, id INT NOT NULL, ref VARCHAR(20), total INT, PRIMARY KEY (cust, id), UNIQUE KEY by_ref (ref), KEY by_total (total))" + group)
			r.Exec("CREATE TABLE " + p + "order_lines (cust INT NOT NULL, id INT NOT NULL, line INT NOT NULL, sku VARCHAR(20), PRIMARY KEY (cust, id, line), KEY by_sku (sku))" + group)
			r.Exec("INSERT INTO " + p + "orders VALUES (1, 1, 'r1', 10), (2, 1, 'r2', 20)")
			r.Exec("INSERT INTO " + p + "order_lines VALUES (1, 1, 1, 'a'), (2, 1, 1, 'b')")
		}
		qs := sqltest.Lines(`
			SELECT cust, id, total FROM %sorders WHERE ref = 'r1'
			SELECT cust, id, total FROM %sorders WHERE ref = 'r2'
			SELECT cust, id, total FROM %sorders WHERE ref = 'r3'
			SELECT cust, id, ref FROM %sorders WHERE ref >= 'r' ORDER BY ref
			SELECT cust, id, ref FROM %sorders WHERE total BETWEEN 5 AND 35 ORDER BY total DESC LIMIT 2
			SELECT cust, id, line FROM %sorder_lines WHERE sku = 'a' ORDER BY cust, id, line
			SELECT cust, id, line FROM %sorder_lines WHERE sku IN ('b', 'c', 'd') ORDER BY cust, id, line
			SELECT o.ref, l.sku FROM %[1]sorders o JOIN %[1]sorder_lines l ON l.cust = o.cust AND l.id = o.id WHERE o.ref = 'r1' ORDER BY l.sku
			SELECT COUNT(*) FROM %sorders
		`)
		compare := func(stage string) { t.Helper(); twinRows(t, r, stage, qs, "p", "") }
		compare("start")
		steps := [][]string{
			// One partition, both members.
			{"INSERT INTO %sorders VALUES (1, 2, 'r3', 30)", "INSERT INTO %sorder_lines VALUES (1, 2, 1, 'c'), (1, 1, 2, 'd')"},
			// A unique value handed over (swap) within one partition's rows
			// and across partitions.
			{"UPDATE %sorders SET ref = 'tmp' WHERE cust = 1 AND id = 1", "UPDATE %sorders SET ref = 'r1' WHERE cust = 1 AND id = 2", "UPDATE %sorders SET ref = 'r3' WHERE cust = 1 AND id = 1"},
			// Delete then insert of the same unique value, other partition.
			{"DELETE FROM %sorders WHERE ref = 'r2'", "INSERT INTO %sorders VALUES (3, 1, 'r2', 5)", "UPDATE %sorder_lines SET sku = 'b' WHERE cust = 1 AND line = 2"},
			// Several partitions and members at once.
			{"INSERT INTO %sorders VALUES (4, 1, 'r4', 40), (5, 1, 'r5', 50)", "INSERT INTO %sorder_lines VALUES (4, 1, 1, 'd'), (5, 1, 1, 'a')", "DELETE FROM %sorder_lines WHERE sku = 'c'", "UPDATE %sorders SET total = total + 1 WHERE cust IN (1, 4)"},
		}
		for i, st := range steps {
			forTwins(r, []string{"", "p"}, append(append([]string{"BEGIN"}, st...), "COMMIT")...)
			compare(fmt.Sprintf("step %d", i))
		}
		// Duplicates: in one statement, across statements of a transaction,
		// and against a committed row; rolled back or failing at commit.
		for _, p := range []string{"", "p"} {
			r.Exec("BEGIN")
			r.ExpectErrno(1062, fmt.Sprintf("INSERT INTO %sorders VALUES (1, 9, 'r4', 1)", p))
			r.Exec(fmt.Sprintf("INSERT INTO %sorders VALUES (1, 9, 'r9', 1)", p))
			r.ExpectErrno(1062, fmt.Sprintf("INSERT INTO %sorders VALUES (2, 9, 'r9', 1)", p))
			r.ExpectErrno(1062, fmt.Sprintf("UPDATE %sorders SET ref = 'r5' WHERE cust = 1 AND id = 9", p))
			r.Exec(fmt.Sprintf("INSERT INTO %sorder_lines VALUES (1, 9, 1, 'q')", p))
			r.Exec("COMMIT")
		}
		compare("duplicates")
		forTwins(r, []string{"", "p"}, "BEGIN", "INSERT INTO %sorders VALUES (1, 10, 'r10', 1)", "INSERT INTO %sorder_lines VALUES (1, 10, 1, 'z')", "ROLLBACK")
		compare("rollback")
	})
}

// TestCrossKeylessIndexSnapshot: a REPEATABLE READ transaction reading a
// keyless table through its (local) indexes sees its snapshot while
// another session updates, inserts and deletes, with its own writes on
// top, and the same rows as through a full scan and as a keyed table.
func TestCrossKeylessIndexSnapshot(t *testing.T) {
	snapshotBackends(t, func(t *testing.T, ts *sqltest.Server) {
		ra, rb := ts.Pair("d")
		ra.Exec("CREATE TABLE k (a INT, b VARCHAR(20), c INT, KEY ka (a), UNIQUE KEY ub (b))")
		ra.Exec("CREATE TABLE pk (id INT AUTO_INCREMENT PRIMARY KEY, a INT, b VARCHAR(20), c INT, KEY ka (a), UNIQUE KEY ub (b))")
		for _, tb := range []string{"k", "pk"} {
			ra.Exec("INSERT INTO " + tb + " (a, b, c) VALUES (1, 'x', 10), (2, 'y', 20), (2, 'z', 21), (3, NULL, 30)")
		}
		qs := sqltest.Lines(`
			SELECT a, b, c FROM %s WHERE a = 2 ORDER BY c
			SELECT a, b, c FROM %s WHERE a >= 2 ORDER BY a DESC, c DESC LIMIT 2
			SELECT a, b, c FROM %s WHERE b = 'y'
			SELECT a, b, c FROM %s WHERE b IN ('x', 'w', 'q') ORDER BY b
			SELECT a, b, c FROM %s WHERE b IS NULL
			SELECT COUNT(*), SUM(c) FROM %s
			SELECT a, b, c FROM %s IGNORE INDEX (ka, ub) WHERE a = 2 ORDER BY c
		`)
		rows := func() map[string][]string {
			m := map[string][]string{}
			for _, q := range qs {
				got, want := ra.Rows(fmt.Sprintf(q, "k")), ra.Rows(fmt.Sprintf(q, "pk"))
				if !equalRows(got, want) {
					t.Errorf("%s:\nkeyless %q\nkeyed %q", q, got, want)
				}
				m[q] = got
			}
			return m
		}
		ra.Exec("BEGIN")
		before := rows()
		forTwins(rb, []string{"k", "pk"},
			"UPDATE %s SET a = 5, b = 'w' WHERE b = 'y'",
			"INSERT INTO %s (a, b, c) VALUES (2, 'q', 22)",
			"DELETE FROM %s WHERE b = 'x'",
			"UPDATE %s SET c = c + 100 WHERE a = 2")
		during := rows()
		for q, want := range before {
			if !equalRows(during[q], want) {
				t.Errorf("snapshot: %s:\nafter the other session's commits %q\nat the first read %q", q, during[q], want)
			}
		}
		// Own writes on the snapshot.
		forTwins(ra, []string{"k", "pk"}, "INSERT INTO %s (a, b, c) VALUES (2, 'v', 23)")
		rows()
		for _, tb := range []string{"k", "pk"} {
			ra.ExpectErrno(1062, "INSERT INTO "+tb+" (a, b, c) VALUES (9, 'q', 0)") // a current read: committed by b
		}
		ra.Exec("ROLLBACK")
		rows()
	})
}

// TestCrossReverseOwnWrites: ORDER BY ... DESC LIMIT (reverse reads on the
// stores that have them) inside a transaction with buffered inserts,
// updates and deletes at both ends of the range, on plain, salted, group
// and keyless-indexed tables, equals the same query ordered by an
// expression (no reverse read) and the plain table's answer.
func TestCrossReverseOwnWrites(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, s *sqltest.Server) {
		r := s.Use("d")
		tables := map[string]string{
			"p":  "CREATE TABLE p (g INT NOT NULL, id INT NOT NULL, v INT, PRIMARY KEY (g, id), KEY kv (v))",
			"s":  "CREATE TABLE s (g INT NOT NULL, id INT NOT NULL, v INT, PRIMARY KEY (g, id), KEY kv (v)) PARTITION BY KEY (g) PARTITIONS 3",
			"m":  "CREATE TABLE m (g INT NOT NULL, id INT NOT NULL, v INT, PRIMARY KEY (g, id), KEY kv (v)) COMMENT 'sqlgw: group=gg'",
			"m2": "CREATE TABLE m2 (g INT NOT NULL, id INT NOT NULL, v INT, PRIMARY KEY (g, id)) COMMENT 'sqlgw: group=gg'",
			"k":  "CREATE TABLE k (g INT, id INT, v INT, KEY kg (g, id), KEY kv (v))",
		}
		names := []string{"p", "s", "m", "m2", "k"}
		for _, n := range names {
			r.Exec(tables[n])
			r.InsertRows(n, 60, 30, func(i int) string { return fmt.Sprintf("(%d, %d, %d)", i%3, i, (i*7)%61) })
		}
		qs := sqltest.Lines(`
			SELECT g, id, v FROM %s WHERE g = 1 ORDER BY id DESC LIMIT 5
			SELECT g, id, v FROM %s WHERE g = 1 AND id < 50 ORDER BY id DESC LIMIT 3
			SELECT g, id, v FROM %s ORDER BY g DESC, id DESC LIMIT 7
			SELECT g, id, v FROM %s WHERE g IN (0, 2) ORDER BY g DESC, id DESC LIMIT 4
			SELECT g, id, v FROM %s WHERE v > 10 ORDER BY v DESC LIMIT 6
			SELECT g, id, v FROM %s WHERE g = 2 ORDER BY id DESC LIMIT 2 OFFSET 3
		`)
		noReverse := func(q string) string {
			q = strings.Replace(q, "ORDER BY g DESC, id DESC", "ORDER BY g+0 DESC, id+0 DESC", 1)
			q = strings.Replace(q, "ORDER BY id DESC", "ORDER BY id+0 DESC", 1)
			return strings.Replace(q, "ORDER BY v DESC", "ORDER BY v+0 DESC, g+0 DESC, id+0 DESC", 1)
		}
		compare := func(stage string) {
			t.Helper()
			for _, q := range qs {
				want := r.Rows(noReverse(fmt.Sprintf(q, "p")))
				for _, n := range names {
					got := r.Rows(fmt.Sprintf(q, n))
					if strings.Contains(q, "ORDER BY v DESC") {
						got = r.Rows(fmt.Sprintf(strings.Replace(q, "ORDER BY v DESC", "ORDER BY v DESC, g DESC, id DESC", 1), n))
					}
					if !equalRows(got, want) {
						t.Errorf("%s: %s on %s:\ngot  %q\nwant %q", stage, q, n, got, want)
					}
					if alt := r.Rows(noReverse(fmt.Sprintf(q, n))); !equalRows(alt, want) {
						t.Errorf("%s: %s on %s (no reverse read):\ngot  %q\nwant %q", stage, noReverse(q), n, alt, want)
					}
				}
			}
		}
		twinTransaction(r, compare, names, "ROLLBACK",
			"INSERT INTO %s VALUES (1, 100, 99), (1, 59, 98), (2, 1000, 3), (0, -1, 60), (3, 1, 1)",
			"DELETE FROM %s WHERE g = 1 AND id IN (55, 52, 49)",
			"UPDATE %s SET v = 100 WHERE g = 2 AND id = 5",
			"UPDATE %s SET v = -5 WHERE v = 59",
			"DELETE FROM %s WHERE g = 1 AND id = 100")
	})
}

// TestCrossReverseSnapshot: reverse reads (ORDER BY ... DESC LIMIT) of a
// REPEATABLE READ transaction see its snapshot, with its own writes on
// top, while another session commits at the end of the range the reverse
// read starts from; on plain, salted and group tables and through a
// secondary index, the same rows as the forward order reversed.
func TestCrossReverseSnapshot(t *testing.T) {
	snapshotBackends(t, func(t *testing.T, ts *sqltest.Server) {
		ra, rb := ts.Pair("d")
		ra.Script(`
			exec CREATE TABLE p (g INT NOT NULL, id INT NOT NULL, v INT, PRIMARY KEY (g, id), KEY kv (v))
			exec CREATE TABLE s (g INT NOT NULL, id INT NOT NULL, v INT, PRIMARY KEY (g, id), KEY kv (v)) PARTITION BY KEY (g) PARTITIONS 3
			exec CREATE TABLE m (g INT NOT NULL, id INT NOT NULL, v INT, PRIMARY KEY (g, id), KEY kv (v)) COMMENT 'sqlgw: group=gg'
			exec CREATE TABLE m2 (g INT NOT NULL, id INT NOT NULL, v INT, PRIMARY KEY (g, id)) COMMENT 'sqlgw: group=gg'
		`)
		names := []string{"p", "s", "m", "m2"}
		for _, n := range names {
			ra.InsertRows(n, 40, 20, func(i int) string { return fmt.Sprintf("(%d, %d, %d)", i%2, i, i) })
		}
		qs := sqltest.Lines(`
			SELECT g, id, v FROM %s WHERE g = 1 ORDER BY id DESC LIMIT 4
			SELECT g, id, v FROM %s ORDER BY g DESC, id DESC LIMIT 5
			SELECT g, id, v FROM %s WHERE v > 30 ORDER BY v DESC LIMIT 3
			SELECT m.id, m2.v FROM m JOIN m2 ON m2.g = m.g AND m2.id = m.id WHERE m.g = 1 AND '%s' = '%[1]s' ORDER BY m.id DESC LIMIT 3
		`)
		check := func(stage string, want map[string][]string) map[string][]string {
			t.Helper()
			return snapshotReads(t, stage, qs, names, want, func(q string) bool { return q != qs[3] }, func(q, n string) []string {
				rows := ra.Rows(fmt.Sprintf(q, n))
				fw := strings.NewReplacer(" DESC", "", "ORDER BY", "ORDER BY").Replace(fmt.Sprintf(q, n))
				fw = fw[:strings.LastIndex(fw, " LIMIT")]
				all := ra.Rows(fw)
				var rev []string
				for i := len(all) - 1; i >= 0 && len(rev) < len(rows); i-- {
					rev = append(rev, all[i])
				}
				if !equalRows(rows, rev) {
					t.Errorf("%s: %s on %s:\nreverse %q\nforward reversed %q", stage, q, n, rows, rev)
				}
				return rows
			})
		}
		ra.Exec("BEGIN")
		first := check("first read", nil)
		forTwins(rb, names,
			"INSERT INTO %s VALUES (1, 101, 101), (1, 103, 103), (2, 1, 200)",
			"DELETE FROM %s WHERE g = 1 AND id = 39",
			"UPDATE %s SET v = 500 WHERE g = 0 AND id = 2")
		check("snapshot", first)
		forTwins(ra, names, "INSERT INTO %s VALUES (1, 102, 102), (1, -1, -1)", "DELETE FROM %s WHERE g = 1 AND id = 37")
		check("own writes", nil)
		ra.Exec("ROLLBACK")
		check("after", nil)
	})
}

// TestCrossGlobalIndexSnapshot: reads through global (unique and
// non-unique) indexes of plain, salted and group tables in a REPEATABLE
// READ transaction see the snapshot while another session moves the
// indexed values, the same rows as a scan that ignores the indexes.
func TestCrossGlobalIndexSnapshot(t *testing.T) {
	snapshotBackends(t, func(t *testing.T, ts *sqltest.Server) {
		ra, rb := ts.Pair("d")
		ra.Script(`
			exec CREATE TABLE p (g INT NOT NULL, id INT NOT NULL, u VARCHAR(10), v INT, PRIMARY KEY (g, id), UNIQUE KEY ku (u), KEY kv (v))
			exec CREATE TABLE s (g INT NOT NULL, id INT NOT NULL, u VARCHAR(10), v INT, PRIMARY KEY (g, id), UNIQUE KEY ku (u), KEY kv (v)) PARTITION BY KEY (g) PARTITIONS 3
			exec CREATE TABLE m (g INT NOT NULL, id INT NOT NULL, u VARCHAR(10), v INT, PRIMARY KEY (g, id), UNIQUE KEY ku (u), KEY kv (v)) COMMENT 'sqlgw: group=gg'
			exec CREATE TABLE m2 (g INT NOT NULL, id INT NOT NULL, w INT, PRIMARY KEY (g, id)) COMMENT 'sqlgw: group=gg'
		`)
		names := []string{"p", "s", "m"}
		for _, n := range names {
			ra.InsertRows(n, 20, 20, func(i int) string { return fmt.Sprintf("(%d, %d, 'u%d', %d)", i%4, i, i, i%5) })
		}
		ra.InsertRows("m2", 20, 20, func(i int) string { return fmt.Sprintf("(%d, %d, %d)", i%4, i, i) })
		qs := sqltest.Lines(`
			SELECT g, id, u, v FROM %s %s WHERE u = 'u3'
			SELECT g, id, u, v FROM %s %s WHERE u IN ('u1', 'u7', 'x') ORDER BY u
			SELECT g, id, u, v FROM %s %s WHERE v = 2 ORDER BY g, id
			SELECT g, id, u, v FROM %s %s WHERE v >= 3 ORDER BY v DESC, g, id LIMIT 4
			SELECT COUNT(*) FROM %s %s WHERE u LIKE 'u1%%'
		`)
		check := func(stage string, want map[string][]string) map[string][]string {
			t.Helper()
			got := snapshotReads(t, stage, qs, names, want, func(string) bool { return true }, func(q, n string) []string {
				rows := ra.Rows(fmt.Sprintf(q, n, ""))
				scan := ra.Rows(fmt.Sprintf(q, n, "IGNORE INDEX (ku, kv)"))
				if !equalRows(rows, scan) {
					t.Errorf("%s: %s on %s:\nindex %q\nscan  %q", stage, q, n, rows, scan)
				}
				return rows
			})
			j := ra.Rows("SELECT m.u, m2.w FROM m JOIN m2 ON m2.g = m.g AND m2.id = m.id WHERE m.g = 3 ORDER BY m.u")
			jp := ra.Rows("SELECT p.u, m2.w FROM p JOIN m2 ON m2.g = p.g AND m2.id = p.id WHERE p.g = 3 ORDER BY p.u")
			if !equalRows(j, jp) {
				t.Errorf("%s: group join %q, plain %q", stage, j, jp)
			}
			return got
		}
		ra.Exec("BEGIN")
		first := check("first read", nil)
		forTwins(rb, names,
			"BEGIN",
			"UPDATE %s SET u = 'tmp' WHERE u = 'u3'",
			"UPDATE %s SET u = 'u3', v = 4 WHERE u = 'u7'",
			"UPDATE %s SET u = 'u7' WHERE u = 'tmp'",
			"COMMIT",
			"DELETE FROM %s WHERE u = 'u1'",
			"INSERT INTO %s VALUES (3, 100, 'u1', 2)",
			"UPDATE %s SET v = 3 WHERE v = 2")
		rb.Exec("UPDATE m2 SET w = w + 1000 WHERE g = 3")
		check("snapshot", first)
		for _, n := range names {
			ra.Exec("UPDATE " + n + " SET v = 2 WHERE u = 'u11'")
			ra.ExpectErrno(1062, "INSERT INTO "+n+" VALUES (0, 200, 'u1', 0)") // committed by b: a current read
		}
		check("own writes", nil)
		ra.Exec("ROLLBACK")
		check("after", nil)
	})
}

// TestCrossGroupMultiStatement: a multi-statement query's statements each
// read the group's partition anew: a join after the query's own write sees
// it.
func TestCrossGroupMultiStatement(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, s *sqltest.Server) {
		s.Runner().Script(groupSchema)
		db := s.Open("d?multiStatements=true")
		c, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		r := sqltest.NewRunner(t, c)
		for _, p := range []string{"", "p"} {
			r.Exec("INSERT INTO " + p + "orders VALUES (1, 1, 10)")
			r.Exec("INSERT INTO " + p + "order_lines VALUES (1, 1, 1, 'a')")
			join := "SELECT COUNT(*) FROM " + p + "orders o JOIN " + p + "order_lines l ON l.cust = o.cust AND l.id = o.id WHERE o.cust = 1"
			for _, tx := range []bool{false, true} {
				if tx {
					r.Exec("BEGIN")
				}
				before := r.Rows(join)[0]
				sets := r.ResultSets(join + "; INSERT INTO " + p + "order_lines SELECT cust, id, MAX(line) + 1, 'x' FROM " + p + "order_lines WHERE cust = 1 GROUP BY cust, id; " + join)
				if len(sets) != 2 || len(sets[0]) != 1 || len(sets[1]) != 1 || sets[0][0] != before || sets[1][0] == before {
					t.Errorf("%q (transaction %v): result sets %q, the count before %s", p, tx, sets, before)
				}
				if tx {
					r.Exec("COMMIT")
				}
			}
		}
	})
}

// TestCrossGroupJoinOwnWrites: joins of group members (answered from one
// partition read) inside a transaction overlay its buffered writes to
// both members, like the plain tables.
func TestCrossGroupJoinOwnWrites(t *testing.T) {
	runTwinCase(t, twinCase{
		names:  []string{"", "p"},
		schema: groupSchema,
		seed: `
			INSERT INTO %sorders VALUES (1, 1, 10), (1, 2, 20), (1, 3, 30), (2, 1, 40)
			INSERT INTO %sorder_lines VALUES (1, 1, 1, 'a'), (1, 1, 2, 'b'), (1, 2, 1, 'c'), (2, 1, 1, 'e')
		`,
		qs: `
			SELECT o.id, o.total, l.line, l.sku FROM %[1]sorders o JOIN %[1]sorder_lines l ON l.cust = o.cust AND l.id = o.id WHERE o.cust = 1 ORDER BY o.id, l.line
			SELECT o.id, COUNT(l.line) FROM %[1]sorders o LEFT JOIN %[1]sorder_lines l ON l.cust = o.cust AND l.id = o.id WHERE o.cust = 1 GROUP BY o.id ORDER BY o.id
			SELECT o.id FROM %[1]sorders o WHERE o.cust = 1 AND EXISTS (SELECT 1 FROM %[1]sorder_lines l WHERE l.cust = o.cust AND l.id = o.id AND l.sku > 'a') ORDER BY o.id
			SELECT o.id FROM %[1]sorders o WHERE o.cust = 1 AND o.id NOT IN (SELECT l.id FROM %[1]sorder_lines l WHERE l.cust = 1) ORDER BY o.id
			SELECT l.sku, o.total FROM %[1]sorder_lines l JOIN %[1]sorders o ON o.cust = l.cust AND o.id = l.id WHERE l.cust = 1 AND l.line = 1 ORDER BY l.sku
		`,
		writes: `
			INSERT INTO %sorders VALUES (1, 4, 40)
			INSERT INTO %sorder_lines VALUES (1, 4, 1, 'z'), (1, 3, 1, 'y')
			DELETE FROM %sorder_lines WHERE cust = 1 AND id = 1 AND line = 1
			UPDATE %sorders SET total = total * 2 WHERE cust = 1 AND id = 2
			DELETE FROM %sorders WHERE cust = 1 AND id = 1
		`,
	})
}

// TestCrossGroupMixedSalting: a member salted otherwise than its group is
// refused (1525); a group of three salted members answers three-way joins
// and DESC LIMIT reads, in and out of a transaction, like plain tables.
func TestCrossGroupMixedSalting(t *testing.T) {
	runTwinCase(t, twinCase{
		names: []string{"", "p"},
		use:   true,
		setup: func(t *testing.T, r *sqltest.Runner) {
			for _, p := range []string{"", "p"} {
				group, s4, s3 := "", "", ""
				if p == "" {
					group, s4, s3 = " COMMENT 'sqlgw: group=mix'", " PARTITION BY KEY (c) PARTITIONS 4", " PARTITION BY KEY (c) PARTITIONS 3"
				}
				r.Exec("CREATE TABLE " + p + "a (c INT NOT NULL, id INT NOT NULL, v INT, PRIMARY KEY (c, id))" + group + s4)
				if p == "" {
					// Members salted otherwise than the group are refused.
					r.ExpectErrno(1525, "CREATE TABLE b (c INT NOT NULL, id INT NOT NULL, w INT, PRIMARY KEY (c, id))"+group+s3)
					r.ExpectErrno(1525, "CREATE TABLE n (c INT NOT NULL, id INT NOT NULL, x INT, PRIMARY KEY (c, id))"+group)
				}
				r.Exec("CREATE TABLE " + p + "b (c INT NOT NULL, id INT NOT NULL, w INT, PRIMARY KEY (c, id))" + group + s4)
				r.Exec("CREATE TABLE " + p + "n (c INT NOT NULL, id INT NOT NULL, x INT, PRIMARY KEY (c, id))" + group + s4)
				for _, tb := range []string{"a", "b", "n"} {
					r.InsertRows(p+tb, 30, 30, func(i int) string { return fmt.Sprintf("(%d, %d, %d)", i%5, i, i*3%7) })
				}
			}
		},
		qs: `
			SELECT a.id, a.v, b.w, n.x FROM %[1]sa a JOIN %[1]sb b ON b.c = a.c AND b.id = a.id JOIN %[1]sn n ON n.c = a.c AND n.id = a.id WHERE a.c = 2 ORDER BY a.id DESC LIMIT 4
			SELECT a.c, a.id, b.w FROM %[1]sa a LEFT JOIN %[1]sb b ON b.c = a.c AND b.id = a.id ORDER BY a.c DESC, a.id DESC LIMIT 6
			SELECT c, id FROM %[1]sb WHERE c IN (1, 3) ORDER BY c DESC, id DESC LIMIT 3
			SELECT n.c, COUNT(*), SUM(a.v) FROM %[1]sn n JOIN %[1]sa a ON a.c = n.c AND a.id = n.id GROUP BY n.c ORDER BY n.c
		`,
		writes: `
			INSERT INTO %sa VALUES (2, 100, 1), (3, 101, 2)
			INSERT INTO %sb VALUES (2, 100, 5)
			INSERT INTO %sn VALUES (2, 100, 6)
			DELETE FROM %sb WHERE c = 2 AND id = 27
			UPDATE %sn SET x = 100 WHERE c = 2
		`,
	})
}

// TestCrossAttachedIndexTransaction: an attached table's (global) indexes
// written inside transactions (one partition, several, a rolled back one,
// an indexed value moved and taken back) answer lookups like a scan that
// ignores them, and CHECK TABLE finds them whole.
func TestCrossAttachedIndexTransaction(t *testing.T) {
	forEachAttached(t, func(t *testing.T, f *attachedFixture, c *sqltest.Runner) {
		cust := f.cust
		c.Exec("ALTER TABLE " + cust + " MODIFY Name VARCHAR(20)")
		c.Exec("CREATE INDEX by_name ON " + cust + " (Name)")
		c.Exec("CREATE INDEX by_age ON " + cust + " (Age)")
		qs := sqltest.Lines(`
			SELECT PartitionKey, RowKey FROM %s %s WHERE Name = 'Bob'
			SELECT PartitionKey, RowKey FROM %s %s WHERE Name IN ('Ann', 'Cy', 'Dee', 'Robert') ORDER BY Name
			SELECT Name FROM %s %s WHERE Age BETWEEN 20 AND 60 ORDER BY Name
			SELECT COUNT(*) FROM %s %s WHERE Name IS NULL
		`)
		compare := func(stage string) {
			t.Helper()
			for _, q := range qs {
				got := c.Rows(fmt.Sprintf(q, cust, ""))
				want := c.Rows(fmt.Sprintf(q, cust, "IGNORE INDEX (by_name, by_age)"))
				if !equalRows(got, want) {
					t.Errorf("%s: %s:\nindex %q\nscan  %q", stage, q, got, want)
				}
			}
		}
		compare("start")
		c.Exec("BEGIN")
		c.Exec("INSERT INTO " + cust + " (PartitionKey, RowKey, Name, Age) VALUES ('east', 'c3', 'Cy', 33), ('north', 'n1', 'Dee', 44)")
		c.Exec("UPDATE " + cust + " SET Name = 'Robert', Age = 41 WHERE PartitionKey = 'east' AND RowKey = 'c2'")
		compare("in transaction")
		c.Exec("COMMIT")
		compare("committed")
		c.Exec("BEGIN")
		c.Exec("UPDATE " + cust + " SET Name = 'Bob' WHERE Name = 'Robert'")
		c.Exec("DELETE FROM " + cust + " WHERE Name = 'Dee'")
		c.Exec("INSERT INTO " + cust + " (PartitionKey, RowKey, Name, Age) VALUES ('west', 'w9', 'Robert', 50)")
		compare("in transaction 2")
		c.Exec("ROLLBACK")
		compare("rolled back")
		c.Exec("BEGIN")
		c.Exec("UPDATE " + cust + " SET Name = 'tmp' WHERE Name = 'Robert'")
		c.Exec("UPDATE " + cust + " SET Name = 'Robert' WHERE Name = 'tmp'")
		c.Exec("UPDATE " + cust + " SET Age = Age + 1")
		c.Exec("COMMIT")
		compare("moved and back")
		c.ExpectRows("CHECK TABLE "+cust, "azure."+cust+"\tcheck\tstatus\tOK")
	})
}

// TestCrossGroupFirstCommitterWins: a REPEATABLE READ transaction that
// joins group members and writes a row another session changed after its
// snapshot fails with 1213 (first committer wins), and a write to a row
// nobody changed commits, exactly as with plain tables.
func TestCrossGroupFirstCommitterWins(t *testing.T) {
	snapshotBackends(t, func(t *testing.T, ts *sqltest.Server) {
		a, b := ts.Session("d", strings.ReplaceAll(groupSchema[strings.Index(groupSchema, "exec CREATE TABLE"):], "exec ", "")), ts.Conn()
		ra, rb := sqltest.NewRunner(t, a), sqltest.NewRunner(t, b)
		rb.Exec("USE d")
		forTwins(ra, []string{"", "p"}, "INSERT INTO %sorders VALUES (1, 1, 10), (1, 2, 20)", "INSERT INTO %sorder_lines VALUES (1, 1, 1, 'a'), (1, 2, 1, 'b')")
		outcome := map[string][]string{}
		for _, p := range []string{"p", ""} {
			var out []string
			note := func(err error) {
				if err != nil {
					out = append(out, strings.ReplaceAll(err.Error(), "table "+p+"orders", "table orders"))
				} else {
					out = append(out, "ok")
				}
			}
			join := "UPDATE " + p + "orders o JOIN " + p + "order_lines l ON l.cust = o.cust AND l.id = o.id SET o.total = o.total + 1 WHERE o.cust = 1 AND l.sku = 'a'"
			ra.Exec("BEGIN")
			ra.Rows("SELECT COUNT(*) FROM " + p + "orders o JOIN " + p + "order_lines l ON l.cust = o.cust AND l.id = o.id WHERE o.cust = 1")
			rb.Exec("UPDATE " + p + "order_lines SET sku = 'z' WHERE cust = 1 AND id = 1")
			note(ra.Try(join))
			note(ra.Try("COMMIT"))
			ra.Exec("ROLLBACK")
			ra.Exec("BEGIN")
			ra.Rows("SELECT COUNT(*) FROM " + p + "orders o JOIN " + p + "order_lines l ON l.cust = o.cust AND l.id = o.id WHERE o.cust = 1")
			rb.Exec("UPDATE " + p + "orders SET total = 0 WHERE cust = 1 AND id = 2")
			note(ra.Try("UPDATE " + p + "orders o JOIN " + p + "order_lines l ON l.cust = o.cust AND l.id = o.id SET o.total = o.total + l.line WHERE o.cust = 1"))
			note(ra.Try("COMMIT"))
			ra.Exec("ROLLBACK")
			out = append(out, ra.Rows("SELECT o.id, o.total, l.sku FROM "+p+"orders o JOIN "+p+"order_lines l ON l.cust = o.cust AND l.id = o.id ORDER BY o.id")...)
			outcome[p] = out
		}
		if !equalRows(outcome[""], outcome["p"]) {
			t.Errorf("group %q\nplain %q", outcome[""], outcome["p"])
		}
	})
}
