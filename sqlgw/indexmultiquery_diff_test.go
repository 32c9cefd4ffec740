package sqlgw_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"testing"

	pebbledb "github.com/cockroachdb/pebble/v2"

	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/sqlgw/engine"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// TestIndexMultiQueryDifferential: an IN list on a non-unique global index
// reads its index partitions' first pages in one storage.MultiQuery call
// on the embedded store (sqlgw/engine/joinbatch_index.go, multiQueryHits;
// storage/pebble's MultiQuery: one iterator). Two servers run the same
// statements in lockstep, one with that read and one with the queries sent
// one by one and each hit's row read with its own Get, not in one
// storage.MultiGet call (sqlgw/engine/indexhits.go; both turned off by
// engine.SetIndexMultiQuery(false)), and every outcome is
// compared (rows in order, column metadata, errors, warnings): prepared and
// text IN lists with duplicates, NULLs, values of other types (strings,
// fractions, huge and negative numbers), a case-insensitive collated
// string index (case and trailing-space variants), an index partition
// longer than a page (continuations), rows whose index value changed,
// batched lookup joins through the index (a block's lookups one plan),
// inside a transaction with its own buffered writes to the table, and at
// a transaction's snapshot while another session changes the rows. The
// fast server's store also reads the index partitions by prefix through
// their partition bloom filters (storage/pebble prefix.go), the slow
// one's with plain seeks. The fast read must have been used, and the
// filters must have ruled out index files.
func TestIndexMultiQueryDifferential(t *testing.T) {
	type server struct{ a, b *sql.Conn }
	// The fast server's store lays global indexes out for reads by
	// partition (storage/pebble prefix.go: partition bloom filters, the
	// index partitions read with prefix seeks); the slow one's runs with
	// Pebble's default comparer and no filters (Options.Pebble), so its
	// reads seek as before.
	fastStore, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	slowStore, err := pebble.Open("", &pebble.Options{InMemory: true, Pebble: &pebbledb.Options{}})
	if err != nil {
		t.Fatal(err)
	}
	open := func(st storage.Store) server {
		srv := memoryServerOn(t, st, sqlgw.Config{})
		host, port, _ := net.SplitHostPort(srv.Addr().String())
		db, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/", net.JoinHostPort(host, port)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		var s server
		for _, c := range []**sql.Conn{&s.a, &s.b} {
			if *c, err = db.Conn(context.Background()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { (*c).Close() })
		}
		return s
	}
	fast, slow := open(fastStore), open(slowStore)
	// on runs q on session b (the other one) instead of a when other.
	on := func(other bool, q string, args ...any) string {
		ca, cb := fast.a, slow.a
		if other {
			ca, cb = fast.b, slow.b
		}
		a := diffRun(ca, q, args...)
		restore := engine.SetIndexMultiQuery(false)
		b := diffRun(cb, q, args...)
		restore()
		if a != b {
			t.Fatalf("%s %v\nwith one MultiQuery:\n%s\nquery by query:\n%s", q, args, a, b)
		}
		return a
	}
	both := func(q string, args ...any) string { return on(false, q, args...) }
	for _, q := range []string{
		"CREATE DATABASE mq", "USE mq",
		"CREATE TABLE t (id INT PRIMARY KEY, k INT, s VARCHAR(20) COLLATE utf8mb4_general_ci, c VARCHAR(30), KEY k_1 (k), KEY s_1 (s))",
	} {
		both(q)
	}
	on(true, "USE mq")
	words := []string{"a", "A", "a ", "b", "B", "é", "e", "E", "ab", "Ab", "zz", "ß", "ss", "5", "-3"}
	for i := range 120 {
		var k any = i % 13
		if i%17 == 0 {
			k = nil
		}
		both("INSERT INTO t VALUES (?, ?, ?, ?)", i, k, words[i%len(words)], fmt.Sprintf("c%d", i))
	}
	// An index partition of more than a page (storage.MaxPageSize, 1,000
	// entities): k = 500.
	both("INSERT INTO t SELECT id + 1000, 500, s, c FROM t")
	for range 4 {
		both("INSERT INTO t SELECT id + (SELECT MAX(id) FROM t), 500, s, c FROM t WHERE k = 500")
	}
	both("SELECT COUNT(*) FROM t WHERE k = 500")
	// Rows whose index value changed (old entities replaced), some deleted.
	both("UPDATE t SET k = k + 20 WHERE id % 5 = 1 AND id < 120")
	both("DELETE FROM t WHERE id % 11 = 3 AND id < 120")

	r := rand.New(rand.NewPCG(5, 6))
	intVal := func() any {
		switch r.IntN(12) {
		case 0:
			return nil
		case 1:
			return "7"
		case 2:
			return 3.5
		case 3:
			return 1e30
		case 4:
			return -1
		case 5:
			return 500
		case 6:
			return " 4"
		}
		return r.IntN(36)
	}
	strVal := func() any {
		if r.IntN(8) == 0 {
			return nil
		}
		return words[r.IntN(len(words))] + strings.Repeat(" ", r.IntN(2))
	}
	args := func(n int, f func() any) []any {
		a := make([]any, n)
		for i := range a {
			a[i] = f()
		}
		return a
	}
	marks := func(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }
	lits := func(a []any) string {
		var sb strings.Builder
		for i, v := range a {
			if i > 0 {
				sb.WriteString(", ")
			}
			switch v := v.(type) {
			case nil:
				sb.WriteString("NULL")
			case string:
				sb.WriteString("'" + v + "'")
			default:
				fmt.Fprint(&sb, v)
			}
		}
		return sb.String()
	}
	// The fast store's index partitions in a table file with its filter
	// (the memtable has none), the slow one's alike.
	for _, st := range []*pebble.Store{fastStore, slowStore} {
		if err := st.DB().Flush(); err != nil {
			t.Fatal(err)
		}
	}
	h0 := fastStore.DB().Metrics().Filter.Hits
	m0, g0 := engine.IndexMultiQueries(), engine.IndexMultiGets()
	reads := func() {
		for range 25 {
			a := args(10, intVal)
			both("SELECT id, k, s, c FROM t WHERE k IN ("+marks(10)+")", a...)
			both("SELECT id, k, s, c FROM t WHERE k IN (" + lits(a) + ")")
			a = args(3, intVal)
			both("SELECT id, k FROM t WHERE k IN ("+marks(3)+") AND c <> 'c7'", a...)
			a = args(4, strVal)
			both("SELECT id, s FROM t WHERE s IN ("+marks(4)+")", a...)
			both("SELECT id, s FROM t WHERE s IN (" + lits(a) + ")")
			both("SELECT id, k FROM t WHERE k IN ("+marks(3)+") ORDER BY id DESC LIMIT 4", args(3, intVal)...)
		}
	}
	reads()
	if fastStore.DB().Metrics().Filter.Hits == h0 {
		t.Error("no index partition read was ruled out by a partition filter")
	}
	// Lookup joins through k_1: a block of outer rows is one index plan
	// with a query per key (readIndexHits).
	both("CREATE TABLE u (id INT PRIMARY KEY, v INT)")
	for i := range 40 {
		var v any = (i * 7) % 40
		if i%9 == 0 {
			v = nil
		}
		both("INSERT INTO u VALUES (?, ?)", i, v)
	}
	both("INSERT INTO u VALUES (100, 500), (101, 500)")
	both("ANALYZE TABLE t, u")
	j0 := engine.IndexMultiQueries()
	for _, q := range []string{
		"SELECT u.id, t.id, t.k FROM u JOIN t ON t.k = u.v WHERE u.id < 30 ORDER BY u.id, t.id",
		"SELECT /*+ LOOKUP_JOIN(u, t) */ u.id, t.id, t.c FROM u JOIN t ON t.k = u.v WHERE u.id < 8",
		"SELECT /*+ LOOKUP_JOIN(u, t) */ u.id, t.id FROM u JOIN t ON t.k = u.v WHERE u.id IN (1, 2, 9, 10, 11)",
		"SELECT /*+ LOOKUP_JOIN(u, t) */ COUNT(*) FROM u JOIN t ON t.k = u.v",
		"SELECT u.id, COUNT(t.id) FROM u LEFT JOIN t ON t.k = u.v WHERE u.id < 12 GROUP BY u.id ORDER BY u.id",
	} {
		both(q)
	}
	if engine.IndexMultiQueries() == j0 {
		t.Error("no lookup join read k_1 in one MultiQuery")
	}
	// A transaction with its own buffered writes to the table.
	both("BEGIN")
	both("UPDATE t SET k = 3 WHERE id IN (4, 8, 1500)")
	both("INSERT INTO t VALUES (9001, 4, 'new', 'n'), (9002, 500, 'NEW', 'n')")
	both("DELETE FROM t WHERE id IN (6, 19)")
	reads()
	both("ROLLBACK")
	// At a transaction's snapshot while the other session changes rows.
	both("BEGIN")
	both("SELECT id, k FROM t WHERE k IN (1, 2, 3, 2)")
	on(true, "UPDATE t SET k = 2 WHERE id IN (1, 27, 40)")
	on(true, "INSERT INTO t VALUES (9100, 3, 'x', 'x')")
	on(true, "DELETE FROM t WHERE k = 1 AND id < 100")
	reads()
	both("SELECT id, k FROM t WHERE k IN (1, 2, 3, 2)")
	both("COMMIT")
	reads()
	if n := engine.IndexMultiQueries() - m0; n < 200 {
		t.Errorf("only %d index reads in one MultiQuery", n)
	}
	// Fewer: a covering read (id, k; id, s) reads no rows, and most lists
	// of the first query hold a NULL, a string or a fraction (no index
	// plan).
	if n := engine.IndexMultiGets() - g0; n < 40 {
		t.Errorf("only %d reads of verified hits' rows in one MultiGet", n)
	}
}
