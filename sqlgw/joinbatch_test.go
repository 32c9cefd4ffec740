package sqlgw_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// joinFixture creates, in database d: u (indexed: unique global by_email,
// global by_city (city, age)) and its unindexed copy u0, o (orders pointing
// at u by email, city, and id, NULLs and duplicates included) with n rows.
func joinFixture(t *testing.T, c sqltest.Execer, n int) {
	t.Helper()
	sqltest.NewRunner(t, c).Script(`
		exec CREATE DATABASE d
		exec USE d
		exec CREATE TABLE u (id INT PRIMARY KEY, email VARCHAR(40), city VARCHAR(20), age INT, name VARCHAR(20), tag VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, UNIQUE KEY by_email (email), KEY by_tag (tag))
		exec CREATE INDEX by_city ON u (city, age)
		exec CREATE TABLE u0 (id INT PRIMARY KEY, email VARCHAR(40), city VARCHAR(20), age INT, name VARCHAR(20), tag VARCHAR(10) COLLATE utf8mb4_0900_ai_ci)
		exec CREATE TABLE o (id INT PRIMARY KEY, uid INT, email VARCHAR(40), city VARCHAR(20), amt INT, tag VARCHAR(10) COLLATE utf8mb4_0900_ai_ci)
	`)
	cities := []string{"Paris", "Rome", "Oslo", "Lima"}
	var uv, ov []string
	for i := range 40 {
		email := fmt.Sprintf("'u%d@x'", i)
		if i%10 == 9 {
			email = "NULL"
		}
		uv = append(uv, fmt.Sprintf("(%d, %s, '%s', %d, 'n%d', '%s')", i, email, cities[i%3], 20+i%5, i, []string{"café", "Tea", "milk", "x"}[i%4]))
	}
	for i := range n {
		email := fmt.Sprintf("'u%d@x'", (i*7)%50) // some match nothing
		if i%13 == 0 {
			email = "NULL"
		}
		city := "'" + cities[i%4] + "'" // Lima matches nothing
		if i%17 == 0 {
			city = "NULL"
		}
		ov = append(ov, fmt.Sprintf("(%d, %d, %s, %s, %d, '%s')", i, (i*3)%45, email, city, i%6, []string{"CAFE", "tea", "Milk ", "y", "cafè"}[i%5]))
	}
	sqltest.NewRunner(t, c).Exec("CREATE TABLE l (cust INT, id INT, v INT, PRIMARY KEY (cust, id), KEY by_cv (cust, v))")
	sqltest.NewRunner(t, c).Exec("CREATE TABLE l0 (cust INT, id INT, v INT, PRIMARY KEY (id, cust))")
	var lv []string
	for i := range 60 {
		lv = append(lv, fmt.Sprintf("(%d, %d, %d)", i%5, i, i%9))
	}
	sqltest.NewRunner(t, c).Exec("INSERT INTO l VALUES " + strings.Join(lv, ", "))
	sqltest.NewRunner(t, c).Exec("INSERT INTO l0 VALUES " + strings.Join(lv, ", "))
	sqltest.NewRunner(t, c).Exec("INSERT INTO u VALUES " + strings.Join(uv, ", "))
	sqltest.NewRunner(t, c).Exec("INSERT INTO u0 VALUES " + strings.Join(uv, ", "))
	for len(ov) > 0 {
		k := min(len(ov), 100)
		sqltest.NewRunner(t, c).Exec("INSERT INTO o VALUES " + strings.Join(ov[:k], ", "))
		ov = ov[k:]
	}
}

