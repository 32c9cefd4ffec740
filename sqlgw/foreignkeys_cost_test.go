package sqlgw_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestForeignKeysCost: the store requests of foreign key checks. A child
// row costs one primary-key Get of its parent, and rows of one statement
// that reference the same parent share it.
func TestForeignKeysCost(t *testing.T) {
	store, co := memoryBackend.open(t)
	ts := startServer(t, store, co)
	c := ts.conn()
	mustExec(t, c, "CREATE DATABASE fkc")
	mustExec(t, c, "USE fkc")
	mustExec(t, c, "CREATE TABLE p (id INT PRIMARY KEY)")
	mustExec(t, c, "CREATE TABLE ch (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id))")
	mustExec(t, c, "CREATE TABLE free (id INT PRIMARY KEY, pid INT, KEY (pid))")
	mustExec(t, c, "INSERT INTO p VALUES (1),(2),(3),(4),(5)")
	var vals []string
	for i := range 200 {
		vals = append(vals, fmt.Sprintf("(%d,%d)", i, i%5+1))
	}
	base, _ := cost(t, c, "INSERT INTO free VALUES "+strings.Join(vals, ","))
	req, _ := cost(t, c, "INSERT INTO ch VALUES "+strings.Join(vals, ","))
	t.Logf("200 rows: %d requests without a foreign key, %d with", base, req)
	if req > base+5+2 {
		t.Fatalf("200 child rows of 5 parents: %d store requests, want at most %d (one Get per distinct parent)", req, base+7)
	}
}
