package sqlgw_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw"
)

// TestReview13cNonAtomicFirstRowDuplicate: a multi-row INSERT holding a
// row larger than one batch commits batch by batch (engine/txn.go,
// commitTable: the path that bypasses the atomic commit), the batches of
// different partitions in parallel. When several rows hit stored keys,
// the 1062 must name the first of them in statement order, as MySQL does,
// not whichever batch's failure arrived first.
func TestReview13cNonAtomicFirstRowDuplicate(t *testing.T) {
	for _, cfg := range []sqlgw.Config{{}, {NoPlanCache: true}} {
		c := insertDiffConn(t, cfg)
		writeRun(c, "CREATE DATABASE IF NOT EXISTS na")
		writeRun(c, "USE na")
		writeRun(c, "CREATE TABLE nb (id INT PRIMARY KEY, v LONGTEXT)")
		var sb strings.Builder
		sb.WriteString("INSERT INTO nb VALUES ")
		for i := 1; i <= 40; i++ {
			if i > 1 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "(%d, 'v%d')", i, i)
		}
		if r := writeRun(c, sb.String()); strings.Contains(r, "error") {
			t.Fatal(r)
		}
		// Rows 1..40 again, then one row over batchBytes: the commit
		// takes commitTable; every batch fails with a duplicate.
		sb.WriteString(", (1000, REPEAT('x', 2200000))")
		for i := 0; i < 20; i++ {
			r := writeRun(c, sb.String())
			if !strings.Contains(r, "Duplicate entry '1' for key 'PRIMARY'") {
				t.Fatalf("plan cache off %v, try %d: %s", cfg.NoPlanCache, i, r)
			}
		}
		if r := writeRun(c, "SELECT COUNT(*) FROM nb"); !strings.Contains(r, "INT64(40)") {
			t.Fatalf("rows after the failed INSERTs: %s", r)
		}
	}
}
