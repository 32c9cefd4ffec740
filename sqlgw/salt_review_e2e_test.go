package sqlgw_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
)

// saltTwins creates a salted table and its unsalted twin from one
// definition (%s is the table name, %[2]s the partition clause).
func saltTwins(r *sqltest.Runner, def, part string) {
	r.Exec(fmt.Sprintf(def, "s", part))
	r.Exec(fmt.Sprintf(def, "u", ""))
}

// sameRows runs each query on s and u and fails when they differ.
func sameRows(t *testing.T, r *sqltest.Runner, qs ...string) {
	t.Helper()
	for _, q := range qs {
		got, want := r.Rows(fmt.Sprintf(q, "s")), r.Rows(fmt.Sprintf(q, "u"))
		if !slices.Equal(got, want) {
			t.Errorf("%s:\n salted   %q\n unsalted %q", q, got, want)
		}
	}
}

// TestSaltCollatedKeys: string partition keys under case- and
// accent-insensitive collations: the variants of a key are one key on a
// salted table too (one bucket: duplicates refused, any variant finds
// the row), ranges and orders follow the collation.
func TestSaltCollatedKeys(t *testing.T) {
	for _, coll := range []string{"utf8mb4_0900_ai_ci", "utf8mb4_general_ci", "latin1_swedish_ci", "latin1_bin", "utf8mb4_bin", "utf8mb4_0900_bin"} {
		t.Run(coll, func(t *testing.T) {
			s := sqltest.StartBackend(t, sqltest.Memory, sqltest.Options{})
			r := s.Use("d")
			cs := "utf8mb4"
			if strings.HasPrefix(coll, "latin1") {
				cs = "latin1"
			}
			saltTwins(r, "CREATE TABLE %s (k VARCHAR(20) CHARACTER SET "+cs+" COLLATE "+coll+", n INT, v INT, PRIMARY KEY (k, n)) %s", "PARTITION BY KEY(k) PARTITIONS 7")
			words := []string{"abc", "Abd", "abe", "b", "B ", "cote", "côte", "Côté", "zz", "a", "", "résumé", "Resume", "x y"}
			for i, w := range words {
				for n := 0; n < 3; n++ {
					// Variants equal under the collation are one key:
					// refused alike on both tables.
					es := sqltest.Errno(r.Try("INSERT INTO s VALUES (?, ?, ?)", w, n, i))
					eu := sqltest.Errno(r.Try("INSERT INTO u VALUES (?, ?, ?)", w, n, i))
					if es != eu {
						t.Errorf("INSERT %q, %d: salted error %d, unsalted %d", w, n, es, eu)
					}
				}
			}
			sameRows(t, r,
				"SELECT k, n, v FROM %s ORDER BY k, n",
				"SELECT k, n, v FROM %s ORDER BY k DESC, n DESC",
				"SELECT k, n, v FROM %s WHERE k = 'ABC'",
				"SELECT k, n, v FROM %s WHERE k = 'COTE' ORDER BY n",
				"SELECT k, n, v FROM %s WHERE k = 'resume' ORDER BY n",
				"SELECT k, n, v FROM %s WHERE k IN ('ABE', 'b', 'ZZ') ORDER BY k, n",
				"SELECT k, n, v FROM %s WHERE k BETWEEN 'AB' AND 'C' ORDER BY k, n",
				"SELECT k, n, v FROM %s WHERE k > 'b' ORDER BY k, n LIMIT 4",
				"SELECT k, n, v FROM %s WHERE k < 'côte' ORDER BY k DESC, n DESC LIMIT 5 OFFSET 2",
				"SELECT k, COUNT(*) FROM %s GROUP BY k ORDER BY k",
				"SELECT k, n FROM %s WHERE k = 'b' AND n = 2",
				"SELECT k, n FROM %s WHERE k = 'Résumé' AND n > 0 ORDER BY n",
			)
			// A local index lives in the salted partitions.
			for _, tb := range []string{"s", "u"} {
				r.Exec("CREATE INDEX lv ON " + tb + " (k, v) COMMENT 'sqlgw: local'")
			}
			sameRows(t, r,
				"SELECT k, n, v FROM %s FORCE INDEX (lv) WHERE k = 'ABE' AND v = 2",
				"SELECT k, n, v FROM %s FORCE INDEX (lv) WHERE k = 'b' AND v > 0 ORDER BY n")
			// Writes find their rows through the same reads.
			for _, tb := range []string{"s", "u"} {
				r.Exec("UPDATE " + tb + " SET v = v + 100 WHERE k = 'ABE'")
				r.Exec("DELETE FROM " + tb + " WHERE k IN ('COTE', 'zz ') AND n = 1")
				r.Exec("UPDATE " + tb + " SET k = 'moved' WHERE k = 'b' AND n = 2")
			}
			sameRows(t, r, "SELECT k, n, v FROM %s ORDER BY k, n")
		})
	}
}