// joinQueries are joins of o with u (the %s), each with a hint for a lookup
// join into it; run against u0 they are the unindexed reference.
var joinQueries = sqltest.Lines(`
	SELECT /*+ LOOKUP_JOIN(o,%[1]s) JOIN_ORDER(o,%[1]s) */ o.id, %[1]s.id, %[1]s.name FROM o JOIN %[1]s ON %[1]s.email = o.email ORDER BY o.id, %[1]s.id
	SELECT /*+ LOOKUP_JOIN(o,%[1]s) JOIN_ORDER(o,%[1]s) */ o.id, %[1]s.id FROM o LEFT JOIN %[1]s ON %[1]s.email = o.email ORDER BY o.id, %[1]s.id
	SELECT /*+ LOOKUP_JOIN(o,%[1]s) JOIN_ORDER(o,%[1]s) */ o.id, %[1]s.id, %[1]s.age FROM o JOIN %[1]s ON %[1]s.city = o.city ORDER BY o.id, %[1]s.id
	SELECT /*+ LOOKUP_JOIN(o,%[1]s) JOIN_ORDER(o,%[1]s) */ o.id, %[1]s.id FROM o LEFT JOIN %[1]s ON %[1]s.city = o.city AND %[1]s.age > o.amt + 20 ORDER BY o.id, %[1]s.id
	SELECT /*+ LOOKUP_JOIN(o,%[1]s) JOIN_ORDER(o,%[1]s) */ o.id, %[1]s.id FROM o JOIN %[1]s ON %[1]s.city = o.city AND %[1]s.age = o.amt + 20 ORDER BY o.id, %[1]s.id
	SELECT /*+ LOOKUP_JOIN(o,%[1]s) JOIN_ORDER(o,%[1]s) */ o.id, %[1]s.id FROM o JOIN %[1]s ON %[1]s.id = o.uid WHERE o.amt < 4 ORDER BY o.id
	SELECT /*+ LOOKUP_JOIN(o,%[1]s) JOIN_ORDER(o,%[1]s) */ o.id, %[1]s.id FROM o LEFT JOIN %[1]s ON %[1]s.id = o.uid AND %[1]s.name <> 'n3' ORDER BY o.id
	SELECT /*+ LOOKUP_JOIN(o,%[1]s) JOIN_ORDER(o,%[1]s) */ o.id FROM o WHERE EXISTS (SELECT 1 FROM %[1]s WHERE %[1]s.email = o.email) ORDER BY o.id
	SELECT /*+ LOOKUP_JOIN(o,%[1]s) JOIN_ORDER(o,%[1]s) */ o.id, %[1]s.id FROM o LEFT JOIN %[1]s ON %[1]s.email <=> o.email ORDER BY o.id, %[1]s.id
	SELECT /*+ LOOKUP_JOIN(o,%[1]s) JOIN_ORDER(o,%[1]s) */ o.id, %[1]s.id, %[1]s.tag FROM o JOIN %[1]s ON %[1]s.tag = o.tag ORDER BY o.id, %[1]s.id
	SELECT /*+ LOOKUP_JOIN(o,%[1]s) JOIN_ORDER(o,%[1]s) */ o.id, %[1]s.id FROM o LEFT JOIN %[1]s ON %[1]s.id = o.uid + 1 AND o.amt > 2 ORDER BY o.id
	SELECT /*+ LOOKUP_JOIN(o,x) JOIN_ORDER(o,x) */ o.id, x.id FROM o JOIN %[1]s AS x ON x.email = o.email AND x.city <> o.city ORDER BY o.id, x.id
	SELECT /*+ LOOKUP_JOIN(o,%[2]s) JOIN_ORDER(o,%[2]s) */ o.id, %[2]s.id FROM o LEFT JOIN %[2]s ON %[2]s.cust = o.amt ORDER BY o.id, %[2]s.id
	SELECT /*+ LOOKUP_JOIN(o,%[2]s) JOIN_ORDER(o,%[2]s) */ o.id, %[2]s.id FROM o JOIN %[2]s ON %[2]s.cust = o.amt AND %[2]s.v = o.uid %% 9 ORDER BY o.id, %[2]s.id
	SELECT /*+ LOOKUP_JOIN(o,%[2]s) JOIN_ORDER(o,%[2]s) */ o.id, %[2]s.v FROM o JOIN %[2]s ON %[2]s.cust = o.amt AND %[2]s.id = o.uid ORDER BY o.id
	SELECT /*+ LOOKUP_JOIN(o,%[1]s) */ o.id FROM o WHERE NOT EXISTS (SELECT 1 FROM %[1]s WHERE %[1]s.email = o.email) ORDER BY o.id
	SELECT o.id FROM o WHERE o.email NOT IN (SELECT email FROM %[1]s) ORDER BY o.id
	SELECT /*+ LOOKUP_JOIN(o,%[1]s) */ o.id FROM o WHERE o.uid NOT IN (SELECT id FROM %[1]s WHERE age > 21) ORDER BY o.id
	SELECT /*+ LOOKUP_JOIN(o,%[1]s) */ o.id FROM o WHERE o.uid IN (SELECT id FROM %[1]s WHERE age > 21) ORDER BY o.id
	SELECT o.id FROM o WHERE o.city IN (SELECT city FROM %[1]s WHERE age = o.amt + 20) ORDER BY o.id
`)

