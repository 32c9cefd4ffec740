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