// TestSaltWritesAndDDL: unique global indexes, key updates moving rows
// between buckets inside a rolled-back transaction, ORDER BY ... DESC and
// LIMIT/OFFSET through the merge, and the ALTER TABLE paths, each against
// an unsalted twin.
func TestSaltWritesAndDDL(t *testing.T) {
	s := sqltest.StartBackend(t, sqltest.Memory, sqltest.Options{})
	r := s.Use("d")
	saltTwins(r, "CREATE TABLE %s (id INT, g INT, e VARCHAR(20), v INT, PRIMARY KEY (id, g), UNIQUE KEY ue (e), KEY kv (v)) %s", "PARTITION BY KEY(id) PARTITIONS 5")
	var vals []string
	for i := 1; i <= 150; i++ {
		vals = append(vals, fmt.Sprintf("(%d, %d, 'e%d', %d)", i/3, i%3, i, i%11))
	}
	for _, tb := range []string{"s", "u"} {
		r.Exec("INSERT INTO " + tb + " VALUES " + strings.Join(vals, ","))
	}
	reads := sqltest.Lines(`
		SELECT * FROM %s ORDER BY id, g
		SELECT * FROM %s ORDER BY id DESC, g DESC LIMIT 7
		SELECT * FROM %s ORDER BY id DESC, g DESC LIMIT 5 OFFSET 11
		SELECT * FROM %s ORDER BY id, g LIMIT 4 OFFSET 30
		SELECT * FROM %s WHERE id BETWEEN 10 AND 20 ORDER BY id DESC, g
		SELECT * FROM %s WHERE id > 40 ORDER BY id DESC LIMIT 3
		SELECT id, g FROM %s WHERE e = 'e77'
		SELECT id, g, e FROM %s WHERE e IN ('e1', 'e150', 'e99', 'nope') ORDER BY e
		SELECT id, g FROM %s WHERE v = 3 ORDER BY id DESC, g DESC
		SELECT id, g FROM %s WHERE id = 7 ORDER BY g DESC
	`)
	sameRows(t, r, reads...)
	for _, tb := range []string{"s", "u"} {
		if err := r.Try("INSERT INTO " + tb + " VALUES (999, 0, 'e5', 0)"); sqltest.Errno(err) != 1062 {
			t.Errorf("%s: duplicate unique value: %v, want 1062", tb, err)
		}
		if err := r.Try("UPDATE " + tb + " SET e = 'e6' WHERE id = 3 AND g = 1"); sqltest.Errno(err) != 1062 {
			t.Errorf("%s: update to a duplicate unique value: %v, want 1062", tb, err)
		}
	}
	inTx := map[string][]string{}
	for _, tb := range []string{"s", "u"} {
		r.Exec("BEGIN")
		r.Exec("UPDATE " + tb + " SET id = id + 500 WHERE id < 10")
		r.Exec("UPDATE " + tb + " SET e = CONCAT(e, 'x') WHERE id > 500")
		r.Exec("INSERT INTO " + tb + " VALUES (3, 0, 'e9', 1)")
		r.Exec("DELETE FROM " + tb + " WHERE id = 20")
		for _, q := range reads {
			inTx[tb] = append(inTx[tb], strings.Join(r.Rows(fmt.Sprintf(q, tb)), "|"))
		}
		r.Exec("ROLLBACK")
	}
	if !slices.Equal(inTx["s"], inTx["u"]) {
		t.Errorf("inside the transaction:\n salted   %q\n unsalted %q", inTx["s"], inTx["u"])
	}
	sameRows(t, r, reads...)
	for _, tb := range []string{"s", "u"} {
		r.Exec("UPDATE " + tb + " SET id = id + 500 WHERE id < 10")
		r.Exec("UPDATE " + tb + " SET e = CONCAT(e, 'y') WHERE id > 500 AND g = 1")
	}
	sameRows(t, r, reads...)
	sameRows(t, r, "SELECT id, g FROM %s WHERE e = 'e4y'", "SELECT id, g FROM %s WHERE e = 'e4'")

	// ALTER TABLE paths.
	for _, alter := range sqltest.Lines(`
		ALTER TABLE %s ADD INDEX kg (g, v)
		ALTER TABLE %s ADD COLUMN w INT DEFAULT 7
		ALTER TABLE %s DROP INDEX kv
		ALTER TABLE %s DROP PRIMARY KEY, ADD PRIMARY KEY (id, g, v)
		ALTER TABLE %s MODIFY e VARCHAR(30)
		ALTER TABLE %s DROP PRIMARY KEY, ADD PRIMARY KEY (v, id, g)
		ALTER TABLE %s MODIFY id BIGINT
		ALTER TABLE %s RENAME TO %s2
	`) {
		es := sqltest.Errno(r.Try(strings.ReplaceAll(alter, "%s", "s")))
		eu := sqltest.Errno(r.Try(strings.ReplaceAll(alter, "%s", "u")))
		if es != eu {
			t.Errorf("%s: salted error %d, unsalted %d", alter, es, eu)
		}
		t.Logf("%s: error %d", alter, es)
		if strings.Contains(alter, "RENAME") {
			r.Exec("ALTER TABLE s2 RENAME TO s")
			r.Exec("ALTER TABLE u2 RENAME TO u")
		}
		sameRows(t, r, "SELECT * FROM %s ORDER BY id, g", "SELECT * FROM %s WHERE id = 505", "SELECT id, g FROM %s WHERE e = 'e12'",
			"SELECT id FROM %s WHERE id BETWEEN 30 AND 35 ORDER BY id DESC, g DESC")
		if n := saltedTable(t, s, "s").Salted(); n != 5 {
			t.Errorf("after %s: %d salt buckets, want 5", alter, n)
		}
		counts := bucketCounts(t, s, saltedTable(t, s, "s"))
		if len(counts) != 5 {
			t.Errorf("after %s: rows in buckets %v", alter, counts)
		}
	}
	// Dropping the key leaves no partition key to salt: as unsalted.
	es := sqltest.Errno(r.Try("ALTER TABLE s DROP PRIMARY KEY"))
	eu := sqltest.Errno(r.Try("ALTER TABLE u DROP PRIMARY KEY"))
	t.Logf("DROP PRIMARY KEY: salted %d, unsalted %d", es, eu)
	if es == 0 {
		sameRows(t, r, "SELECT * FROM %s ORDER BY id, g, v", "SELECT id, g FROM %s WHERE e = 'e12'")
		show := r.Rows("SHOW CREATE TABLE s")[0]
		t.Logf("%s", show)
	}
}

