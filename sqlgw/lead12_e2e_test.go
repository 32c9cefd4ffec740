package sqlgw_test

import (
	"fmt"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw"
)

// TestDuplicateIndexWarning: MySQL warns 1831 only for an index whose key
// parts, in order, are another index's. go-mysql-server warned for any two
// secondary indexes with as many columns (CREATE TABLE with KEY(a), KEY(b)).
func TestDuplicateIndexWarning(t *testing.T) {
	w := newWarningsConn(t, sqlgw.Config{})
	w.exec("CREATE DATABASE dupix")
	w.exec("USE dupix")
	const dup = "Warning|1831|Duplicate index '%s' defined on the table 'dupix.%s'. This is deprecated and will be disallowed in a future release."
	w.expect("CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT, c INT, KEY(a), KEY(b), KEY(c))")
	w.expect("CREATE INDEX iab ON t (a, b)")
	w.expect("ALTER TABLE t ADD INDEX iba (b, a)")
	w.expect("CREATE INDEX ia2 ON t (a)", fmt.Sprintf(dup, "ia2", "t"))
	w.expect("ALTER TABLE t ADD INDEX iab2 (a, b)", fmt.Sprintf(dup, "iab2", "t"))
	w.expect("ALTER TABLE t ADD UNIQUE INDEX uc (c, a)")
	w.expect("CREATE TABLE t2 (id INT PRIMARY KEY, x INT, y INT, KEY kx (x), KEY ky (y), KEY kx2 (x))", fmt.Sprintf(dup, "kx2", "t2"))
}

// TestSyntaxError1064: a statement the parser rejects is MySQL's 1064
// (42000) with the text from where it stopped, over the text protocol and
// in COM_STMT_PREPARE; a statement that needs a database without one is
// 1046 (3D000). go-mysql-server sent both as 1105 (HY000) with vitess's
// "syntax error at position 13 near 'fro'" and "no database selected".
func TestSyntaxError1064(t *testing.T) {
	w, db := conv10DB(t, sqlgw.Config{})
	syntax := func(near string, line int) string {
		return fmt.Sprintf("You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '%s' at line %d", near, line)
	}
	w.expectError("select * fro a", 1064, syntax("fro a", 1))
	w.expectError("selec 1", 1064, syntax("selec 1", 1))
	w.expectError("select 1 from t where a = 1 and", 1064, syntax("", 1))
	w.expectError("select 1,\n2 frm t", 1064, syntax("t", 2))
	w.expectError("select * from t", 1046, "No database selected")
	expectPreparedError(t, db, "select * fro a where id = ?", 1064, syntax("fro a where id = ?", 1), 1)
	expectPreparedError(t, db, "insert into t values (?", 1064, syntax("", 1), 1)
	w.exec("CREATE DATABASE syn")
	w.exec("USE syn")
	w.exec("CREATE TABLE t (id INT PRIMARY KEY)")
	w.expectError("update t set id = 2 whre id = 1", 1064, syntax("whre id = 1", 1))
	w.expectRows("SELECT COUNT(*) FROM t", "0")
}

// TestCharTrailingSpaces: a CHAR value reads back without its trailing
// spaces (MySQL pads it when it stores it and strips the padding when it
// reads it), so LENGTH, CONCAT, keys and comparisons see the value without
// them; VARCHAR keeps them. go-mysql-server kept them in CHAR.
func TestCharTrailingSpaces(t *testing.T) {
	w, db := conv10DB(t, sqlgw.Config{})
	w.exec("CREATE DATABASE chr")
	w.exec("USE chr")
	w.exec("CREATE TABLE c (id INT PRIMARY KEY, ch CHAR(5), vc VARCHAR(5), k CHAR(4), KEY(k))")
	w.exec("INSERT INTO c VALUES (1, 'ab  ', 'ab  ', 'x  '), (2, '  a ', '  a ', 'x'), (3, '', '', ' ')")
	if _, err := db.Exec("INSERT INTO chr.c VALUES (?, ?, ?, ?)", 4, "p  ", "p  ", "y "); err != nil {
		t.Fatal(err)
	}
	w.expectRows("SELECT id, CONCAT('[', ch, ']'), LENGTH(ch), CONCAT('[', vc, ']'), CONCAT('[', k, ']') FROM c ORDER BY id",
		"1|[ab]|2|[ab  ]|[x]", "2|[  a]|3|[  a ]|[x]", "3|[]|0|[]|[]", "4|[p]|1|[p  ]|[y]")
	w.expectRows("SELECT id FROM c WHERE ch = 'ab'", "1")
	w.expectRows("SELECT id FROM c WHERE k = 'x' ORDER BY id", "1", "2")
	w.exec("UPDATE c SET ch = 'q   ' WHERE id = 3")
	w.exec("INSERT INTO c SELECT id + 10, CONCAT(ch, '  '), vc, k FROM c WHERE id = 3")
	w.expectRows("SELECT id, CONCAT('[', ch, ']') FROM c WHERE id IN (3, 13) ORDER BY id", "3|[q]", "13|[q]")
	w.exec("CREATE TABLE ck (k CHAR(3) PRIMARY KEY)")
	w.exec("INSERT INTO ck VALUES ('a ')")
	w.expectError("INSERT INTO ck VALUES ('a')", 1062, "Duplicate entry 'a' for key 'ck.PRIMARY'")
	w.expectRows("SELECT CONCAT('[', k, ']') FROM ck", "[a]")
}

