package sqlgw_test

import (
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// A primary key under MySQL 8's default collation: 'a' and 'A' are one key
// (1062), lookups find the row whatever its case, and rows sort in collation
// order, as on MySQL.
func TestCaseInsensitiveKey(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := sqltest.NewRunner(t, ts.Session("ci",
			"CREATE TABLE u (s VARCHAR(20) COLLATE utf8mb4_0900_ai_ci PRIMARY KEY, n INT)",
			"INSERT INTO u VALUES ('apple', 1), ('Banana', 2), ('cherry', 3)"))
		c.Script(`
			error 1062 INSERT INTO u VALUES ('APPLE', 9)
			query SELECT s, n FROM u WHERE s = 'BANANA'
			= Banana | 2
			query SELECT s FROM u ORDER BY s
			= apple
			= Banana
			= cherry
			query SELECT s FROM u WHERE s > 'b' ORDER BY s
			= Banana
			= cherry
		`)
	})
}

// IN and NOT IN on a case-insensitive column compare under the column's
// collation, like the equivalent OR of equalities (go-mysql-server's
// HashInTuple hashes under the literal's binary collation).
func TestCollatedIn(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		sqltest.NewRunner(t, ts.Session("cin")).Script(`
			exec CREATE TABLE p (id INT NOT NULL PRIMARY KEY, name VARCHAR(20) COLLATE utf8mb4_general_ci, tag VARCHAR(20) COLLATE utf8mb4_bin)
			exec INSERT INTO p VALUES (1, 'ann', 'x'), (2, 'Bob', 'X'), (3, 'CLARA', 'y'), (4, 'dave', NULL), (5, NULL, 'Y')
			query SELECT id FROM p WHERE name IN ('clara', 'DAVE') ORDER BY id
			= 3
			= 4
			query SELECT id FROM p WHERE name NOT IN ('ANN', 'bob') ORDER BY id
			= 3
			= 4
			query SELECT id FROM p WHERE name NOT IN ('ANN', NULL) ORDER BY id
			query SELECT id FROM p WHERE name IN ('clara', 'DAVE') ORDER BY id LIMIT 1
			= 3
			# A binary collation stays case-sensitive.
			query SELECT id FROM p WHERE tag IN ('x', 'Y') ORDER BY id
			= 1
			= 5
			# go-mysql-server's fast paths (a plain single-table SELECT, UPDATE,
			# DELETE) skip sqlgw's analyzer rules: the rewrite must reach them
			# too, or these select, change and delete the wrong rows.
			query SELECT id FROM p WHERE name IN ('clara', 'DAVE')
			= 3
			= 4
			affected 2 UPDATE p SET tag = 'u' WHERE name IN ('ANN', 'bob')
			affected 2 DELETE FROM p WHERE name NOT IN ('ANN', 'bob')
			query SELECT id, tag FROM p ORDER BY id
			= 1 | u
			= 2 | u
			= 5 | Y
		`)
	})
}

// A DATE column compared with a YYYYMMDD number compares as dates, as on
// MySQL (20240102 is '2024-01-02').
func TestDateVsNumber(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		sqltest.NewRunner(t, ts.Session("dn")).Script(`
			exec CREATE TABLE t (id INT NOT NULL PRIMARY KEY, dt DATE)
			exec INSERT INTO t VALUES (1, '2024-01-01'), (2, '2024-01-02'), (3, '2024-02-01'), (4, NULL), (5, '2023-12-31')
			query SELECT id FROM t WHERE dt < 20240102 ORDER BY id
			= 1
			= 5
			query SELECT id FROM t WHERE dt = 20240201 ORDER BY id
			= 3
			query SELECT id FROM t WHERE 20240201 <= dt ORDER BY id
			= 3
			query SELECT id FROM t WHERE dt BETWEEN 20231231 AND 20240101 ORDER BY id
			= 1
			= 5
			query SELECT id FROM t WHERE dt >= 20240102 ORDER BY id LIMIT 1
			= 2
			# The fast paths (see TestCollatedIn).
			query SELECT id FROM t WHERE dt = 20240201
			= 3
			affected 2 UPDATE t SET dt = '2025-01-01' WHERE dt < 20240102
			affected 1 DELETE FROM t WHERE dt = 20240102
			query SELECT id FROM t ORDER BY id
			= 1
			= 3
			= 4
			= 5
		`)
	})
}
