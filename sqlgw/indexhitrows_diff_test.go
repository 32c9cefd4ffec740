package sqlgw_test

import (
	"context"
	gosql "database/sql"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/catalog/ixmaint"
	"github.com/sqlgw/sqlgw/sqlgw/engine"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
)

// TestIndexHitRowsDifferential: an IN list on a non-unique global index
// reads its index hits as rows of the properties that name their base
// rows (sqlgw/engine/joinbatch_index.go, multiQueryHitRows:
// storage.MultiRowQuerier through the wrapper chain, no property map per
// index entity; sysbench's select_random_points) and gives exactly what
// reading them as entities gives (engine.SetIndexHitRows(false)): the
// result (rows in order, column metadata, errors, warnings), the requests
// sent (the recorder's trace, whose index queries' projection alone
// differs), the session's request and entity counters; prepared and as
// text, with duplicates, NULLs and values of other types; an index
// partition longer than a page (its further pages by continuation); rows
// whose index value changed, some deleted; a stale index entity (not an
// answer, repaired either way); a pending index entity handed over from
// another row (the answer through its previous holder: ixmaint's
// candidates); inside a transaction with its own writes to the rows read;
// and in a transaction's snapshot while another session commits to them.
// engine.IndexHitRowReads proves the rows path ran on the embedded store:
// the test fails if the read silently falls back to entities.
func TestIndexHitRowsDifferential(t *testing.T) {
	ts := sqltest.StartBackend(t, sqltest.Memory, sqltest.Options{})
	defer engine.SetIndexHitRows(true)
	var ins strings.Builder
	ins.WriteString("INSERT INTO t VALUES ")
	for i := 1; i <= 150; i++ {
		if i > 1 {
			ins.WriteByte(',')
		}
		k := fmt.Sprint(i % 13)
		if i%17 == 0 {
			k = "NULL"
		}
		fmt.Fprintf(&ins, "(%d, %s, 'c%d', 'pad%d')", i, k, i, i)
	}
	a := ts.Session("hr",
		"CREATE TABLE t (id INT PRIMARY KEY, k INT, c VARCHAR(30), pad VARCHAR(30), KEY k_1 (k))",
		ins.String(),
		// An index partition of more than a page (storage.MaxPageSize,
		// 1,000 entities): k = 500.
		"INSERT INTO t SELECT id + 1000, 500, c, pad FROM t",
		"INSERT INTO t SELECT id + 2000, 500, c, pad FROM t WHERE k = 500",
		"INSERT INTO t SELECT id + 4000, 500, c, pad FROM t WHERE k = 500",
		"INSERT INTO t SELECT id + 8000, 500, c, pad FROM t WHERE k = 500",
		// Rows whose index value changed, some deleted.
		"UPDATE t SET k = k + 20 WHERE id % 5 = 1 AND id < 150",
		"DELETE FROM t WHERE id % 11 = 3 AND id < 150",
		"ANALYZE TABLE t")
	b := ts.Conn()
	sqltest.NewRunner(t, b).Exec("USE hr")

	// The requests sent (the catalog's background reads aside), the
	// projections cut off.
	sel := regexp.MustCompile(` (select|marks)=\[[^\]]*\]`)
	sent := func(lines []string) string {
		var out []string
		for _, l := range lines {
			if !strings.Contains(l, "sqlgwcatalog") && !strings.Contains(l, "sqlgwviews") {
				out = append(out, sel.ReplaceAllString(l, ""))
			}
		}
		return strings.Join(out, "\n")
	}
	// run runs q both ways (after a first run, so that both are plan
	// cache hits) and returns the result; same: the requests too.
	run := func(c *gosql.Conn, same bool, q string, args ...any) string {
		t.Helper()
		r := sqltest.NewRunner(t, c)
		diffRun(c, q, args...)
		var outs, traces [2]string
		var costs [2][2]int64
		for i, on := range []bool{true, false} {
			engine.SetIndexHitRows(on)
			r0, e0 := r.Status()
			lines := ts.Requests(func() { outs[i] = diffRun(c, q, args...) + diffRun(c, "SHOW WARNINGS") })
			r1, e1 := r.Status()
			traces[i], costs[i] = sent(lines), [2]int64{r1 - r0, e1 - e0}
		}
		engine.SetIndexHitRows(true)
		if outs[0] != outs[1] {
			t.Errorf("%s %v: hits as rows\n%s\nas entities\n%s", q, args, outs[0], outs[1])
		}
		if same && (traces[0] != traces[1] || costs[0] != costs[1]) {
			t.Errorf("%s %v: hits as rows sent\n%s\n(requests, entities %v); as entities\n%s\n(%v)", q, args, traces[0], costs[0], traces[1], costs[1])
		}
		return outs[0]
	}
	ks := [][]any{{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {3, 3, 21, nil, 99, 0, 12, 22, 7, 1}, {"4", 5.5, -1, 1e20, " 6", 2, 2, 2, 30, 31}, {500, 1, 2, 3, 4, 5, 6, 7, 8, 9}}
	shapes := []string{
		"SELECT id, k, c, pad FROM t WHERE k IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		"SELECT c FROM t WHERE k IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		"SELECT pad, id FROM t WHERE k IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ORDER BY id DESC",
		"SELECT COUNT(*), SUM(id) FROM t WHERE k IN (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
	}
	check := func(c *gosql.Conn, byRows bool) {
		t.Helper()
		n0 := engine.IndexHitRowReads()
		for _, s := range shapes {
			for _, args := range ks {
				run(c, true, s, args...)
			}
		}
		run(c, true, "SELECT id, k, c, pad FROM t WHERE k IN (1, 2, 3, 21, 22, 500)")
		if byRows && engine.IndexHitRowReads() == n0 {
			t.Error("no index read's hits went by rows")
		}
	}
	check(a, true)

	tbl := sqltest.StoreTable(t, ts.Store, ts.Catalog, "hr", "t")
	entityOf := func(id int64) *storage.Entity {
		t.Helper()
		_, _, es := indexEntities(t, txnView(t, ts.Store, ts.Catalog), tbl, "k_1")
		for _, e := range es {
			if baseID(t, tbl, e) == id {
				return e
			}
		}
		t.Fatalf("no index entity of row %d", id)
		return nil
	}
	ix := tbl.Index("k_1")

	// A stale index entity (row 2 claimed at k = 99), made again before
	// each way's read (the read repairs it): not an answer either way.
	stale := func() {
		t.Helper()
		e := entityOf(2)
		fake, err := tbl.IndexEntity(ix, e.Properties[catalog.PropBasePK].Str(), e.Properties[catalog.PropBaseRK].Str(),
			[]catalog.Datum{int64(2), int64(99), nil, nil})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ts.Store.Upsert(context.Background(), ix.Physical, fake, storage.Replace); err != nil {
			t.Fatal(err)
		}
	}
	sq := "SELECT id, k, c FROM t WHERE k IN (?, ?, ?)"
	diffRun(a, sq, 99, 3, 4)
	var staleOut [2]string
	n0 := engine.IndexHitRowReads()
	for i, on := range []bool{true, false} {
		engine.SetIndexHitRows(on)
		stale()
		staleOut[i] = diffRun(a, sq, 99, 3, 4)
		_, _, es := indexEntities(t, txnView(t, ts.Store, ts.Catalog), tbl, "k_1")
		for _, e := range es {
			if _, _, row, err := tbl.DecodeIndexEntity(ix, e); err == nil && row[1] == int64(99) {
				t.Errorf("hits as rows %v: the stale index entity was not repaired", on)
			}
		}
	}
	engine.SetIndexHitRows(true)
	if staleOut[0] != staleOut[1] || strings.Contains(staleOut[0], "99") {
		t.Errorf("a stale index entity: hits as rows\n%s\nas entities\n%s", staleOut[0], staleOut[1])
	}
	if engine.IndexHitRowReads() == n0 {
		t.Error("the read with a stale index entity did not read its hits as rows")
	}

	// A pending index entity handed over from row 4 to row 6 (as a
	// transaction moving the value leaves it until resolved): row 4's
	// entity names row 6 as its base and row 4 as the previous holder,
	// and row 4 still implies it: the answer through the previous holder.
	e4, e6 := entityOf(4), entityOf(6)
	h := &storage.Entity{PartitionKey: e4.PartitionKey, RowKey: e4.RowKey, Properties: storage.Properties{}}
	for p, v := range e4.Properties {
		h.Properties[p] = v
	}
	h.Properties[catalog.PropBasePK], h.Properties[catalog.PropBaseRK] = e6.Properties[catalog.PropBasePK], e6.Properties[catalog.PropBaseRK]
	h.Properties[ixmaint.PropPrevPK], h.Properties[ixmaint.PropPrevRK] = e4.Properties[catalog.PropBasePK], e4.Properties[catalog.PropBaseRK]
	h.Properties[ixmaint.PropPending] = storage.Int64(time.Now().UnixMicro())
	if _, err := ts.Store.Upsert(context.Background(), ix.Physical, h, storage.Replace); err != nil {
		t.Fatal(err)
	}
	if out := run(a, true, "SELECT id FROM t WHERE k IN (?, ?, ?) ORDER BY id", 4, 100, 101); !strings.Contains(out, "\n\"4\"\n") {
		t.Errorf("the handed-over entity's previous holder is not an answer:\n%s", out)
	}

	// Inside a transaction with its own writes to the rows read.
	ra := sqltest.NewRunner(t, a)
	ra.Exec("BEGIN")
	ra.Exec("UPDATE t SET k = 3, c = 'upd' WHERE id IN (1, 7, 30)")
	ra.Exec("DELETE FROM t WHERE id IN (5, 17)")
	ra.Exec("INSERT INTO t (id, k, c) VALUES (999, 5, 'new')")
	check(a, false)
	ra.Exec("ROLLBACK")

	// In a snapshot (REPEATABLE READ, taken by the first read) while
	// another session commits to the rows.
	ra.Exec("BEGIN")
	first := run(a, true, "SELECT id, k, c FROM t WHERE k IN (1, 2, 3)")
	rb := sqltest.NewRunner(t, b)
	rb.Exec("UPDATE t SET k = 2, c = 'moved' WHERE id IN (5, 6, 40)")
	rb.Exec("DELETE FROM t WHERE k = 1 AND id < 60")
	rb.Exec("INSERT INTO t (id, k, c) VALUES (901, 3, 'other')")
	if again := run(a, true, "SELECT id, k, c FROM t WHERE k IN (1, 2, 3)"); again != first {
		t.Errorf("the snapshot changed:\n%s\nthen\n%s", first, again)
	}
	check(a, true)
	ra.Exec("COMMIT")
	check(a, true)
	check(b, true)
}