// TestAnalyzeJoinsSameRows: joins over skewed, NULL-holding, collated
// and salted data return the same rows before and after ANALYZE (which
// hands go-mysql-server's join planner row counts and histograms, and so
// may change the plan).
func TestAnalyzeJoinsSameRows(t *testing.T) {
	r := sqltest.StartBackend(t, sqltest.Memory, sqltest.Options{}).Use("d",
		"CREATE TABLE a (id INT PRIMARY KEY, b INT, c VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, KEY (b), KEY (c))",
		"CREATE TABLE b (id INT PRIMARY KEY, x INT, y INT, KEY (x)) PARTITION BY KEY(id) PARTITIONS 4",
		"CREATE TABLE c (k VARCHAR(10) COLLATE utf8mb4_0900_ai_ci PRIMARY KEY, z INT) COMMENT 'sqlgw: salt_buckets=3'")
	var av, bv, cv []string
	for i := 1; i <= 400; i++ {
		bval := "NULL"
		if i%9 != 0 {
			bval = fmt.Sprint(i % 5) // skewed: few values
			if i > 350 {
				bval = fmt.Sprint(i) // a tail of unique values
			}
		}
		c := []string{"'x'", "'X'", "'Ý'", "'q'", "NULL"}[i%5]
		av = append(av, fmt.Sprintf("(%d, %s, %s)", i, bval, c))
	}
	for i := 1; i <= 300; i++ {
		bv = append(bv, fmt.Sprintf("(%d, %d, %d)", i, i%7, i*3%400))
	}
	for _, k := range []string{"x", "y", "Q", "zz"} {
		cv = append(cv, fmt.Sprintf("('%s', %d)", k, len(k)))
	}
	r.Exec("INSERT INTO a VALUES " + strings.Join(av, ","))
	r.Exec("INSERT INTO b VALUES " + strings.Join(bv, ","))
	r.Exec("INSERT INTO c VALUES " + strings.Join(cv, ","))
	qs := sqltest.Lines(`
		SELECT a.id, b.id FROM a JOIN b ON a.b = b.x WHERE a.id < 200 ORDER BY a.id, b.id
		SELECT a.id, b.id FROM a JOIN b ON a.id = b.y WHERE b.x = 3 ORDER BY a.id, b.id
		SELECT a.id, c.k FROM a JOIN c ON a.c = c.k ORDER BY a.id
		SELECT a.id, c.z FROM a LEFT JOIN c ON a.c = c.k WHERE a.id BETWEEN 90 AND 120 ORDER BY a.id
		SELECT COUNT(*), SUM(b.y) FROM a JOIN b ON a.b = b.x JOIN c ON a.c = c.k
		SELECT b.x, COUNT(a.id) FROM b LEFT JOIN a ON a.b = b.x AND a.id > 300 GROUP BY b.x ORDER BY b.x
		SELECT a.id FROM a WHERE a.b IN (SELECT x FROM b WHERE y > 350) ORDER BY a.id
		SELECT a.id FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.y = a.id) AND (a.b IS NULL OR a.b > 390) ORDER BY a.id
		SELECT a.id, b.id FROM a JOIN b ON a.b = b.id WHERE a.c = 'x' ORDER BY a.id
	`)
	before := map[string][]string{}
	for _, q := range qs {
		before[q] = r.Rows(q)
		if len(before[q]) == 0 {
			t.Errorf("%s: no rows", q)
		}
	}
	r.Exec("ANALYZE TABLE a, b, c")
	for _, q := range qs {
		if got := r.Rows(q); !slices.Equal(got, before[q]) {
			t.Errorf("%s after ANALYZE:\n got  %d rows %q\n want %d rows %q", q, len(got), got, len(before[q]), before[q])
		}
	}
}

