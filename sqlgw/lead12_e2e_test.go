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
