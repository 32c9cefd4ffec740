package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/aztables/azurite"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// copyFixture fills a deployment through SQL: a keyed table with a global
// unique index and a local index, a row larger than one entity, keyless
// tables (one over a page), a view, an account with a grant; and returns the
// queries whose answers must survive a copy.
func copyFixture(t *testing.T, db *sql.DB) []string {
	t.Helper()
	big := strings.Repeat("x", 300_000)
	for _, q := range []string{
		"CREATE DATABASE c1",
		"CREATE TABLE c1.t (region VARCHAR(8), id INT, name VARCHAR(40), email VARCHAR(60), v DECIMAL(10,2), body LONGTEXT, PRIMARY KEY (region, id))",
		"CREATE UNIQUE INDEX ix_email ON c1.t (email)",
		"CREATE INDEX ix_name ON c1.t (region, name) COMMENT 'sqlgw: local'",
		"INSERT INTO c1.t VALUES ('eu', 1, 'O''Brien', 'ob@x', 1.50, NULL), ('eu', 2, 'it''s fragile', 'f@x', NULL, 'short'), ('us', 1, 'Zoë', NULL, 3.25, '" + big + "')",
		"CREATE TABLE c1.log (msg TEXT)",
		"INSERT INTO c1.log VALUES ('a'), ('b'), ('a')",
		"CREATE VIEW c1.eu AS SELECT id, name FROM c1.t WHERE region = 'eu'",
		// A table group: two tables in one physical table.
		"CREATE TABLE c1.orders (cust INT, id INT, total INT, PRIMARY KEY (cust, id)) COMMENT 'sqlgw: group=sales'",
		"CREATE TABLE c1.order_lines (cust INT, id INT, line INT, sku VARCHAR(10), PRIMARY KEY (cust, id, line)) COMMENT 'sqlgw: group=sales'",
		"INSERT INTO c1.orders VALUES (7, 1, 100), (8, 1, 5)",
		"INSERT INTO c1.order_lines VALUES (7, 1, 1, 'a'), (7, 1, 2, 'b'), (8, 1, 1, 'c')",
		"CREATE USER 'bi'@'%' IDENTIFIED BY 'bi-pw'",
		"GRANT SELECT ON c1.* TO 'bi'@'%'",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q[:min(len(q), 80)], err)
		}
	}
	// A keyless table over one page (1,000 entities) in its one partition
	// "": Azurite's continuation there used to end the reads (counts,
	// scans) after the first page.
	if _, err := db.Exec("CREATE TABLE c1.many (n INT, tag VARCHAR(10))"); err != nil {
		t.Fatal(err)
	}
	for b := 0; b < 3; b++ {
		var vals []string
		for i := b * 500; i < (b+1)*500; i++ {
			vals = append(vals, fmt.Sprintf("(%d, 't%d')", i, i%3))
		}
		if _, err := db.Exec("INSERT INTO c1.many VALUES " + strings.Join(vals, ",")); err != nil {
			t.Fatal(err)
		}
	}
	for i := 3; i < 250; i++ {
		if _, err := db.Exec("INSERT INTO c1.t (region, id, name, email) VALUES (?, ?, ?, ?)", "ap", i, fmt.Sprint("n", i%7), fmt.Sprint("e", i, "@x")); err != nil {
			t.Fatal(err)
		}
	}
	return []string{
		"SELECT region, id, name, email, v, LENGTH(body) FROM c1.t ORDER BY region, id",
		"SELECT id FROM c1.t WHERE email = 'f@x'",
		"SELECT id FROM c1.t WHERE region = 'ap' AND name = 'n3' ORDER BY id",
		"SELECT msg, COUNT(*) FROM c1.log GROUP BY msg ORDER BY msg",
		"SELECT tag, COUNT(*), SUM(n), MAX(n) FROM c1.many GROUP BY tag ORDER BY tag",
		"SELECT * FROM c1.eu ORDER BY id",
		"SHOW CREATE TABLE c1.t",
		"SELECT o.id, o.total, l.line, l.sku FROM c1.orders o JOIN c1.order_lines l ON l.cust = o.cust AND l.id = o.id WHERE o.cust = 7 ORDER BY l.line",
		"SELECT cust, COUNT(*) FROM c1.order_lines GROUP BY cust ORDER BY cust",
		"SHOW CREATE TABLE c1.order_lines",
		// Accounts and grants (the catalog's accounts record).
		"SHOW GRANTS FOR 'bi'@'%'",
		"SELECT user, host, plugin, authentication_string FROM mysql.user ORDER BY user, host",
	}
}

func answers(t *testing.T, db *sql.DB, queries []string) [][]string {
	t.Helper()
	var out [][]string
	r := sqltest.NewRunner(t, db)
	for _, q := range queries {
		res := r.Rows(q)
		if len(res) == 0 {
			t.Fatalf("%s: no rows (the fixture is wrong)", q)
		}
		out = append(out, res)
	}
	return out
}

