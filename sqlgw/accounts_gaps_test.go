package sqlgw_test

import (
	"database/sql"
	"fmt"
	"testing"
)

// TestAccountsTableGrantsVisibility: an account with table-level grants
// only sees, in SHOW TABLES and information_schema.TABLES, COLUMNS and STATISTICS,
// the tables and views of that database it has some privilege on, as
// MySQL.
func TestAccountsTableGrantsVisibility(t *testing.T) {
	store, co := memoryBackend.open(t)
	ts, _ := startAccountsServer(t, store, co, "", nil)
	root := ts.conn()
	for _, q := range []string{"CREATE DATABASE shop",
		"CREATE TABLE shop.pub (id INT PRIMARY KEY, v INT, KEY kv (v))",
		"CREATE TABLE shop.priv (id INT PRIMARY KEY, w INT, KEY kw (w))",
		"CREATE VIEW shop.vpub AS SELECT id FROM shop.pub",
		"CREATE VIEW shop.vpriv AS SELECT id FROM shop.priv",
		"CREATE USER tl IDENTIFIED BY 'tl-pw'", "GRANT SELECT ON shop.pub TO tl", "GRANT SELECT ON shop.vpub TO tl"} {
		mustExec(t, root, q)
	}
	tl := as(t, ts, "tl", "tl-pw", "")
	expectRows(t, tl, "SHOW TABLES FROM shop", "pub", "vpub")
	expectRows(t, tl, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'shop' ORDER BY 1", "pub", "vpub")
	expectRows(t, tl, "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'shop' AND table_name IN ('pub', 'priv') ORDER BY 1, 2",
		"pub\tid", "pub\tv")
	expectRows(t, tl, "SELECT DISTINCT table_name FROM information_schema.statistics WHERE table_schema = 'shop' ORDER BY 1", "pub")
	// root still sees everything.
	expectRows(t, root, "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'shop' ORDER BY 1, 2",
		"priv\tid", "priv\tw", "pub\tid", "pub\tv", "vpriv\tid", "vpub\tid")
	expectRows(t, root, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'shop' ORDER BY 1", "priv", "pub", "vpriv", "vpub")
}

// TestAccountsProcessListOwn: without the PROCESS privilege, SHOW
// PROCESSLIST and information_schema.PROCESSLIST show the account its own
// connections only, as MySQL; with it, every connection.
func TestAccountsProcessListOwn(t *testing.T) {
	store, co := memoryBackend.open(t)
	ts, _ := startAccountsServer(t, store, co, "", nil)
	root := ts.conn()
	mustExec(t, root, "CREATE USER pl IDENTIFIED BY 'pl-pw'")
	mustExec(t, root, "CREATE USER ops IDENTIFIED BY 'ops-pw'")
	mustExec(t, root, "GRANT PROCESS ON *.* TO ops")
	pl := as(t, ts, "pl", "pl-pw", "")
	pl.SetMaxOpenConns(2)
	c1, err := pl.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	c2, err := pl.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	expectRows(t, c1, "SELECT COUNT(*), MIN(user), MAX(user) FROM information_schema.processlist", "2\tpl\tpl")
	rows, err := c1.QueryContext(t.Context(), "SHOW PROCESSLIST")
	if err != nil {
		t.Fatalf("SHOW PROCESSLIST without PROCESS: %v", err)
	}
	n := 0
	for rows.Next() {
		var id int64
		var user string
		var rest [6]sql.RawBytes
		if err := rows.Scan(&id, &user, &rest[0], &rest[1], &rest[2], &rest[3], &rest[4], &rest[5]); err != nil {
			t.Fatal(err)
		}
		if user != "pl" {
			t.Fatalf("SHOW PROCESSLIST shows user %q to pl", user)
		}
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if n != 2 {
		t.Fatalf("SHOW PROCESSLIST shows %d connections to pl, want 2", n)
	}
	ops := as(t, ts, "ops", "ops-pw", "")
	var total int
	if err := ops.QueryRow("SELECT COUNT(*) FROM information_schema.processlist WHERE user IN ('root', 'pl', 'ops')").Scan(&total); err != nil || total < 4 {
		t.Fatalf("PROCESS sees %d connections (%v), want >= 4", total, err)
	}
}

// TestAccountsStatementsInMultiStatementText: SET PASSWORD, ALTER USER
// ... ACCOUNT LOCK|UNLOCK and REVOKE ALL PRIVILEGES, GRANT OPTION work as
// one statement of a multi-statement text too.
func TestAccountsStatementsInMultiStatementText(t *testing.T) {
	store, co := memoryBackend.open(t)
	ts, _ := startAccountsServer(t, store, co, "", nil)
	root := ts.conn()
	for _, q := range []string{"CREATE DATABASE m", "CREATE TABLE m.t (id INT PRIMARY KEY)",
		"CREATE USER mu IDENTIFIED BY 'mu-pw'", "GRANT SELECT ON m.* TO mu", "GRANT SELECT ON m.t TO mu"} {
		mustExec(t, root, q)
	}
	multi, err := sql.Open("mysql", ts.dsn+"?multiStatements=true")
	if err != nil {
		t.Fatal(err)
	}
	defer multi.Close()
	multi.SetMaxOpenConns(1)
	addr := ts.srv.Addr().String()

	mustExec(t, multi, "SET PASSWORD FOR mu = 'mu-pw2'; SELECT 1")
	if err := loginError("mu", "mu-pw2", addr, ""); err != nil {
		t.Fatalf("after SET PASSWORD in a multi-statement text: %v", err)
	}
	mustExec(t, multi, "SELECT 1; ALTER USER mu ACCOUNT LOCK; SELECT 2")
	if err := loginError("mu", "mu-pw2", addr, ""); mysqlErrno(err) != 1045 {
		t.Fatalf("after ACCOUNT LOCK in a multi-statement text: %v, want 1045", err)
	}
	mustExec(t, multi, "ALTER USER mu ACCOUNT UNLOCK; REVOKE ALL PRIVILEGES, GRANT OPTION FROM mu; SELECT 3")
	if err := loginError("mu", "mu-pw2", addr, ""); err != nil {
		t.Fatalf("after ACCOUNT UNLOCK in a multi-statement text: %v", err)
	}
	expectRows(t, root, "SHOW GRANTS FOR mu", "GRANT USAGE ON *.* TO `mu`@`%`")
	// A failing statement stops the text, as in MySQL.
	_, err = multi.Exec("ALTER USER nobody ACCOUNT LOCK; CREATE USER never")
	if mysqlErrno(err) != 1396 {
		t.Fatalf("ALTER USER of an unknown account: %v, want 1396", err)
	}
	expectRows(t, root, "SELECT COUNT(*) FROM mysql.user WHERE user = 'never'", "0")
	_ = fmt.Sprint
}
