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
// Snapshot_clock_reads, and every commit goes through catalog/txn's
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
			// partitions, 3 for one), plus one clock read on Azure.
			pebble, azure int64
		}{
			{"point select", []string{"SELECT v FROM t WHERE p = 1 AND id = 1"}, 1, 1},
			{"autocommit update of one row", []string{"UPDATE t SET v = v + 1 WHERE p = 1 AND id = 1"}, 2, 1 + 3},
			{"transaction: read, update one partition, commit", []string{"BEGIN", "SELECT v FROM t WHERE p = 1 AND id = 1", "UPDATE t SET v = v + 1 WHERE p = 1 AND id = 1", "COMMIT"}, 3, 2 + 3},
			{"transaction: update two partitions, commit", []string{"BEGIN", "UPDATE t SET v = v + 1 WHERE p = 1 AND id = 1", "UPDATE t SET v = v - 1 WHERE p = 2 AND id = 1", "COMMIT"}, 3, 2 + 7},
			{"sum over 10 partitions", []string{"SELECT SUM(v) FROM t"}, 1, 1},
		}
		for _, tc := range cases {
			got, clockReads := steps(tc.qs...)
			want, wantClock := tc.azure, int64(1)
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
