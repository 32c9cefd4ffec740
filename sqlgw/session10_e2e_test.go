package sqlgw_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw"
)

// TestDropIfExistsOtherDatabase: DROP TABLE/VIEW IF EXISTS of a qualified
// missing name notes the database the statement named (MySQL 8.0
// "Unknown table 'otherdb.t'"), not the current one.
func TestDropIfExistsOtherDatabase(t *testing.T) {
	w := newWarningsConn(t, sqlgw.Config{})
	w.exec("CREATE DATABASE cur")
	w.exec("CREATE DATABASE otherdb")
	w.exec("USE cur")
	w.expect("DROP TABLE IF EXISTS otherdb.t", "Note|1051|Unknown table 'otherdb.t'")
	w.expect("DROP TABLE IF EXISTS otherdb.t1, otherdb.t2", "Note|1051|Unknown table 'otherdb.t1,otherdb.t2'")
	w.expect("DROP VIEW IF EXISTS otherdb.v", "Note|1051|Unknown table 'otherdb.v'")
	w.expect("DROP TABLE IF EXISTS t", "Note|1051|Unknown table 'cur.t'")
	w.expect("DROP VIEW IF EXISTS v", "Note|1051|Unknown table 'cur.v'")
	w.exec("CREATE TABLE otherdb.t (id INT PRIMARY KEY)")
	w.expect("DROP TABLE IF EXISTS otherdb.t, otherdb.gone", "Note|1051|Unknown table 'otherdb.gone'")
	w.expect("DROP TABLE IF EXISTS otherdb.t", "Note|1051|Unknown table 'otherdb.t'")
	w.exec("PREPARE s FROM 'DROP TABLE IF EXISTS otherdb.p'")
	w.expect("EXECUTE s", "Note|1051|Unknown table 'otherdb.p'")
	// The next statement's note is the current database's again.
	w.expect("DROP TABLE IF EXISTS t", "Note|1051|Unknown table 'cur.t'")
}

// TestIgnoreNullWarning: INSERT IGNORE and UPDATE IGNORE of NULL into a
// NOT NULL column store the implicit default with MySQL's Warning 1048
// "Column 'v' cannot be null" (go-mysql-server: a Note with its own
// text), on the general and the direct write paths alike.
func TestIgnoreNullWarning(t *testing.T) {
	for _, cfg := range []sqlgw.Config{{}, {NoDirect: true}} {
		t.Run(fmt.Sprintf("NoDirect=%v", cfg.NoDirect), func(t *testing.T) {
			w := newWarningsConn(t, cfg)
			w.exec("CREATE DATABASE iw")
			w.exec("USE iw")
			w.exec("CREATE TABLE t (id INT PRIMARY KEY, v INT NOT NULL)")
			w.expect("INSERT IGNORE INTO t VALUES (1, NULL)", "Warning|1048|Column 'v' cannot be null")
			w.expect("INSERT IGNORE INTO t VALUES (1, 5), (2, NULL)",
				"Warning|1062|Duplicate entry '1' for key 'PRIMARY'", "Warning|1048|Column 'v' cannot be null")
			w.exec("UPDATE t SET v = 7 WHERE id = 1")
			w.expect("UPDATE IGNORE t SET v = NULL WHERE id = 1", "Warning|1048|Column 'v' cannot be null")
			if got := strings.Join(w.rows("SELECT id, v FROM t ORDER BY id"), ","); got != "1|0,2|0" {
				t.Errorf("rows: %s, want 1|0,2|0", got)
			}
		})
	}
}
