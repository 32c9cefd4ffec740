package sqlgw_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// TestLargeIndexedTransaction: a transaction of 2,000 rows over 20
// partitions of a table with a global index and a global unique index
// commits on both backends (on the Table service its index entities are
// groups of the transaction record, so no mark has to be younger than its
// lease at the commit point: before, the COMMIT failed with 1213 "index
// writes took too long"), and right after COMMIT the indexes are exactly
// what the rows imply, with no mark; then one UPDATE moving the indexed
// values of 600 rows, likewise.
func TestLargeIndexedTransaction(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		sqltest.LongOnAzurite(t) // about 20-50 s on Azurite
		st, co := ts.Store, ts.Catalog
		sqltest.NewRunner(t, ts.DB).Exec("CREATE DATABASE bt")
		sqltest.NewRunner(t, ts.DB).Exec("CREATE TABLE bt.t (p INT, id INT, a INT, e VARCHAR(20), PRIMARY KEY (p, id), KEY ga (a) COMMENT 'sqlgw: global', UNIQUE KEY ue (e) COMMENT 'sqlgw: global')")
		c := sqltest.NewRunner(t, ts.Conn())
		start := time.Now()
		c.Exec("BEGIN")
		const rows, perStmt = 2000, 200
		for s := 0; s < rows/perStmt; s++ {
			var vals []string
			for i := s * perStmt; i < (s+1)*perStmt; i++ {
				vals = append(vals, fmt.Sprintf("(%d, %d, %d, 'e%d')", i%20, i, i%37, i))
			}
			c.Exec("INSERT INTO bt.t VALUES " + strings.Join(vals, ", "))
		}
		c.Exec("COMMIT")
		t.Logf("2,000-row indexed transaction: %s", time.Since(start).Round(time.Millisecond))
		check := func(what string) {
			t.Helper()
			checkIndexes(t, st, co, "bt", "t", what)
		}
		check("after the insert")
		sqltest.NewRunner(t, ts.DB).ExpectRows("SELECT COUNT(*) FROM bt.t", "2000")
		sqltest.NewRunner(t, ts.DB).ExpectRows("SELECT COUNT(*) FROM bt.t WHERE a = 5", "54")
		sqltest.NewRunner(t, ts.DB).ExpectRows("SELECT p, id FROM bt.t WHERE e = 'e1234'", "14\t1234")

		c.Exec("UPDATE bt.t SET a = a + 100, e = CONCAT('f', id) WHERE id < 600")
		check("after the update")
		sqltest.NewRunner(t, ts.DB).ExpectRows("SELECT COUNT(*) FROM bt.t WHERE a = 105", "17")
		sqltest.NewRunner(t, ts.DB).ExpectRows("SELECT COUNT(*) FROM bt.t WHERE a = 5", "37")
		sqltest.NewRunner(t, ts.DB).ExpectRows("SELECT p, id FROM bt.t WHERE e = 'f123'", "3\t123")
		sqltest.NewRunner(t, ts.DB).ExpectRows("SELECT p, id FROM bt.t WHERE e = 'e123'")
	})
}

// TestLoadDataIndexedBatch: LOAD DATA LOCAL INFILE of 500 rows over 500
// partitions into a table with a global index writes with one store
// request on the embedded store (the rows and their index entities in one
// atomic batch, as a multi-row INSERT; before, 500 marks and 500 clears
// more), after one existence read per row (the table editor's duplicate
// check, which only a plain autocommit INSERT or LOAD DATA without LOCAL
// skips: skipExistenceCheck in sqlgw/engine/editor.go; LOAD DATA LOCAL
// skips duplicates with a warning, so it reads), and the index equals the
// rows right after it. The same rows from a server-side file (LOAD DATA
// INFILE, no LOCAL) cost the one write; a duplicate there fails the
// statement with 1062 and leaves none of its rows, under autocommit (found
// by the write) and in a transaction (found by the read).
func TestLoadDataIndexedBatch(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		st, co := ts.Store, ts.Catalog
		if !strings.Contains(t.Name(), "pebble") {
			t.Skip("the request count is the embedded store's")
		}
		var sb strings.Builder
		for i := range 500 {
			fmt.Fprintf(&sb, "%d,%d,c%d\n", i, i%13, i)
		}
		data := sb.String()
		mysql.RegisterReaderHandler("sqlgw_load_indexed", func() io.Reader { return strings.NewReader(data) })
		defer mysql.DeregisterReaderHandler("sqlgw_load_indexed")
		sqltest.NewRunner(t, ts.DB).Exec("SET GLOBAL local_infile = 1")
		c := sqltest.NewRunner(t, ts.Session("ld", "CREATE TABLE t (id INT PRIMARY KEY, k INT, c VARCHAR(20), KEY k_1 (k) COMMENT 'sqlgw: global')"))
		n, _ := c.Cost("LOAD DATA LOCAL INFILE 'Reader::sqlgw_load_indexed' INTO TABLE t FIELDS TERMINATED BY ','")
		if n != 500+1 {
			t.Errorf("LOAD DATA of 500 indexed rows: %d store requests, want 501 (500 existence reads, 1 write)", n)
		}
		c.ExpectRows("SELECT COUNT(*) FROM t", "500")
		c.ExpectRows("SELECT COUNT(*) FROM t WHERE k = 3", "39")
		checkIndexes(t, st, co, "ld", "t", "index after LOAD DATA")

		file := filepath.Join(t.TempDir(), "rows.csv")
		write := func(s string) {
			if err := os.WriteFile(file, []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		sb.Reset()
		for i := range 500 {
			fmt.Fprintf(&sb, "%d,%d,f%d\n", 1000+i, i%13, i)
		}
		write(sb.String())
		load := "LOAD DATA INFILE '" + file + "' INTO TABLE t FIELDS TERMINATED BY ','"
		if n, _ := c.Cost(load); n != 1 {
			t.Errorf("LOAD DATA INFILE of 500 indexed rows: %d store requests, want 1 (the write)", n)
		}
		c.ExpectRows("SELECT COUNT(*) FROM t", "1000")
		write("2000,1,new\n2001,2,new\n7,3,dup\n2002,4,new\n")
		c.ExpectMessage(1062, "Duplicate entry '7' for key 't.PRIMARY'", load)
		c.ExpectRows("SELECT COUNT(*) FROM t", "1000")
		c.Exec("BEGIN")
		c.ExpectMessage(1062, "Duplicate entry '7' for key 't.PRIMARY'", load)
		c.ExpectRows("SELECT COUNT(*) FROM t WHERE c = 'new'", "0")
		c.Exec("ROLLBACK")
		c.ExpectRows("SELECT COUNT(*) FROM t", "1000")
		checkIndexes(t, st, co, "ld", "t", "index after LOAD DATA INFILE")
	})
}
