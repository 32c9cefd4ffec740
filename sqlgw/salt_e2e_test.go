package sqlgw_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/catalog/keys"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
)

// saltedTable returns the catalog record of table d.name on s's store.
func saltedTable(t *testing.T, s *sqltest.Server, name string) *catalog.Table {
	t.Helper()
	return sqltest.StoreTable(t, s.Store, s.Catalog, "d", name)
}

// bucketCounts reads every row entity of tbl from the store and counts
// them per stored PartitionKey bucket prefix, checking that each sits in
// the bucket its logical PartitionKey hashes to.
func bucketCounts(t *testing.T, s *sqltest.Server, tbl *catalog.Table) map[uint64]int {
	t.Helper()
	out := map[uint64]int{}
	q := &storage.Query{Row: tbl.RowRange()}
	for {
		page, err := s.Store.Query(context.Background(), tbl.Physical, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Entities {
			rest, b, err := keys.DecodeUintAscending([]byte(e.PartitionKey))
			if err != nil {
				t.Fatalf("PartitionKey %q has no bucket: %v", e.PartitionKey, err)
			}
			if want := tbl.SaltBucket(string(rest)); int(b) != want {
				t.Errorf("PartitionKey %q in bucket %d, its key hashes to %d", e.PartitionKey, b, want)
			}
			out[b]++
		}
		if page.Continuation == "" {
			return out
		}
		q.Continuation = page.Continuation
	}
}

// TestSaltBuckets: PARTITION BY KEY(id) PARTITIONS 8 (and the comment
// option salt_buckets) salt a table: a growing key is spread over the 8
// buckets, every query answers as on an unsalted twin, point reads cost
// what they cost unsalted, range reads one request per bucket, and ORDER
// BY ... LIMIT reads at most LIMIT entities per bucket.
func TestSaltBuckets(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, s *sqltest.Server) {
		r := s.Use("d",
			"CREATE TABLE s (id INT PRIMARY KEY, g INT, v VARCHAR(20), KEY (g)) PARTITION BY KEY(id) PARTITIONS 8",
			"CREATE TABLE u (id INT PRIMARY KEY, g INT, v VARCHAR(20), KEY (g))",
			"CREATE TABLE ls (dev INT, seq INT, x INT, PRIMARY KEY (dev, seq), KEY (x)) COMMENT 'log sqlgw: salt_buckets=4'",
			"CREATE TABLE lu (dev INT, seq INT, x INT, PRIMARY KEY (dev, seq), KEY (x))")
		var vals, lvals []string
		for i := 1; i <= 200; i++ {
			vals = append(vals, fmt.Sprintf("(%d, %d, 'v%d')", i, i%10, i))
		}
		for d := 1; d <= 12; d++ {
			for q := 1; q <= 10; q++ {
				lvals = append(lvals, fmt.Sprintf("(%d, %d, %d)", d, q, (d*q)%7))
			}
		}
		for _, tb := range []string{"s", "u"} {
			r.Exec("INSERT INTO " + tb + " VALUES " + strings.Join(vals, ","))
		}
		for _, tb := range []string{"ls", "lu"} {
			r.Exec("INSERT INTO " + tb + " VALUES " + strings.Join(lvals, ","))
		}

		// The rows are spread over the 8 (4) buckets.
		for name, n := range map[string]int{"s": 8, "ls": 4} {
			tbl := saltedTable(t, s, name)
			if tbl.Salted() != n {
				t.Fatalf("table %s: %d salt buckets, want %d", name, tbl.Salted(), n)
			}
			counts := bucketCounts(t, s, tbl)
			total := 0
			for b, c := range counts {
				if b >= uint64(n) || c == 0 {
					t.Errorf("table %s: bucket %d holds %d rows", name, b, c)
				}
				total += c
			}
			if len(counts) != n || total != map[string]int{"s": 200, "ls": 120}[name] {
				t.Errorf("table %s: %d rows in %d buckets (%v), want every bucket used", name, total, len(counts), counts)
			}
		}

		// Same answers as the unsalted twin; requests as planned (each
		// line: requests over the unsalted read's, most entities | query).
		checks := saltChecks(t, `
			0 1 | SELECT * FROM %s WHERE id = 42
			0 4 | SELECT * FROM %s WHERE id IN (3, 99, 150, 7)
			0 0 | SELECT * FROM %s WHERE id = 4242
			7 21 | SELECT * FROM %s WHERE id BETWEEN 50 AND 70 ORDER BY id
			7 20 | SELECT * FROM %s WHERE id > 180
			7 40 | SELECT id, v FROM %s ORDER BY id LIMIT 5
			7 24 | SELECT id FROM %s WHERE id >= 100 ORDER BY id LIMIT 3
			7 200 | SELECT * FROM %s
			7 200 | SELECT COUNT(*), SUM(g) FROM %s
			-1 0 | SELECT id FROM %s WHERE g = 3 ORDER BY id
			-1 0 | SELECT id, g FROM %s WHERE g IN (1, 2) AND id < 60 ORDER BY id
			7 200 | SELECT v FROM %s WHERE v LIKE 'v19%%' ORDER BY v
			-1 0 | SELECT id FROM %s FORCE INDEX (g) WHERE g = 4 AND id > 150 ORDER BY id
			7 50 | SELECT id FROM %s IGNORE INDEX (g) WHERE g = 4 AND id > 150 ORDER BY id
		`)
		lchecks := saltChecks(t, `
			0 1 | SELECT * FROM %s WHERE dev = 3 AND seq = 4
			0 10 | SELECT * FROM %s WHERE dev = 3 ORDER BY seq
			0 4 | SELECT * FROM %s WHERE dev = 3 AND seq BETWEEN 2 AND 5
			0 20 | SELECT * FROM %s WHERE dev IN (2, 9) ORDER BY dev, seq
			3 30 | SELECT * FROM %s WHERE dev BETWEEN 4 AND 6 ORDER BY dev, seq
			3 16 | SELECT dev, seq FROM %s ORDER BY dev, seq LIMIT 4
			3 0 | SELECT dev, seq FROM %s WHERE seq = 10 ORDER BY dev
			-1 0 | SELECT dev, seq FROM %s WHERE x = 2 ORDER BY dev, seq
			-1 0 | SELECT dev, seq FROM %s WHERE dev = 5 AND x = 3
		`)
		run := func(salted, plain string, cs []saltCheck) {
			t.Helper()
			for _, c := range cs {
				qs, qu := fmt.Sprintf(c.q, salted), fmt.Sprintf(c.q, plain)
				want := r.Rows(qu)
				if got := r.Rows(qs); !slices.Equal(got, want) {
					t.Errorf("%s:\n got %q\nwant %q (%s)", qs, got, want, qu)
				}
				rs, es := r.Cost(qs)
				ru, eu := r.Cost(qu)
				t.Logf("%s: salted %d requests, %d entities; unsalted %d, %d", c.q, rs, es, ru, eu)
				if c.extra >= 0 && rs != ru+c.extra {
					t.Errorf("%s: %d requests, want %d (unsalted %d + %d buckets)", qs, rs, ru+c.extra, ru, c.extra)
				}
				if c.maxEntities > 0 && es > c.maxEntities {
					t.Errorf("%s: %d entities read, want at most %d", qs, es, c.maxEntities)
				}
			}
		}
		run("s", "u", checks)
		run("ls", "lu", lchecks)

		// Joins between salted tables, and with an unsalted one.
		for _, q := range []string{
			"SELECT a.id, b.id, b.v FROM %[1]s a JOIN %[1]s b ON b.id = a.g + 100 WHERE a.id < 30 ORDER BY a.id",
			"SELECT a.id, b.dev, b.seq FROM %[1]s a JOIN %[2]s b ON b.dev = a.g AND b.seq = a.g WHERE a.id BETWEEN 20 AND 40 ORDER BY a.id",
			"SELECT b.dev, COUNT(*) FROM %[2]s b JOIN %[1]s a ON a.id = b.x * 10 + b.dev GROUP BY b.dev ORDER BY b.dev",
		} {
			want := r.Rows(fmt.Sprintf(q, "u", "lu"))
			for _, pair := range [][2]string{{"s", "ls"}, {"s", "lu"}, {"u", "ls"}} {
				if got := r.Rows(fmt.Sprintf(q, pair[0], pair[1])); !slices.Equal(got, want) {
					t.Errorf("%s:\n got %q\nwant %q", fmt.Sprintf(q, pair[0], pair[1]), got, want)
				}
			}
		}

		// Writes, and a transaction's buffered rows merged in key order.
		for _, tb := range []string{"s", "u"} {
			r.ExpectAffected(11, "UPDATE "+tb+" SET v = 'upd' WHERE id BETWEEN 10 AND 20")
			r.ExpectAffected(5, "DELETE FROM "+tb+" WHERE id > 195")
		}
		txq := "SELECT id, v FROM %s WHERE id > 185 ORDER BY id"
		var txRows [2][]string
		for i, tb := range []string{"s", "u"} {
			r.Exec("BEGIN")
			r.Exec("INSERT INTO " + tb + " VALUES (1000, 0, 'new'), (197, 7, 'x')")
			r.Exec("DELETE FROM " + tb + " WHERE id = 190")
			r.Exec("UPDATE " + tb + " SET v = 'tx' WHERE id = 192")
			txRows[i] = r.Rows(fmt.Sprintf(txq, tb))
			r.Exec("ROLLBACK")
		}
		if !slices.Equal(txRows[0], txRows[1]) {
			t.Errorf("in a transaction: salted %q, unsalted %q", txRows[0], txRows[1])
		}
		// A key update moves a row to another bucket; an index added
		// later is backfilled from every bucket.
		for _, tb := range []string{"s", "u"} {
			r.ExpectAffected(1, "UPDATE "+tb+" SET id = id + 1000 WHERE id = 5")
			r.Exec("CREATE INDEX kv ON " + tb + " (v)")
		}
		if want := r.Rows("SELECT * FROM u ORDER BY id"); !slices.Equal(r.Rows("SELECT * FROM s ORDER BY id"), want) {
			t.Errorf("after the writes the salted table differs from the unsalted one")
		}
		for _, q := range []string{
			"SELECT id FROM %s WHERE v = 'upd' ORDER BY id",
			"SELECT id, v FROM %s WHERE v IN ('v7', 'v150', 'v5') ORDER BY id",
			"SELECT id FROM %s WHERE id = 1005",
		} {
			if got, want := r.Rows(fmt.Sprintf(q, "s")), r.Rows(fmt.Sprintf(q, "u")); !slices.Equal(got, want) || len(want) == 0 {
				t.Errorf("%s: salted %q, unsalted %q", q, got, want)
			}
		}
		if counts := bucketCounts(t, s, saltedTable(t, s, "s")); len(counts) != 8 {
			t.Errorf("after the writes: rows in %d buckets", len(counts))
		}

		// SHOW CREATE TABLE shows the option, and recreating the table
		// from it (a dump) salts it the same way.
		show := r.Rows("SHOW CREATE TABLE s")[0]
		if !strings.Contains(show, "salt_buckets=8") || !strings.Contains(show, "partition_key=(`id`)") {
			t.Errorf("SHOW CREATE TABLE s: %s", show)
		}
		_, ddl, _ := strings.Cut(show, "\t")
		r.Exec(strings.Replace(ddl, "CREATE TABLE `s`", "CREATE TABLE `s2`", 1))
		if n := saltedTable(t, s, "s2").Salted(); n != 8 {
			t.Errorf("recreated from SHOW CREATE TABLE: %d salt buckets, want 8\n%s", n, ddl)
		}
		r.ExpectErrno(1235, "ALTER TABLE s COMMENT 'sqlgw: salt_buckets=4'")
		r.Exec("ALTER TABLE s COMMENT 'just a comment'")
		if show := r.Rows("SHOW CREATE TABLE s")[0]; !strings.Contains(show, "salt_buckets=8") {
			t.Errorf("a new comment dropped the option: %s", show)
		}

		// PARTITION BY HASH(column) is KEY(column); what cannot be mapped
		// is an error, never ignored.
		r.Exec("CREATE TABLE h (id BIGINT PRIMARY KEY, v INT) PARTITION BY HASH(id) PARTITIONS 3")
		if n := saltedTable(t, s, "h").Salted(); n != 3 {
			t.Errorf("PARTITION BY HASH(id) PARTITIONS 3: %d salt buckets", n)
		}
		r.Exec("CREATE TABLE one (id INT PRIMARY KEY) PARTITION BY KEY(id) PARTITIONS 1")
		if n := saltedTable(t, s, "one").Salted(); n != 0 {
			t.Errorf("PARTITIONS 1: %d salt buckets, want none", n)
		}
		for _, q := range sqltest.Lines(`
			CREATE TABLE e1 (id INT PRIMARY KEY) PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN (10))
			CREATE TABLE e3 (id INT PRIMARY KEY) PARTITION BY HASH(id + 1) PARTITIONS 4
			CREATE TABLE e4 (id INT PRIMARY KEY) PARTITION BY KEY(id) PARTITIONS 1000
			CREATE TABLE e6 (id INT PRIMARY KEY) COMMENT 'sqlgw: salt_buckets=4' PARTITION BY KEY(id) PARTITIONS 4
		`) {
			r.ExpectErrno(1235, q)
		}
		if err := r.Try("CREATE TABLE e7 (a INT) COMMENT 'sqlgw: salt_buckets=4'"); err == nil {
			t.Errorf("a keyless table accepted salt_buckets")
		}
		if err := r.Try("CREATE TABLE e8 (id INT PRIMARY KEY) COMMENT 'sqlgw: salt_buckets=0'"); err == nil {
			t.Errorf("salt_buckets=0 accepted")
		}
	})
}

// saltCheck is a query of the salted-table test: extra is the salted
// read's requests minus the unsalted one's (-1: not compared), and
// maxEntities bounds the salted read's entities (0: no bound).
type saltCheck struct {
	q                  string
	extra, maxEntities int64
}

// saltChecks reads checks written one a line, "extra maxEntities | query".
func saltChecks(t *testing.T, text string) []saltCheck {
	t.Helper()
	var out []saltCheck
	for _, l := range sqltest.Lines(text) {
		nums, q, ok := strings.Cut(l, " | ")
		var c saltCheck
		if _, err := fmt.Sscan(nums, &c.extra, &c.maxEntities); err != nil || !ok {
			t.Fatalf("check %q: want EXTRA MAX | QUERY", l)
		}
		c.q = q
		out = append(out, c)
	}
	return out
}
