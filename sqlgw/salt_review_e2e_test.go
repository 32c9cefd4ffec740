package sqlgw_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
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
			r := s.Runner()
			r.ExecAll("CREATE DATABASE d", "USE d")
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