// TestSaltTxnCrash: a transaction moving rows between salt buckets (a key
// update, a unique index value changing with it) crashed at every request
// of its commit is all or nothing, and the unique index agrees with the
// rows.
func TestSaltTxnCrash(t *testing.T) {
	sqltest.Long(t) // crashes the store at every request of the commit
	before := []string{"1\t11\ta", "2\t12\tb", "3\t13\tc", "4\t14\td"}
	after := []string{"2\t12\tb", "4\t14\td", "1001\t111\tax", "1003\t113\tcx"}
	sqltest.CrashAtEveryRequest(t, sqltest.Crash{
		Name: "salted key update",
		Setup: func(r *sqltest.Runner, _ storage.Store) {
			r.ExecAll("CREATE DATABASE d", "USE d",
				"CREATE TABLE t (id INT PRIMARY KEY, u INT, v VARCHAR(5), UNIQUE KEY uu (u)) PARTITION BY KEY(id) PARTITIONS 4",
				"INSERT INTO t VALUES (1, 11, 'a'), (2, 12, 'b'), (3, 13, 'c'), (4, 14, 'd')",
				"BEGIN",
				"UPDATE t SET id = id + 1000, u = u + 100, v = CONCAT(v, 'x') WHERE id IN (1, 3)")
		},
		Op: func(r *sqltest.Runner) { r.Try("COMMIT") },
		Check: func(r *sqltest.Runner, _ storage.Store, p sqltest.CrashPoint) {
			r.Exec("USE d")
			got := r.Rows("SELECT id, u, v FROM t ORDER BY id")
			if !slices.Equal(got, before) && !slices.Equal(got, after) {
				t.Errorf("%s: rows %q, want all of the commit or none", p, got)
			}
			for _, u := range []int{11, 12, 13, 14, 111, 113} {
				want := r.Rows("SELECT id FROM t IGNORE INDEX (uu) WHERE u = ?", u)
				if ix := r.Rows("SELECT id FROM t FORCE INDEX (uu) WHERE u = ?", u); !slices.Equal(ix, want) {
					t.Errorf("%s: u = %d: index %q, rows %q", p, u, ix, want)
				}
			}
			if err := r.Try("INSERT INTO t VALUES (5, 15, 'e')"); err != nil {
				t.Errorf("%s: insert after the crash: %v", p, err)
			}
		},
	})
}

