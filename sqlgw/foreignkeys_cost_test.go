package sqlgw_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// TestForeignKeysCost: the store requests of foreign key checks. A child
// row costs one primary-key Get of its parent, and rows of one statement
// that reference the same parent share it.
func TestForeignKeysCost(t *testing.T) {
	store, co := sqltest.Memory.Open(t)
	ts := sqltest.Start(t, store, sqltest.Options{Catalog: co})
	c := sqltest.NewRunner(t, ts.Session("fkc", `
		CREATE TABLE p (id INT PRIMARY KEY)
		CREATE TABLE ch (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id))
		CREATE TABLE free (id INT PRIMARY KEY, pid INT, KEY (pid))
		INSERT INTO p VALUES (1),(2),(3),(4),(5)`))
	var vals []string
	for i := range 200 {
		vals = append(vals, fmt.Sprintf("(%d,%d)", i, i%5+1))
	}
	base, _ := c.Cost("INSERT INTO free VALUES " + strings.Join(vals, ","))
	req, _ := c.Cost("INSERT INTO ch VALUES " + strings.Join(vals, ","))
	t.Logf("200 rows: %d requests without a foreign key, %d with", base, req)
	if req > base+5+2 {
		t.Fatalf("200 child rows of 5 parents: %d store requests, want at most %d (one Get per distinct parent)", req, base+7)
	}

	// Deleting a parent no child references: the check is one index
	// range read of the child index on top of the delete itself.
	c.Script(`
		exec INSERT INTO p VALUES (6)
		exec CREATE TABLE lone (id INT PRIMARY KEY)
		exec INSERT INTO lone VALUES (6)
	`)
	delBase, _ := c.Cost("DELETE FROM lone WHERE id = 6")
	delReq, _ := c.Cost("DELETE FROM p WHERE id = 6")
	t.Logf("DELETE of an unreferenced parent: %d requests (a row of a table without references: %d)", delReq, delBase)
	if delReq > 4 {
		t.Fatalf("DELETE of an unreferenced parent: %d store requests, want at most 4", delReq)
	}

	// ON DELETE CASCADE over 50 children: one index range, the children's
	// rows, their deletes (batched per partition).
	c.Script(`
		exec CREATE TABLE cp (id INT PRIMARY KEY)
		exec CREATE TABLE cc (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES cp (id) ON DELETE CASCADE)
		exec INSERT INTO cp VALUES (1)
	`)
	vals = vals[:0]
	for i := range 50 {
		vals = append(vals, fmt.Sprintf("(%d,1)", i))
	}
	c.Exec("INSERT INTO cc VALUES " + strings.Join(vals, ","))
	casReq, casEnt := c.Cost("DELETE FROM cp WHERE id = 1")
	t.Logf("DELETE of a parent cascading to 50 children: %d requests, %d entities read", casReq, casEnt)
	c.ExpectRows("SELECT count(*) FROM cc", "0")
}
