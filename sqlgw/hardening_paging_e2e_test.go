package sqlgw_test

import (
	"fmt"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// TestKeylessTablePastPages: a table without a primary key keeps every row
// in the partition "" (catalog/doc.go). Azurite's continuation for that
// partition carries an empty NextPartitionKey, which the SDK drops; the
// store used to resume without it and Azurite answered an empty last
// page, so every read of such a table stopped after 1,000 rows: COUNT(*)
// was 1,000, rows past the first page were not found, UPDATE and DELETE
// touched 1,000 rows. Every read path runs here over 2,500 rows in one
// partition (three pages), on each backend.
func TestKeylessTablePastPages(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		sqltest.LongOnAzurite(t) // past several pages of the Table service
		c := ts.Use("d")
		c.Exec("CREATE TABLE k (id INT, grp INT, v VARCHAR(20))")
		const n = 2500
		c.InsertRows("k", n, 250, func(i int) string { return fmt.Sprintf("(%d, %d, 'v%d')", i, i%3, i) })
		// Table scans: whole, filtered, aggregated, sorted, limited.
		c.Script(`
			query SELECT COUNT(*), SUM(id), MIN(id), MAX(id) FROM k
			= 2500 | 3123750 | 0 | 2499
			query SELECT COUNT(*) FROM k WHERE grp = 1
			= 833
			query SELECT v FROM k WHERE id = 2000
			= v2000
			query SELECT id FROM k WHERE id > 2496 ORDER BY id
			= 2497
			= 2498
			= 2499
			query SELECT id FROM k ORDER BY id DESC LIMIT 2
			= 2499
			= 2498
		`)
		if got := c.Rows("SELECT id FROM k"); len(got) != n {
			t.Fatalf("SELECT id FROM k: %d rows, want %d", len(got), n)
		}
		// Joins read the keyless table in full too.
		c.ExpectRows("SELECT COUNT(*) FROM k a JOIN k b ON a.id = b.id WHERE a.grp = 2", "833")
		// UPDATE and DELETE find every row (their keys are the ones read).
		if got := c.Affected("UPDATE k SET v = CONCAT('u', id)"); got != n {
			t.Fatalf("UPDATE of every row: %d rows, want %d", got, n)
		}
		c.ExpectRows("SELECT COUNT(*) FROM k WHERE v LIKE 'u%'", "2500")
		if got := c.Affected("UPDATE k SET v = 'w' WHERE id >= 2200"); got != 300 {
			t.Fatalf("UPDATE of the last 300: %d rows, want 300", got)
		}
		if got := c.Affected("DELETE FROM k WHERE id < 500"); got != 500 {
			t.Fatalf("DELETE id < 500: %d rows, want 500", got)
		}
		c.Script(`
			query SELECT COUNT(*), MIN(id), MAX(id) FROM k
			= 2000 | 500 | 2499
			query SELECT v FROM k WHERE id = 2300
			= w
			# An explicit transaction reads the stored pages under its writes.
			exec BEGIN
			exec INSERT INTO k VALUES (9999, 0, 'x')
			exec DELETE FROM k WHERE id = 1500
			query SELECT COUNT(*) FROM k
			= 2000
			exec COMMIT
			query SELECT COUNT(*) FROM k
			= 2000
			query SELECT COUNT(*) FROM k WHERE id = 1500
			= 0
			# CHECK TABLE reads every entity.
			query CHECK TABLE k
			= d.k | check | status | OK
			# INSERT ... SELECT copies every row.
			exec CREATE TABLE k2 (id INT, grp INT, v VARCHAR(20))
		`)
		if got := c.Affected("INSERT INTO k2 SELECT * FROM k"); got != 2000 {
			t.Fatalf("INSERT ... SELECT: %d rows, want 2000", got)
		}
		c.ExpectRows("SELECT COUNT(*), SUM(id) FROM k2", "2000\t3007499")
		if got := c.Affected("DELETE FROM k"); got != 2000 {
			t.Fatalf("DELETE of every row: %d rows, want 2000", got)
		}
		c.ExpectRows("SELECT COUNT(*) FROM k", "0")
	})
}

// TestEmptyKeyPartitionPastPages: keyed tables whose partition key value is
// the empty string, and secondary index partitions with over 2,000
// entries, are read past the page boundary as well.
func TestEmptyKeyPartitionPastPages(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		sqltest.LongOnAzurite(t) // past several pages of the Table service
		c := ts.Use("d")
		c.Exec("CREATE TABLE e (p VARCHAR(10) COLLATE utf8mb4_bin, id INT, g INT, PRIMARY KEY (p, id), KEY byg (g))")
		const n = 2100
		c.InsertRows("e", n, 300, func(i int) string { return fmt.Sprintf("('', %d, 7)", i) })
		c.Script(`
			query SELECT COUNT(*), MAX(id) FROM e WHERE p = ''
			= 2100 | 2099
			query SELECT COUNT(*) FROM e
			= 2100
			query SELECT COUNT(*), MAX(id) FROM e FORCE INDEX (byg) WHERE g = 7
			= 2100 | 2099
		`)
		// Writes found through the index past its second page.
		if got := c.Affected("UPDATE e SET g = 8 WHERE g = 7 AND id >= 2050"); got != 50 {
			t.Fatalf("UPDATE through the index: %d rows, want 50", got)
		}
		c.Script(`
			query SELECT COUNT(*) FROM e FORCE INDEX (byg) WHERE g = 7
			= 2050
			query SELECT COUNT(*), MIN(id) FROM e FORCE INDEX (byg) WHERE g = 8
			= 50 | 2050
			query CHECK TABLE e
			= d.e | check | status | OK
		`)
		if got := c.Affected("DELETE FROM e WHERE g = 8"); got != 50 {
			t.Fatalf("DELETE: %d rows, want 50", got)
		}
		c.ExpectRows("SELECT COUNT(*) FROM e WHERE p = ''", "2050")
		c.ExpectRows("SELECT COUNT(*) FROM e FORCE INDEX (byg) WHERE g = 8", "0")
	})
}
