package sqlgw_test

import (
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// TestDupEntryText: every 1062 has MySQL 8.0's text, "Duplicate entry
// 'v' for key 't.k'": the key named after its table (8.0.19 on), the value
// as MySQL writes it (a DATETIME as text, a DECIMAL at its scale, a key of
// several columns joined with '-'), cut to 64 bytes; over the text and the
// prepared protocol, in autocommit and in a transaction, for INSERT,
// UPDATE, INSERT IGNORE's warning and a unique index built over rows.
func TestDupEntryText(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("dk", `
			CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(100), a INT, b VARCHAR(10), UNIQUE KEY uk_name (name), UNIQUE KEY uk_ab (a, b))
			CREATE TABLE m (a INT, b VARCHAR(5), c INT, PRIMARY KEY (a, b))
			CREATE TABLE ty (d DATETIME PRIMARY KEY, x DECIMAL(6,2), UNIQUE KEY ux (x))
			CREATE TABLE o (a INT, b INT)
			INSERT INTO t VALUES (1, 'x', 1, 'p'), (4, 'w', 2, 'q')
			INSERT INTO m VALUES (1, 'x', 1)
			INSERT INTO ty VALUES ('2020-01-02 03:04:05', 1.5)
			INSERT INTO o VALUES (1, 1), (1, 2)`)
		long := strings.Repeat("a", 70)
		r := sqltest.NewRunner(t, c)
		r.Exec("INSERT INTO t VALUES (5, '" + long + "', 9, 'r')")
		for _, q := range []struct {
			sql  string
			args []any
			want string
		}{
			{"INSERT INTO t VALUES (1, 'y', 2, 'p')", nil, "Duplicate entry '1' for key 't.PRIMARY'"},
			{"INSERT INTO t VALUES (?, ?, ?, ?)", []any{1, "y", 2, "p"}, "Duplicate entry '1' for key 't.PRIMARY'"},
			{"INSERT INTO t VALUES (2, 'x', 2, 'p')", nil, "Duplicate entry 'x' for key 't.uk_name'"},
			{"INSERT INTO t VALUES (?, ?, ?, ?)", []any{2, "x", 2, "p"}, "Duplicate entry 'x' for key 't.uk_name'"},
			{"INSERT INTO t VALUES (3, 'z', 1, 'p')", nil, "Duplicate entry '1-p' for key 't.uk_ab'"},
			{"UPDATE t SET name = 'x' WHERE id = 4", nil, "Duplicate entry 'x' for key 't.uk_name'"},
			{"UPDATE t SET name = ? WHERE id = ?", []any{"x", 4}, "Duplicate entry 'x' for key 't.uk_name'"},
			{"UPDATE t SET id = 1 WHERE id = 4", nil, "Duplicate entry '1' for key 't.PRIMARY'"},
			{"UPDATE t SET a = 1, b = 'p' WHERE id = 4", nil, "Duplicate entry '1-p' for key 't.uk_ab'"},
			{"INSERT INTO t VALUES (6, '" + long + "', 10, 'r')", nil, "Duplicate entry '" + long[:64] + "' for key 't.uk_name'"},
			{"INSERT INTO m VALUES (1, 'x', 2)", nil, "Duplicate entry '1-x' for key 'm.PRIMARY'"},
			{"INSERT INTO ty VALUES ('2020-01-02 03:04:05', 2.5)", nil, "Duplicate entry '2020-01-02 03:04:05' for key 'ty.PRIMARY'"},
			{"INSERT INTO ty VALUES ('2021-01-02 03:04:05', 1.5)", nil, "Duplicate entry '1.50' for key 'ty.ux'"},
			{"CREATE UNIQUE INDEX uo ON o (a)", nil, "Duplicate entry '1' for key 'o.uo'"},
			{"ALTER TABLE o ADD UNIQUE KEY uo2 (a)", nil, "Duplicate entry '1' for key 'o.uo2'"},
		} {
			r.ExpectMessage(1062, q.want, q.sql, q.args...)
		}
		// In a transaction: found by the statement, and at COMMIT.
		r.Exec("BEGIN")
		r.ExpectMessage(1062, "Duplicate entry 'x' for key 't.uk_name'", "INSERT INTO t VALUES (20, 'x', 20, 'p')")
		r.Exec("INSERT INTO t VALUES (21, 'n1', 21, 'p')")
		r.ExpectMessage(1062, "Duplicate entry 'n1' for key 't.uk_name'", "INSERT INTO t VALUES (22, 'n1', 22, 'p')")
		r.Exec("COMMIT")
		// INSERT IGNORE's warning has the same text.
		if n := r.Affected("INSERT IGNORE INTO t VALUES (7, 'x', 11, 'r')"); n != 0 {
			t.Errorf("INSERT IGNORE of a duplicate: %d rows, want 0", n)
		}
		r.ExpectRows("SHOW WARNINGS", "Warning\t1062\tDuplicate entry 'x' for key 't.uk_name'")
	})
}

