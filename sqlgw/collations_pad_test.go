package sqlgw_test

import (
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// Key columns in the PAD SPACE case-insensitive collations ORMs create
// (utf8mb4_unicode_ci: Doctrine, Laravel; utf8mb4_general_ci: MariaDB's
// default; utf8_unicode_ci: Doctrine DBAL's table default) work as under
// utf8mb4_0900_ai_ci: 'a' and 'A' are one key (1062), lookups ignore case,
// rows sort in collation order. As in MySQL, trailing spaces are padding:
// 'a' and 'A  ' are one key (1062) and 'a  ' finds 'a'; a tab is not
// padding.
func TestPadSpaceCaseInsensitiveKey(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := sqltest.NewRunner(t, ts.Session("padci",
			"CREATE TABLE u (s VARCHAR(20) COLLATE utf8mb4_unicode_ci PRIMARY KEY, n INT)",
			"INSERT INTO u VALUES ('apple', 1), ('Banana', 2), ('cherry', 3), ('a', 4), ('é', 5)"))
		c.Script(`
			error 1062 INSERT INTO u VALUES ('APPLE', 9)
			error 1062 INSERT INTO u VALUES ('A', 9)
			error 1062 INSERT INTO u VALUES ('E', 9)
			error 1062 INSERT INTO u VALUES ('b', 9), ('B', 10)
			error 1062 INSERT INTO u VALUES ('a ', 6)
			error 1062 INSERT INTO u VALUES ('A  ', 6)
			query SELECT s, n FROM u WHERE s = 'BANANA'
			= Banana | 2
			query SELECT s FROM u WHERE s = 'e'
			= é
			query SELECT n FROM u WHERE s = 'a  '
			= 4
			query SELECT n FROM u WHERE s IN ('APPLE ', 'cherry   ', 'x') ORDER BY n
			= 1
			= 3
			query SELECT n FROM u WHERE s <=> 'Banana ' AND s >= 'BANANA   '
			= 2
		`)
		c.Exec("INSERT INTO u VALUES (?, 7)", "a\t")
		// A tab is not padding: 'a\t' is a key of its own. (MySQL orders it
		// below 'a', as 'a' padded is 'a '; sqlgw above: docs/compatibility.md.)
		c.Script(`
			query SELECT n FROM u WHERE s = 'a'
			= 4
			query SELECT n FROM u ORDER BY s
			= 4
			= 7
			= 1
			= 2
			= 3
			= 5
			query SELECT n FROM u ORDER BY s DESC
			= 5
			= 3
			= 2
			= 1
			= 7
			= 4
			query SELECT s FROM u WHERE s > 'b' ORDER BY s
			= Banana
			= cherry
			= é
			query SELECT s FROM u WHERE s BETWEEN 'APPLE' AND 'CHERRY' ORDER BY s
			= apple
			= Banana
			= cherry
			query SELECT n FROM u WHERE s < 'apple ' ORDER BY s
			= 4
			= 7
			query SELECT n FROM u WHERE s = 'A'
			= 4
			# REPLACE and ON DUPLICATE KEY UPDATE find the row whatever the case.
			exec INSERT INTO u VALUES ('CHERRY', 30) ON DUPLICATE KEY UPDATE n = VALUES(n)
			query SELECT s, n FROM u WHERE s = 'cherry'
			= cherry | 30
			exec REPLACE INTO u VALUES ('BANANA', 20)
			query SELECT s, n FROM u WHERE s = 'banana'
			= BANANA | 20
			# (UPDATE u SET s = 'APPLE' WHERE s = 'apple' changes nothing: the
			# engine finds the new row equal to the old under the collation,
			# rowexec/update.go; MySQL would store 'APPLE'.)
			affected 1 DELETE FROM u WHERE s = 'APPLE '
			query SELECT COUNT(*) FROM u
			= 5
		`)
	})
}