// TestBatchedLookupJoin: lookup joins through the primary key and through
// secondary indexes (the engine's MySQLRangeCollections on them), batched
// in blocks of 256 and of 7 outer rows and not batched, return the rows of
// the same join on an unindexed copy, also inside a transaction with
// uncommitted inserts, updates and deletes.
func TestBatchedLookupJoin(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Conn()
		r := sqltest.NewRunner(t, c)
		joinFixture(t, c, 120)
		compare := func(what string) {
			t.Helper()
			for _, q := range joinQueries {
				r.Exec("SET sqlgw_join_batch = 256")
				want := r.Rows(fmt.Sprintf(q, "u0", "l0"))
				for _, batch := range []string{"256", "7", "0"} {
					r.Exec("SET sqlgw_join_batch = " + batch)
					got := r.Rows(fmt.Sprintf(q, "u", "l"))
					if strings.Join(got, "\n") != strings.Join(want, "\n") {
						t.Errorf("%s, batch %s: %s:\n%s", what, batch, fmt.Sprintf(q, "u", "l"), firstDiff(got, want))
					}
				}
			}
			r.Exec("SET sqlgw_join_batch = DEFAULT")
		}
		compare("committed")
		// Inside a transaction with uncommitted writes to both copies.
		r.Exec("BEGIN")
		for _, tb := range []string{"u", "u0"} {
			r.Exec("INSERT INTO " + tb + " VALUES (100, 'u45@x', 'Lima', 22, 'new', 'TEA'), (101, NULL, 'Rome', 21, 'new2', 'y')")
			r.Exec("UPDATE " + tb + " SET email = 'u49@x', city = 'Oslo' WHERE id = 7")
			r.Exec("DELETE FROM " + tb + " WHERE id IN (14, 2)")
		}
		r.Exec("UPDATE o SET uid = 100, email = 'u45@x' WHERE id = 5")
		for _, tb := range []string{"l", "l0"} {
			r.Exec("INSERT INTO " + tb + " VALUES (2, 100, 4), (3, 101, 1)")
			r.Exec("UPDATE " + tb + " SET v = 8 WHERE id = 7")
			r.Exec("DELETE FROM " + tb + " WHERE id = 12")
		}
		compare("in a transaction")
		r.Exec("ROLLBACK")
		// EXPLAIN shows the batched join through the index, and its
		// absence when batching is off.
		q := fmt.Sprintf(joinQueries[0], "u", "l")
		plan := strings.Join(r.Rows("EXPLAIN PLAN "+q), "\n")
		if !strings.Contains(plan, "BatchedLookupJoin") || !strings.Contains(plan, "by_email") || !strings.Contains(plan, "[u.email]") {
			t.Errorf("no batched lookup through by_email:\n%s", plan)
		}
		r.Exec("SET sqlgw_join_batch = 0")
		if plan := strings.Join(r.Rows("EXPLAIN PLAN "+q), "\n"); strings.Contains(plan, "BatchedLookupJoin") {
			t.Errorf("batched with sqlgw_join_batch = 0:\n%s", plan)
		}
		r.Exec("SET sqlgw_join_batch = DEFAULT")
	})
}

// firstDiff describes how two row lists differ: their lengths and the first
// row where they do.
func firstDiff(got, want []string) string {
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return fmt.Sprintf("got %d rows, want %d; row %d: got %q, want %q", len(got), len(want), i, g, w)
		}
	}
	return "equal"
}

// slowStore delays every Get and Query and counts bursts: requests that
// start while no other is in flight. Sequential round trips are bursts
// each; requests issued in parallel share one.
type slowStore struct {
	storage.Store
	delay    atomic.Int64 // nanoseconds
	inflight atomic.Int64
	bursts   atomic.Int64
}

// Capabilities: the slow store stands for a store with round trips, whose
// independent requests the gateway sends in parallel (not InProcess).
func (s *slowStore) Capabilities() storage.Capabilities {
	c := s.Store.Capabilities()
	c.InProcess = false
	return c
}

