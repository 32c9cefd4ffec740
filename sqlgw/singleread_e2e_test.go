package sqlgw_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
)

// TestSingleReadWideRow: an autocommit point select from the plan cache
// reads its one entity without a snapshot on Azure Table (no clock read,
// sqlgw/engine/singleread.go), but a row stored in several entities (a
// head and continuations) is read at the statement's snapshot after all:
// one clock read, the head read again at it, then the continuations, so
// the value is whole and current after every update.
func TestSingleReadWideRow(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("d", "CREATE TABLE w (id INT PRIMARY KEY, body LONGTEXT)")
		r := sqltest.NewRunner(t, c)
		small := "short"
		wide := func(n int) string { return strings.Repeat(fmt.Sprintf("%07d|", n), 2<<20/8) } // 2 MiB: several entities
		r.Exec("INSERT INTO w VALUES (1, ?), (2, ?)", small, wide(0))
		_, multi := ts.Store.(storage.MultiBatcher)
		clock := func() int64 {
			var n int64
			for _, line := range r.Rows("SHOW SESSION STATUS LIKE 'Snapshot_clock_reads'") {
				_, v, _ := strings.Cut(line, "\t")
				fmt.Sscan(v, &n)
			}
			return n
		}
		read := func(id int) (string, int64) {
			c0 := clock()
			var got string
			if err := c.QueryRowContext(context.Background(), "SELECT body FROM w WHERE id = ?", id).Scan(&got); err != nil {
				t.Fatal(err)
			}
			return got, clock() - c0
		}
		read(1) // the shape's first execute plans it
		for i := 1; i <= 3; i++ {
			got, clk := read(1)
			if got != small || clk != 0 {
				t.Errorf("narrow row: %q, %d clock reads, want %q, 0", got, clk, small)
			}
			got, clk = read(2)
			wantClk := int64(1)
			if multi {
				wantClk = 0 // Pebble's snapshots are local
			}
			if got != wide(i-1) || clk != wantClk {
				t.Errorf("wide row (update %d): %d bytes starting %.16q, %d clock reads; want %d bytes starting %.16q, %d", i-1, len(got), got, clk, len(wide(i-1)), wide(i-1), wantClk)
			}
			r.Exec("UPDATE w SET body = ? WHERE id = 2", wide(i))
		}
		r.Exec("DELETE FROM w WHERE id = 2")
		var n int
		if err := c.QueryRowContext(context.Background(), "SELECT COUNT(*) FROM w WHERE id = ?", 2).Scan(&n); err != nil || n != 0 {
			t.Errorf("after DELETE: %d rows, %v", n, err)
		}
	})
}
