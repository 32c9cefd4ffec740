package sqlgw_test

import (
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