func (s *slowStore) enter() {
	if s.inflight.Add(1) == 1 {
		s.bursts.Add(1)
	}
	time.Sleep(time.Duration(s.delay.Load()))
}

func (s *slowStore) leave() { s.inflight.Add(-1) }

func (s *slowStore) Get(ctx context.Context, table, pk, rk string, opts *storage.GetOptions) (*storage.Entity, error) {
	if strings.HasSuffix(table, "catalog") {
		// The catalog's and the accounts' version checks (the latter
		// polled in the background) are not lookups.
		return s.Store.Get(ctx, table, pk, rk, opts)
	}
	s.enter()
	defer s.leave()
	return s.Store.Get(ctx, table, pk, rk, opts)
}

func (s *slowStore) Query(ctx context.Context, table string, q *storage.Query) (*storage.Page, error) {
	s.enter()
	defer s.leave()
	return s.Store.Query(ctx, table, q)
}

// lookupFixture creates big (n rows, unique global index by_v) and o2 (200
// rows pointing at distinct rows of big by id and by v).
func lookupFixture(t testing.TB, c sqltest.Execer, n int) {
	mustExecTB(t, c, "CREATE DATABASE d")
	mustExecTB(t, c, "USE d")
	mustExecTB(t, c, "CREATE TABLE big (id INT PRIMARY KEY, v VARCHAR(20), g INT, UNIQUE KEY by_v (v))")
	mustExecTB(t, c, "CREATE TABLE o2 (id INT PRIMARY KEY, bid INT, bv VARCHAR(20))")
	var vals []string
	for i := range n {
		vals = append(vals, fmt.Sprintf("(%d, 'v%d', %d)", i, i, i%7))
		if len(vals) == 500 || i == n-1 {
			mustExecTB(t, c, "INSERT INTO big VALUES "+strings.Join(vals, ", "))
			vals = vals[:0]
		}
	}
	for i := range 200 {
		vals = append(vals, fmt.Sprintf("(%d, %d, 'v%d')", i, (i*5)%n, (i*5)%n))
	}
	mustExecTB(t, c, "INSERT INTO o2 VALUES "+strings.Join(vals, ", "))
	// Full scans: the gateway learns the row counts (join costing).
	rowsTB(t, c, "SELECT COUNT(*) FROM big")
	rowsTB(t, c, "SELECT COUNT(*) FROM o2")
}

func mustExecTB(t testing.TB, c sqltest.Execer, q string) {
	t.Helper()
	sqltest.NewRunner(t, c).Exec(q)
}