// TestFloatTextAsMySQL: FLOAT and DOUBLE values in text rows as MySQL
// writes them (my_gcvt): DOUBLE 1234567 is "1234567", not Go's
// "1.234567e+06"; a FLOAT has 6 significant digits; the exponent has no
// '+'. The expected texts are MariaDB 10.11's for the same values.
func TestFloatTextAsMySQL(t *testing.T) {
	w := newWarningsConn(t, sqlgw.Config{})
	w.exec("CREATE DATABASE flt")
	w.exec("USE flt")
	w.exec("CREATE TABLE g (id INT PRIMARY KEY, f FLOAT, d DOUBLE)")
	w.exec("INSERT INTO g VALUES (1, 1234567, 1234567), (2, 0.000012345678, 0.000012345678), (3, -1.5e-7, -1.5e-7), (4, 1e7, 1e16), (5, 123456.789, 1e300), (6, 1.1, 2.5)")
	w.expectRows("SELECT id, f, d FROM g ORDER BY id",
		"1|1234570|1234567", "2|0.0000123457|0.000012345678", "3|-0.00000015|-0.00000015",
		"4|10000000|1e16", "5|123457|1e300", "6|1.1|2.5")
	w.expectRows("SELECT d * 2, f + 0 FROM g WHERE id = 1", "2469134|1234567")
	w.expectRows("SELECT 1234567.0e0, 1e20, -2.5e25, 0.00001e0, 1e-300", "1234567|1e20|-2.5e25|0.00001|1e-300")
	w.expectRows("SELECT SUM(d) FROM g WHERE id IN (1, 4)", "1.0000000001234568e16")
}

// TestCharsetWrites: a string with characters the column's character set
// lacks is MySQL's 1366 in strict mode and stored with '?' for each of
// them (Warning 1366) otherwise, on every write path; go-mysql-server
// stored it as it was, and every later read of the row failed with a
// recovered panic (1105).
func TestCharsetWrites(t *testing.T) {
	for _, cfg := range []sqlgw.Config{{}, {NoDirect: true}} {
		t.Run(fmt.Sprintf("NoDirect=%v", cfg.NoDirect), func(t *testing.T) {
			w, db := conv10DB(t, cfg)
			w.exec("CREATE DATABASE cs")
			w.exec("USE cs")
			w.exec("CREATE TABLE p (id INT PRIMARY KEY, lb VARCHAR(6) CHARACTER SET latin1, u3 VARCHAR(4) CHARACTER SET utf8mb3)")
			const lbBad = "Incorrect string value: '\\xE6\\x97\\xA5' for column 'lb' at row 1"
			w.expectError("INSERT INTO p VALUES (1, '日', 'a')", 1366, lbBad)
			w.expectError("INSERT INTO p VALUES (1, 'é', '😀')", 1366, "Incorrect string value: '\\xF0\\x9F\\x98\\x80' for column 'u3' at row 1")
			w.exec("INSERT INTO p VALUES (1, 'é', 'ü')")
			w.expectError("UPDATE p SET lb = 'x日' WHERE id = 1", 1366, lbBad)
			w.expectError("INSERT INTO p SELECT 2, CONCAT(lb, '日'), u3 FROM p WHERE id = 1", 1366, lbBad)
			expectPreparedError(t, db, "INSERT INTO cs.p VALUES (?, ?, ?)", 1366, lbBad, 3, "日", "a")
			w.exec("SET sql_mode = ''")
			w.expect("INSERT INTO p VALUES (4, 'a日本語b', '😀x')",
				"Warning|1366|Incorrect string value: '\\xE6\\x97\\xA5\\xE6\\x9C\\xAC...' for column 'lb' at row 1",
				"Warning|1366|Incorrect string value: '\\xF0\\x9F\\x98\\x80x' for column 'u3' at row 1")
			w.expect("UPDATE p SET lb = '日' WHERE id = 1", "Warning|1366|"+lbBad)
			w.expectRows("SELECT id, HEX(lb), lb, u3 FROM p ORDER BY id", "1|3F|?|ü", "4|613F3F3F62|a???b|?x")
		})
	}
}
