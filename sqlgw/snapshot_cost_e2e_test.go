package sqlgw_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"

	"github.com/sqlgw/sqlgw/storage"
)

// TestSnapshotCosts: on Pebble snapshot reads send no request of their own
// (a Pebble snapshot is local; the recorder counts none): a point select,
// an autocommit update and the commits of one and two partitions cost what
// they cost before snapshots. On Azure Table a snapshot is one read of the
// clock per statement (per transaction at REPEATABLE READ), counted in
// Snapshot_clock_reads, except for an autocommit point select executed
// directly from the plan cache (from the second execute of its shape in a
// session), whose one Get needs none (sqlgw/engine/singleread.go): it
// costs one request in all. Every commit goes through catalog/txn's
// commit: 2P+3 requests for P partitions through the record, 3 for one
// partition within one batch (the inline path; catalog/txn, "Isolation";
// docs/benchmarks.md, "Snapshot reads").
func TestSnapshotCosts(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("d")
		sqltest.NewRunner(t, c).Exec("CREATE TABLE t (p INT, id INT, v INT, PRIMARY KEY (p, id))")
		var vals []string
		for p := 0; p < 10; p++ {
			vals = append(vals, fmt.Sprintf("(%d, 1, 0)", p))
		}
		sqltest.NewRunner(t, c).Exec("INSERT INTO t VALUES " + strings.Join(vals, ","))
		clock := func() int64 {
			var n int64
			for _, line := range sqltest.NewRunner(t, c).Rows("SHOW SESSION STATUS LIKE 'Snapshot_clock_reads'") {
				_, v, _ := strings.Cut(line, "\t")
				fmt.Sscan(v, &n)
			}
			return n
		}
		steps := func(qs ...string) (reqs, clockReads int64) {
			c0 := clock()
			for _, q := range qs {
				r, _ := sqltest.NewRunner(t, c).Cost(q)
				reqs += r
			}
			return reqs, clock() - c0
		}
		_, multi := ts.Store.(storage.MultiBatcher)
		cases := []struct {
			name string
			qs   []string
			// want: on Pebble (one atomic MultiBatch across partitions)
			// and on Azure (the reads, and the commit: 2P+3 for P
			// partitions, 3 for one), plus one clock read on Azure
			// (none for the point select: noClock).
			pebble, azure int64
			noClock       bool
		}{
			{"point select", []string{"SELECT v FROM t WHERE p = 1 AND id = 1"}, 1, 1, true},
			{"point select, twice", []string{"SELECT v FROM t WHERE p = 1 AND id = 1", "SELECT v FROM t WHERE p = 2 AND id = 1"}, 2, 2, true},
			{"autocommit update of one row", []string{"UPDATE t SET v = v + 1 WHERE p = 1 AND id = 1"}, 2, 1 + 3, false},
			{"transaction: read, update one partition, commit", []string{"BEGIN", "SELECT v FROM t WHERE p = 1 AND id = 1", "UPDATE t SET v = v + 1 WHERE p = 1 AND id = 1", "COMMIT"}, 3, 2 + 3, false},
			{"transaction: update two partitions, commit", []string{"BEGIN", "UPDATE t SET v = v + 1 WHERE p = 1 AND id = 1", "UPDATE t SET v = v - 1 WHERE p = 2 AND id = 1", "COMMIT"}, 3, 2 + 7, false},
			{"sum over 10 partitions", []string{"SELECT SUM(v) FROM t"}, 1, 1, false},
			{"two keys", []string{"SELECT v FROM t WHERE p IN (1, 2) AND id = 1"}, 2, 2, false},
		}
		// The shape's first execute plans it (through go-mysql-server,
		// with a snapshot); the cases run it from the plan cache.
		sqltest.NewRunner(t, c).Rows("SELECT v FROM t WHERE p = 3 AND id = 1")
		for _, tc := range cases {
			got, clockReads := steps(tc.qs...)
			want, wantClock := tc.azure, int64(1)
			if tc.noClock {
				wantClock = 0
			}
			if multi {
				want, wantClock = tc.pebble, 0
			}
			t.Logf("%s: %d requests, %d clock reads", tc.name, got, clockReads)
			if got != want || clockReads != wantClock {
				t.Errorf("%s: %d requests and %d clock reads, want %d and %d", tc.name, got, clockReads, want, wantClock)
			}
		}
	})
}