func rowsTB(t testing.TB, c sqltest.Execer, q string) int {
	t.Helper()
	rs, err := c.QueryContext(context.Background(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rs.Close()
	n := 0
	for rs.Next() {
		n++
	}
	if err := rs.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// TestBatchedLookupJoinRequests: 200 outer rows joined into a table by its
// primary key and through a unique global index. Batched, the lookups of
// a block go out together: a handful of sequential round trips (bursts)
// per block instead of one (two through the index) per outer row, and
// never more requests than unbatched. Through the index, blocks of 8 keys
// are index reads then one MultiGet of base rows (2 bursts per block);
// blocks of 256 keys are one scan of the 1,000-row table (the planner finds
// that cheaper than 512 Gets). EXPLAIN ANALYZE shows blocks and requests.
func TestBatchedLookupJoinRequests(t *testing.T) {
	store, co := sqltest.Memory.Open(t)
	slow := &slowStore{Store: store}
	ts := sqltest.Start(t, slow, sqltest.Options{Catalog: co})
	c := ts.Conn()
	lookupFixture(t, c, 1000)
	slow.delay.Store(int64(time.Millisecond))
	const (
		byKey   = "SELECT /*+ LOOKUP_JOIN(o2,big) JOIN_ORDER(o2,big) */ o2.id, big.g FROM o2 JOIN big ON big.id = o2.bid ORDER BY o2.id"
		byIndex = "SELECT /*+ LOOKUP_JOIN(o2,big) JOIN_ORDER(o2,big) */ o2.id, big.g FROM o2 JOIN big ON big.v = o2.bv ORDER BY o2.id"
	)
	for _, tc := range []struct {
		name, q, batch string
		steps          int64 // sequential requests per outer row, unbatched
		maxReqs        int64 // batched
		maxBursts      int64 // batched
	}{
		{"primary key", byKey, "256", 1, 1 + 200, 10},
		{"unique global index, blocks of 8", byIndex, "8", 2, 1 + 200 + 200, 1 + 2*25 + 10},
		{"unique global index, blocks of 256", byIndex, "256", 2, 1 + 200 + 200, 10},
	} {
		measure := func(batch string) (res []string, reqs, bursts int64) {
			sqltest.NewRunner(t, c).Exec("SET sqlgw_join_batch = " + batch)
			r0, _ := sqltest.NewRunner(t, c).Status()
			b0 := slow.bursts.Load()
			res = sqltest.NewRunner(t, c).Rows(tc.q)
			b1 := slow.bursts.Load()
			r1, _ := sqltest.NewRunner(t, c).Status()
			return res, r1 - r0, b1 - b0
		}
		got, reqs, bursts := measure(tc.batch)
		want, reqs0, bursts0 := measure("0")
		if len(got) != 200 || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: batched %s", tc.name, firstDiff(got, want))
		}
		t.Logf("%s: batched %d requests in %d bursts; per row %d requests in %d bursts", tc.name, reqs, bursts, reqs0, bursts0)
		if reqs > tc.maxReqs || reqs > reqs0 {
			t.Errorf("%s: batched %d requests, want <= %d and <= unbatched %d", tc.name, reqs, tc.maxReqs, reqs0)
		}
		if bursts > tc.maxBursts {
			t.Errorf("%s: batched %d sequential round trips, want <= %d", tc.name, bursts, tc.maxBursts)
		}
		if bursts0 < 200*tc.steps {
			t.Errorf("%s: unbatched %d sequential round trips, want >= %d (one per lookup)", tc.name, bursts0, 200*tc.steps)
		}
	}
	sqltest.NewRunner(t, c).Exec("SET sqlgw_join_batch = 8")
	out := strings.Join(sqltest.NewRunner(t, c).Rows("EXPLAIN ANALYZE "+byIndex), "\n")
	for _, want := range []string{"BatchedLookupJoin", "ran 25 blocks, 200 outer rows, 200 distinct lookups", "block reads: IndexLookup x25", "sqlgw: 200 rows, 401 store requests"} {
		if !strings.Contains(out, want) {
			t.Errorf("EXPLAIN ANALYZE lacks %q:\n%s", want, out)
		}
	}
	sqltest.NewRunner(t, c).Exec("SET sqlgw_join_batch = DEFAULT")
	out = strings.Join(sqltest.NewRunner(t, c).Rows("EXPLAIN ANALYZE "+byKey), "\n")
	for _, want := range []string{"BatchedLookupJoin", "ran 1 blocks, 200 outer rows, 200 distinct lookups", "block reads: MultiGet x1", "sqlgw: 200 rows, 201 store requests"} {
		if !strings.Contains(out, want) {
			t.Errorf("EXPLAIN ANALYZE lacks %q:\n%s", want, out)
		}
	}
	// Under a LIMIT, the first block is small.
	limited := strings.Replace(byKey, " ORDER BY o2.id", " LIMIT 5", 1)
	if r, _ := sqltest.NewRunner(t, c).Cost(limited); r > 1+16 {
		t.Errorf("%s: %d requests, want <= 17 (a first block of 16)", limited, r)
	}
	if out := strings.Join(sqltest.NewRunner(t, c).Rows("EXPLAIN PLAN "+limited), "\n"); !strings.Contains(out, "blocks of 16 outer rows doubling up to 256") {
		t.Errorf("EXPLAIN PLAN %s:\n%s", limited, out)
	}
	out = strings.Join(sqltest.NewRunner(t, c).Rows("EXPLAIN "+byKey), "\n")
	if !strings.Contains(out, "batched lookup join") {
		t.Errorf("EXPLAIN lacks the batched lookup:\n%s", out)
	}
}

// TestBatchedLookupJoinChosen: without hints, 200 outer rows into a table
// of 5,000 by its primary key are joined by a batched lookup (a few round
// trips), not a hash join (a scan of the whole table); with batching off,
// per-row lookups cost more than the scan, and the hash join is chosen.
func TestBatchedLookupJoinChosen(t *testing.T) {
	store, co := sqltest.Memory.Open(t)
	ts := sqltest.Start(t, store, sqltest.Options{Catalog: co})
	c := ts.Conn()
	r := sqltest.NewRunner(t, c)
	lookupFixture(t, c, 5000)
	q := "SELECT o2.id, big.g FROM o2 JOIN big ON big.id = o2.bid"
	plan := strings.Join(r.Rows("EXPLAIN PLAN "+q), "\n")
	if !strings.Contains(plan, "BatchedLookupJoin") {
		t.Errorf("%s: no batched lookup join:\n%s", q, plan)
	}
	r.Exec("SET sqlgw_join_batch = 0")
	plan = strings.Join(r.Rows("EXPLAIN PLAN "+q), "\n")
	if strings.Contains(plan, "LookupJoin") {
		t.Errorf("%s, batching off: a per-row lookup join:\n%s", q, plan)
	}
	r.Exec("SET sqlgw_join_batch = DEFAULT")
}

// BenchmarkLookupJoin compares a lookup join of 200 outer rows into a
// 1,000-row table by primary key, batched and row by row, on the embedded
// store as is (mem) and with 500µs added to every store request (rtt500us,
// a nearby remote store).
//
//	go test ./sqlgw -run '^$' -bench BenchmarkLookupJoin -benchtime 20x
func BenchmarkLookupJoin(b *testing.B) {
	store, err := pebble.OpenMemory()
	if err != nil {
		b.Fatal(err)
	}
	slow := &slowStore{Store: store}
	c := sqltest.Start(b, slow, sqltest.Options{}).Conn()
	lookupFixture(b, c, 1000)
	const q = "SELECT /*+ LOOKUP_JOIN(o2,big) JOIN_ORDER(o2,big) */ o2.id, big.g FROM o2 JOIN big ON big.id = o2.bid"
	for _, delay := range []struct {
		name string
		d    time.Duration
	}{{"mem", 0}, {"rtt500us", 500 * time.Microsecond}} {
		var perOp [2]float64
		for i, mode := range []struct{ name, batch string }{{"batched", "256"}, {"perrow", "0"}} {
			b.Run(delay.name+"/"+mode.name, func(b *testing.B) {
				mustExecTB(b, c, "SET sqlgw_join_batch = "+mode.batch)
				slow.delay.Store(int64(delay.d))
				defer slow.delay.Store(0)
				b.ResetTimer()
				for range b.N {
					if n := rowsTB(b, c, q); n != 200 {
						b.Fatalf("%d rows", n)
					}
				}
				perOp[i] = float64(b.Elapsed()) / float64(b.N)
			})
		}
		if perOp[0] > 0 {
			b.Logf("%s: per-row / batched time = %.1f", delay.name, perOp[1]/perOp[0])
		}
	}
}

// TestLookupJoinBuildingIndex: while an index is building (not ready),
// lookups the engine makes on it (joins, batched or not) are planned
// without it and stay correct.
func TestLookupJoinBuildingIndex(t *testing.T) {
	store, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	ts := sqltest.Start(t, store, sqltest.Options{Catalog: catalog.Options{RefreshInterval: -1}})
	c := ts.Conn()
	r := sqltest.NewRunner(t, c)
	joinFixture(t, c, 60)
	other := sqltest.OpenCatalog(t, store, catalog.Options{})
	for _, ix := range []string{"by_email", "by_city"} {
		if _, err := other.SetIndexState(context.Background(), "d", "u", ix, catalog.IndexBuilding); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range joinQueries[:5] {
		want := r.Rows(fmt.Sprintf(q, "u0", "l0"))
		for _, batch := range []string{"7", "0"} {
			r.Exec("SET sqlgw_join_batch = " + batch)
			got := r.Rows(fmt.Sprintf(q, "u", "l"))
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("batch %s: %s:\n%s", batch, fmt.Sprintf(q, "u", "l"), firstDiff(got, want))
			}
		}
	}
	r.Exec("SET sqlgw_join_batch = 7")
	out := strings.Join(r.Rows("EXPLAIN ANALYZE "+fmt.Sprintf(joinQueries[0], "u", "l")), "\n")
	if !strings.Contains(out, "block reads: TableScan") || strings.Contains(out, "IndexLookup x") {
		t.Errorf("a building index was read:\n%s", out)
	}
}
