package sqlgw_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// backwards matches a query read backwards in EXPLAIN (planner.FormatQuery).
var backwards = regexp.MustCompile(`query .* reverse([;\s]|$)`)

// TestReverseOrder: ORDER BY the reverse of the key order with a LIMIT
// (within a partition, across the whole key, on a one-column key, through
// an ascending secondary index) returns MySQL's rows on both backends, and
// on Pebble, which reads backwards (storage.Capabilities.Reverse), costs
// LIMIT entities: the plan says "reverse". Azure cannot read backwards: the
// same queries read forward and the engine sorts. Buffered writes of a
// transaction are merged in the reverse order.
func TestReverseOrder(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, s *sqltest.Server) {
		back := s.Store.Capabilities().Reverse
		c := s.Session("d", `
			CREATE TABLE ev (dev INT, ts INT, v INT, PRIMARY KEY (dev, ts))
			CREATE TABLE k (id INT PRIMARY KEY, v INT)
			CREATE TABLE x (id INT PRIMARY KEY, b INT, KEY kb (b))`)
		r := sqltest.NewRunner(t, c)
		var ev, k, x []string
		for i := range 200 {
			ev = append(ev, fmt.Sprintf("(%d, %d, %d)", i%4, i/4, i))
			k = append(k, fmt.Sprintf("(%d, %d)", i, i))
			x = append(x, fmt.Sprintf("(%d, %d)", i, i*7%200))
		}
		r.Exec("INSERT INTO ev VALUES " + strings.Join(ev, ", "))
		r.Exec("INSERT INTO k VALUES " + strings.Join(k, ", "))
		r.Exec("INSERT INTO x VALUES " + strings.Join(x, ", "))
		r.Exec("INSERT INTO x VALUES (1000, NULL)")

		cases := []struct {
			q    string
			want []string
			// on Pebble: requests and entities at most
			reqs, ents int64
		}{
			{"SELECT ts FROM ev WHERE dev = 2 ORDER BY ts DESC LIMIT 3", []string{"49", "48", "47"}, 1, 3},
			{"SELECT ts FROM ev WHERE dev = 2 AND ts < 10 ORDER BY ts DESC LIMIT 2", []string{"9", "8"}, 1, 2},
			{"SELECT dev, ts FROM ev ORDER BY dev DESC, ts DESC LIMIT 2", []string{"3\t49", "3\t48"}, 1, 2},
			{"SELECT dev, ts FROM ev WHERE dev IN (1, 2) ORDER BY dev DESC, ts DESC LIMIT 2", []string{"2\t49", "2\t48"}, 2, 4},
			{"SELECT id FROM k ORDER BY id DESC LIMIT 2", []string{"199", "198"}, 1, 2},
			{"SELECT id FROM k WHERE id < 100 ORDER BY id DESC LIMIT 2", []string{"99", "98"}, 1, 2},
			{"SELECT id, b FROM x ORDER BY b DESC LIMIT 3", []string{"57\t199", "114\t198", "171\t197"}, 4, 6},
			{"SELECT id FROM k WHERE id IN (3, 5, 4) ORDER BY id DESC", []string{"5", "4", "3"}, 3, 3},
		}
		for _, tc := range cases {
			r.ExpectRows(tc.q, tc.want...)
			plan := strings.Join(r.Rows("EXPLAIN PLAN "+tc.q), "\n")
			reqs, ents := r.Cost(tc.q)
			if !back {
				if backwards.MatchString(plan) {
					t.Errorf("%s: a backwards read on a store that cannot:\n%s", tc.q, plan)
				}
				continue
			}
			if !backwards.MatchString(plan) && !strings.Contains(tc.q, " IN (3") {
				t.Errorf("%s: no backwards read:\n%s", tc.q, plan)
			}
			if reqs > tc.reqs || ents > tc.ents {
				t.Errorf("%s: %d requests, %d entities; want at most %d, %d\n%s", tc.q, reqs, ents, tc.reqs, tc.ents, plan)
			}
		}
		// NULLs sort last under DESC, first under ASC, however the index is read.
		r.Script(`
			query SELECT id FROM x ORDER BY b DESC, id DESC LIMIT 1
			= 57
			query SELECT id FROM x ORDER BY b, id LIMIT 2
			= 1000
			= 0
			query SELECT COUNT(*) FROM (SELECT id FROM x ORDER BY b DESC LIMIT 300) s
			= 201
			query SELECT id FROM (SELECT id, b FROM x ORDER BY b DESC LIMIT 201) s WHERE b IS NULL
			= 1000

			# A transaction's buffered writes merge in the reverse order.
			exec BEGIN
			exec INSERT INTO ev VALUES (2, 100, 0), (2, 47, -1) ON DUPLICATE KEY UPDATE v = -1
			exec DELETE FROM ev WHERE dev = 2 AND ts = 49
			query SELECT ts, v FROM ev WHERE dev = 2 ORDER BY ts DESC LIMIT 4
			= 100 | 0
			= 48 | 194
			= 47 | -1
			= 46 | 186
			query SELECT dev, ts FROM ev ORDER BY dev DESC, ts DESC LIMIT 2
			= 3 | 49
			= 3 | 48
			exec UPDATE ev SET v = 7 WHERE dev = 2 ORDER BY ts DESC LIMIT 2
			query SELECT ts FROM ev WHERE dev = 2 AND v = 7 ORDER BY ts
			= 48
			= 100
			exec ROLLBACK
			query SELECT ts, v FROM ev WHERE dev = 2 ORDER BY ts DESC LIMIT 2
			= 49 | 198
			= 48 | 194
			affected 2 DELETE FROM ev WHERE dev = 1 ORDER BY ts DESC LIMIT 2
			query SELECT ts FROM ev WHERE dev = 1 ORDER BY ts DESC LIMIT 1
			= 47

			# A salted table (SALT_BUCKETS): each bucket's query reads
			# backwards and the buckets merge in descending key order.
			exec CREATE TABLE s (id INT PRIMARY KEY, v INT) PARTITION BY KEY(id) PARTITIONS 8
			exec INSERT INTO s SELECT id, v FROM k
		`)
		q := "SELECT id FROM s ORDER BY id DESC LIMIT 3"
		r.ExpectRows(q, "199", "198", "197")
		r.ExpectRows("SELECT id FROM s WHERE id BETWEEN 50 AND 120 ORDER BY id DESC LIMIT 2", "120", "119")
		if back {
			plan := strings.Join(r.Rows("EXPLAIN PLAN "+q), "\n")
			if reqs, ents := r.Cost(q); !backwards.MatchString(plan) || reqs > 8 || ents > 24 {
				t.Errorf("%s: %d requests, %d entities; want a backwards read of at most 8, 24\n%s", q, reqs, ents, plan)
			}
		}

		// Wide rows: a backwards read meets a row's continuation entities
		// before its main entity.
		r.Exec("CREATE TABLE w (id INT, seq INT, body LONGTEXT, PRIMARY KEY (id, seq))")
		for i := 1; i <= 3; i++ {
			r.Exec(fmt.Sprintf("INSERT INTO w VALUES (1, %d, REPEAT('%d', %d))", i, i, 1_200_000+i))
		}
		r.ExpectRows("SELECT seq, LENGTH(body), LEFT(body, 2) FROM w WHERE id = 1 ORDER BY seq DESC LIMIT 2",
			"3\t1200003\t33", "2\t1200002\t22")
	})
}