// TestSaltPages: more than a page (1,000 entities) per bucket: the merge
// follows each bucket's continuations and keeps key order, LIMIT/OFFSET
// deep into the table included.
func TestSaltPages(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, s *sqltest.Server) {
		sqltest.LongOnAzurite(t) // past several pages of the Table service
		r := s.Use("d")
		saltTwins(r, "CREATE TABLE %s (id INT PRIMARY KEY, g INT) %s", "PARTITION BY KEY(id) PARTITIONS 2")
		for lo := 1; lo <= 2501; lo += 500 {
			var vals []string
			for i := lo; i < lo+500; i++ {
				vals = append(vals, fmt.Sprintf("(%d, %d)", i, i%13))
			}
			for _, tb := range []string{"s", "u"} {
				r.Exec("INSERT INTO " + tb + " VALUES " + strings.Join(vals, ","))
			}
		}
		counts := bucketCounts(t, s, saltedTable(t, s, "s"))
		if counts[0] <= 1000 || counts[1] <= 1000 {
			t.Fatalf("buckets %v: want more than a page in each", counts)
		}
		sameRows(t, r,
			"SELECT COUNT(*), SUM(id), MIN(id), MAX(id) FROM %s",
			"SELECT GROUP_CONCAT(id ORDER BY id) FROM (SELECT id FROM %s ORDER BY id) x",
			"SELECT id, g FROM %s ORDER BY id LIMIT 5 OFFSET 2500",
			"SELECT id, g FROM %s WHERE id > 900 ORDER BY id LIMIT 3 OFFSET 1500",
			"SELECT id FROM %s WHERE id BETWEEN 100 AND 2500 AND g = 4 ORDER BY id DESC LIMIT 10",
		)
		// Key order straight from the merge (no sort above it).
		ids := r.Rows("SELECT id FROM s")
		if len(ids) != 3000 {
			t.Fatalf("SELECT id FROM s: %d rows, want 3000", len(ids))
		}
		for i, id := range ids {
			if id != fmt.Sprint(i+1) {
				t.Fatalf("SELECT id FROM s: row %d is %s, want key order", i, id)
			}
		}
	})
}