// TestCopy copies a Pebble deployment to another Pebble directory and to
// Azurite, and checks that a server on the destination answers every query
// as the source did, including through the secondary indexes; a second copy
// into the same destination is refused.
func TestCopy(t *testing.T) {
	src := t.TempDir()
	addr, _, done := startServe(t, nil, "--store", "pebble:"+src)
	db := sqltest.Client(t, "root", addr, "")
	queries := copyFixture(t, db)
	db.Close()
	// Queries run with c1 as the current database: go-mysql-server cannot
	// expand a view without one ("no database selected").
	db = sqltest.Client(t, "root", addr, "c1")
	want := answers(t, db, queries)
	db.Close()
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	<-done

	dests := map[string]string{"pebble": "pebble:" + t.TempDir()}
	if !testing.Short() || azurite.InCI() {
		dests["azurite"] = "azure:" + azurite.Start(t)
	}
	for name, dst := range dests {
		t.Run(name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run([]string{"copy", "--from", "pebble:" + src, "--to", dst}, &out, &errb); code != 0 {
				t.Fatalf("copy: exit %d: %s", code, errb.String())
			}
			if !strings.Contains(errb.String(), "entity counts verified") {
				t.Errorf("copy log: %s", errb.String())
			}
			errb.Reset()
			if code := run([]string{"copy", "--from", "pebble:" + src, "--to", dst}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "already holds a sqlgw deployment") {
				t.Errorf("second copy into the same store: exit %d: %s", code, errb.String())
			}

			addr, _, done := startServe(t, nil, "--store", dst)
			defer func() {
				syscall.Kill(syscall.Getpid(), syscall.SIGINT)
				<-done
			}()
			db := sqltest.Client(t, "root", addr, "c1")
			defer db.Close()
			if got := answers(t, db, queries); !reflect.DeepEqual(got, want) {
				for i := range want {
					if !reflect.DeepEqual(got[i], want[i]) {
						t.Errorf("%s:\n got %v\nwant %v", queries[i], got[i], want[i])
					}
				}
			}
			// The copy is a working deployment: unique indexes still
			// enforce, auto-increment and writes continue.
			if _, err := db.Exec("INSERT INTO c1.t (region, id, email) VALUES ('eu', 9, 'ob@x')"); sqltest.Errno(err) != 1062 {
				t.Errorf("duplicate unique value after the copy: %v, want 1062", err)
			}
			if _, err := db.Exec("INSERT INTO c1.t (region, id, email) VALUES ('eu', 9, 'new@x')"); err != nil {
				t.Error(err)
			}
			// The group still commits a two-table transaction.
			tx, err := db.Begin()
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{"INSERT INTO c1.orders VALUES (7, 2, 1)", "INSERT INTO c1.order_lines VALUES (7, 2, 1, 'd')"} {
				if _, err := tx.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			sqltest.NewRunner(t, db).ExpectRows("SELECT l.sku FROM c1.orders o JOIN c1.order_lines l ON l.cust = o.cust AND l.id = o.id WHERE o.cust = 7 AND o.id = 2", "d")
		})
	}
}

func TestCopyRefusesBadArguments(t *testing.T) {
	for _, args := range [][]string{
		{"copy"},
		{"copy", "--from", "memory:", "--to", "pebble:" + t.TempDir()},
		{"copy", "--from", "pebble:" + t.TempDir(), "--to", "pebble:" + t.TempDir()}, // empty source
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code == 0 {
			t.Errorf("%v: exit 0", args)
		}
	}
}

// TestCopyAttached: an attached table's store table is copied only with
// --attached copy (else a warning names it), its mapping and sqlgw's index
// on it always are.
func TestCopyAttached(t *testing.T) {
	src := t.TempDir()
	st, err := pebble.Open(src, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := st.CreateTable(ctx, "Legacy"); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"Ann", "Bob", "Cy"} {
		if _, err := st.Insert(ctx, "Legacy", &storage.Entity{PartitionKey: "p", RowKey: fmt.Sprint("r", i), Properties: storage.Properties{"Name": storage.String(name)}}); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	addr, _, done := startServe(t, nil, "--store", "pebble:"+src)
	db := sqltest.Client(t, "root", addr, "")
	r := sqltest.NewRunner(t, db)
	r.Script(`
		exec ALTER TABLE azure.Legacy MODIFY Name VARCHAR(20)
		exec CREATE INDEX by_name ON azure.Legacy (Name)
		query SELECT RowKey FROM azure.Legacy WHERE Name = 'Bob'
		= r1
	`)
	db.Close()
	syscall.Kill(syscall.Getpid(), syscall.SIGINT)
	<-done

	for _, mode := range []string{"skip", "copy"} {
		t.Run(mode, func(t *testing.T) {
			dst := "pebble:" + t.TempDir()
			var out, errb bytes.Buffer
			if code := run([]string{"copy", "--from", "pebble:" + src, "--to", dst, "--attached", mode}, &out, &errb); code != 0 {
				t.Fatalf("copy: exit %d: %s", code, errb.String())
			}
			warned := strings.Contains(errb.String(), "store table Legacy is not copied: attached as azure.Legacy")
			if warned != (mode == "skip") {
				t.Errorf("--attached %s: warning %v: %s", mode, warned, errb.String())
			}
			addr, _, done := startServe(t, nil, "--store", dst)
			defer func() {
				syscall.Kill(syscall.Getpid(), syscall.SIGINT)
				<-done
			}()
			db := sqltest.Client(t, "root", addr, "")
			defer db.Close()
			r := sqltest.NewRunner(t, db)
			if mode == "copy" {
				r.Script(`
					query SELECT RowKey FROM azure.Legacy WHERE Name = 'Bob'
					= r1
					query SELECT COUNT(*) FROM azure.Legacy IGNORE INDEX (by_name)
					= 3
					query CHECK TABLE azure.Legacy
					= azure.Legacy | check | status | OK
				`)
				return
			}
			// Skipped: the mapping is there, the store table is not.
			if _, err := db.Exec("SELECT * FROM azure.Legacy"); sqltest.Errno(err) != 1146 {
				t.Errorf("the skipped attached table: %v, want 1146", err)
			}
			r.Exec("DROP TABLE azure.Legacy")
		})
	}
	var out, errb bytes.Buffer
	if code := run([]string{"copy", "--from", "pebble:" + src, "--to", "pebble:" + t.TempDir(), "--attached", "all"}, &out, &errb); code == 0 {
		t.Error("--attached all accepted")
	}
}