// TestOKCounts: the affected-row counts of DDL and of DELETE without
// WHERE are MySQL's, and ROW_COUNT() after any statement is what its OK
// packet said (-1 after a result set), over the text and the prepared
// protocol. A DELETE without WHERE (which go-mysql-server turns into a
// TRUNCATE) counts its rows and is rolled back with its transaction.
func TestOKCounts(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("oc", `
			CREATE TABLE del (a INT PRIMARY KEY)
			INSERT INTO del VALUES (1), (2), (3)`)
		r := sqltest.NewRunner(t, c)
		for _, q := range []struct {
			sql      string
			args     []any
			affected int64
			rowCount string
		}{
			{"CREATE DATABASE oc1", nil, 1, "1"},
			{"DROP DATABASE oc1", nil, 1, "1"}, // go-mysql-server's 1; MySQL says 0 (docs/compatibility.md)
			{"CREATE DATABASE oc2", nil, 1, "1"},
			{"CREATE TABLE oc2.a (x INT)", nil, 0, "0"},
			{"CREATE TABLE oc2.b (x INT)", nil, 0, "0"},
			{"INSERT INTO oc2.b VALUES (1), (2)", nil, 2, "2"},
			{"DROP DATABASE oc2", nil, 1, "1"}, // MySQL: 2, the tables dropped
			{"SET @a = 1", nil, 0, "0"},
			{"USE oc", nil, 0, "0"},
			{"SET @a = ?", []any{2}, 0, "0"},
			{"CREATE INDEX ia ON del (a)", nil, 0, "0"},
			{"BEGIN", nil, 0, "0"},
			{"DELETE FROM del", nil, 3, "3"},
			{"ROLLBACK", nil, 0, "0"},
			{"START TRANSACTION", nil, 0, "0"},
			{"COMMIT", nil, 0, "0"},
			{"DELETE FROM del", nil, 3, "3"},
			{"INSERT INTO del VALUES (?), (?)", []any{1, 2}, 2, "2"},
			{"TRUNCATE TABLE del", nil, 0, "0"},
			{"CREATE TABLE d2 (a INT)", nil, 0, "0"},
			{"DROP TABLE d2", nil, 0, "0"},
		} {
			if n := r.Affected(q.sql, q.args...); n != q.affected {
				t.Errorf("%s: %d rows affected, want %d", q.sql, n, q.affected)
			}
			if got := r.Rows("SELECT ROW_COUNT()"); len(got) != 1 || got[0] != q.rowCount {
				t.Errorf("ROW_COUNT() after %s: %v, want %s", q.sql, got, q.rowCount)
			}
			if q.sql == "ROLLBACK" {
				r.ExpectRows("SELECT COUNT(*) FROM del", "3") // the DELETE is undone
			}
		}
		r.ExpectRows("SELECT COUNT(*) FROM del", "0")
		r.ExpectRows("SELECT 1", "1")
		r.ExpectRows("SELECT ROW_COUNT()", "-1")
	})
}