// A unique and a plain secondary index in utf8mb4_general_ci, and a table
// that takes utf8_unicode_ci from its default (as Doctrine DBAL creates
// them).
func TestPadSpaceCaseInsensitiveIndex(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		sqltest.NewRunner(t, ts.Session("padix")).Script(`
			exec CREATE TABLE p (id INT PRIMARY KEY, email VARCHAR(40) COLLATE utf8mb4_general_ci, city VARCHAR(20) COLLATE utf8mb4_general_ci, UNIQUE KEY by_email (email), KEY by_city (city))
			exec INSERT INTO p VALUES (1, 'ann@x', 'Paris'), (2, 'bob@x', 'oslo'), (3, 'cid@x', 'PARIS'), (4, NULL, NULL), (5, NULL, 'Rome')
			error 1062 INSERT INTO p VALUES (6, 'ANN@X', 'x')
			error 1062 UPDATE p SET email = 'Bob@X' WHERE id = 3
			affected 1 UPDATE p SET email = 'dan@x' WHERE id = 2
			exec INSERT INTO p VALUES (6, 'BOB@X', 'Oslo')
			query SELECT id FROM p WHERE email = 'bob@x'
			= 6
			query SELECT id FROM p WHERE email = 'DAN@X'
			= 2
			query SELECT id FROM p WHERE city = 'paris' ORDER BY id
			= 1
			= 3
			query SELECT id FROM p WHERE city > 'OSLO' ORDER BY city, id
			= 1
			= 3
			= 5
			query SELECT id FROM p FORCE INDEX (by_city) WHERE city >= 'P' ORDER BY id
			= 1
			= 3
			= 5
			query SELECT city FROM p WHERE city IS NOT NULL ORDER BY city, id
			= oslo
			= Oslo
			= Paris
			= PARIS
			= Rome
			exec CREATE TABLE d (k VARCHAR(16) NOT NULL PRIMARY KEY, v INT) DEFAULT CHARACTER SET utf8 COLLATE utf8_unicode_ci
			exec INSERT INTO d VALUES ('Abc', 1), ('abd', 2)
			error 1062 INSERT INTO d VALUES ('ABC', 3)
			query SELECT k, v FROM d WHERE k = 'abc'
			= Abc | 1
			query SELECT k FROM d ORDER BY k DESC
			= abd
			= Abc
			exec CREATE INDEX by_v ON d (v)
			exec CREATE TABLE e (a VARCHAR(10) COLLATE utf8mb3_general_ci NOT NULL, b VARCHAR(10) COLLATE latin1_swedish_ci NOT NULL, PRIMARY KEY (a, b))
			exec INSERT INTO e VALUES ('x', 'Y'), ('X', 'z')
			error 1062 INSERT INTO e VALUES ('X', 'y')
			query SELECT a, b FROM e ORDER BY a, b
			= x | Y
			= X | z
		`)
	})
}

// Trailing spaces under PAD SPACE collations, keyed and not, as MySQL 8.0
// compares them: utf8mb4_bin primary key, utf8mb4_general_ci unique index,
// latin1_swedish_ci plain index, a scan (IGNORE INDEX), and LIKE, which
// MySQL does not pad.
func TestPadSpaceTrailingSpaces(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		sqltest.NewRunner(t, ts.Session("padtrail")).Script(`
			exec CREATE TABLE p1 (id VARCHAR(10) COLLATE utf8mb4_bin PRIMARY KEY, v INT)
			exec INSERT INTO p1 VALUES ('a', 1)
			error 1062 INSERT INTO p1 VALUES ('a ', 2)
			query SELECT id, v, LENGTH(id) FROM p1 WHERE id = 'a '
			= a | 1 | 1
			query SELECT v FROM p1 WHERE id IN ('b', 'a  ')
			= 1
			exec CREATE TABLE p2 (id INT PRIMARY KEY, s VARCHAR(10) COLLATE utf8mb4_general_ci, UNIQUE KEY us (s))
			exec INSERT INTO p2 VALUES (1, 'x'), (3, 'x y'), (4, 'xy')
			error 1062 INSERT INTO p2 VALUES (2, 'X  ')
			query SELECT id, s FROM p2 WHERE s = 'x '
			= 1 | x
			query SELECT id FROM p2 IGNORE INDEX (us) WHERE s = 'x   '
			= 1
			query SELECT id FROM p2 IGNORE INDEX (us) WHERE s <> 'x   ' ORDER BY id
			= 3
			= 4
			query SELECT id FROM p2 WHERE s BETWEEN 'x ' AND 'x y ' ORDER BY id
			= 1
			= 3
			query SELECT id, STRCMP(s, 'X   '), s = 'x ' FROM p2 ORDER BY id
			= 1 | 0 | 1
			= 3 | 1 | 0
			= 4 | 1 | 0
			exec UPDATE p2 SET s = 'x  ' WHERE id = 1
			query SELECT id FROM p2 WHERE s LIKE 'x' ORDER BY id
			query SELECT id FROM p2 WHERE s LIKE 'x  ' ORDER BY id
			= 1
			query SELECT id FROM p2 WHERE s LIKE 'x %' ORDER BY id
			= 1
			= 3
			exec CREATE TABLE p3 (id INT PRIMARY KEY, k VARCHAR(5) COLLATE latin1_swedish_ci, KEY (k))
			exec INSERT INTO p3 VALUES (1, 'b'), (2, 'B ')
			query SELECT COUNT(*) FROM p3 WHERE k = 'b'
			= 2
			query SELECT DISTINCT k FROM p3
			= b
			query SELECT DISTINCT UPPER(k) FROM p3 IGNORE INDEX (k)
			= B
			query SELECT k FROM p3 WHERE id = 1 UNION SELECT k FROM p3 WHERE id = 2
			= b
			query SELECT LENGTH(k) FROM (SELECT k FROM p3 WHERE id = 2 INTERSECT SELECT k FROM p3 WHERE id = 1) x
			= 2
			query SELECT k FROM p3 WHERE id = 1 EXCEPT SELECT k FROM p3 WHERE id = 2
			affected 2 DELETE FROM p3 WHERE k = 'b  '
			exec CREATE TABLE p4 (id INT PRIMARY KEY, s VARCHAR(5) COLLATE utf8mb4_bin)
			exec INSERT INTO p4 VALUES (1, 'a'), (2, 'a '), (3, 'b'), (4, 'A')
			query SELECT DISTINCT s FROM p4 ORDER BY s
			= A
			= a
			= b
		`)
	})
}