// TestSaltCreateLike: CREATE TABLE ... LIKE copies the table's comment,
// as MySQL does, and with it the sqlgw options (salt_buckets,
// partition_key): the copy is salted and keyed like its source.
func TestSaltCreateLike(t *testing.T) {
	s := sqltest.StartBackend(t, sqltest.Memory, sqltest.Options{})
	r := s.Use("d",
		"CREATE TABLE src (a INT, b INT, c INT, PRIMARY KEY (a, b)) PARTITION BY KEY(a) PARTITIONS 3",
		"CREATE TABLE dst LIKE src",
		"CREATE TABLE c1 (a INT PRIMARY KEY) COMMENT 'hello'",
		"CREATE TABLE c2 LIKE c1",
		"CREATE TABLE sd (a INT, b INT, PRIMARY KEY (a DESC, b))",
		"CREATE TABLE dd LIKE sd")
	if pk := saltedTable(t, s, "dd").PrimaryKey; !pk[0].Desc || pk[1].Desc {
		t.Errorf("CREATE TABLE dd LIKE sd: primary key %+v, want a DESC, b", pk)
	}
	if n := saltedTable(t, s, "dst").Salted(); n != 3 {
		t.Errorf("CREATE TABLE dst LIKE src: %d salt buckets, want 3", n)
	}
	if got, want := saltedTable(t, s, "dst").PartitionKey, saltedTable(t, s, "src").PartitionKey; !slices.Equal(got, want) {
		t.Errorf("CREATE TABLE dst LIKE src: partition key %q, want %q", got, want)
	}
	if c := saltedTable(t, s, "c2").Comment; c != "hello" {
		t.Errorf("CREATE TABLE c2 LIKE c1: comment %q, want hello", c)
	}
	r.Exec("INSERT INTO dst VALUES (1, 2, 3), (4, 5, 6)")
	r.ExpectRows("SELECT * FROM dst WHERE a = 4", "4\t5\t6")
}

// TestSaltDropPrimaryKey: DROP PRIMARY KEY on an empty salted table (or
// one with a partition_key option) is 1235: the key options in its
// comment would outlive the key, and SHOW CREATE TABLE would print a
// table that cannot be created (salt_buckets on a keyless table) or one
// keyed differently (partition_key naming a column the new key does not
// lead with).
func TestSaltDropPrimaryKey(t *testing.T) {
	s := sqltest.StartBackend(t, sqltest.Memory, sqltest.Options{})
	r := s.Use("d",
		"CREATE TABLE e1 (id INT, g INT, PRIMARY KEY (id)) PARTITION BY KEY(id) PARTITIONS 3",
		"CREATE TABLE e2 (id INT, g INT, PRIMARY KEY (id, g)) COMMENT 'sqlgw: partition_key=(id)'",
		"CREATE TABLE e3 (id INT, g INT, PRIMARY KEY (id)) COMMENT 'sqlgw: salt_buckets=3'",
		"CREATE TABLE ok (id INT, g INT, PRIMARY KEY (id))")
	r.Script(`
		error 1235 ALTER TABLE e1 DROP PRIMARY KEY
		error 1235 ALTER TABLE e2 DROP PRIMARY KEY, ADD PRIMARY KEY (g, id)
		error 1235 ALTER TABLE e3 DROP PRIMARY KEY, ADD PRIMARY KEY (g, id)
		exec ALTER TABLE ok DROP PRIMARY KEY, ADD PRIMARY KEY (g, id)
	`)
	for _, tb := range []string{"e1", "e2", "e3", "ok"} {
		show := r.Rows("SHOW CREATE TABLE " + tb)[0]
		_, ddl, _ := strings.Cut(show, "\t")
		r.Exec(strings.Replace(ddl, "CREATE TABLE `"+tb+"`", "CREATE TABLE `x"+tb+"`", 1))
		if a, b := saltedTable(t, s, tb), saltedTable(t, s, "x"+tb); a.Salted() != b.Salted() || !slices.Equal(a.PartitionKey, b.PartitionKey) {
			t.Errorf("%s reloaded from SHOW CREATE TABLE: %d buckets, partition key %q; was %d, %q", tb, b.Salted(), b.PartitionKey, a.Salted(), a.PartitionKey)
		}
	}
}
