package sqlgw_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// directRuns returns the session's count of executes run directly
// (engine/direct.go).
func directRuns(t *testing.T, c *sql.Conn) int64 {
	t.Helper()
	var name string
	var n int64
	if err := c.QueryRowContext(context.Background(), "SHOW SESSION STATUS LIKE 'Plan_cache_direct'").Scan(&name, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// execRows runs q with args as a server-side prepared statement on c (the
// driver prepares whatever has arguments) and renders its rows as Rows
// does, joined by " | ".
func execRows(t *testing.T, c *sql.Conn, q string, args ...any) string {
	t.Helper()
	return strings.Join(sqltest.NewRunner(t, c).Rows(q, args...), " | ")
}

// TestDirectSnapshots: a directly executed read uses the session's
// transaction and snapshot as the general path does: in autocommit each
// execute sees the latest commit (its transaction is committed and its
// snapshot released); inside BEGIN repeated reads see the transaction's
// snapshot and its own writes (point gets, IN lists through a global
// index, key ranges); after COMMIT the latest state again; with
// autocommit off, the implicit transaction's snapshot until COMMIT.
func TestDirectSnapshots(t *testing.T) {
	store, _ := sqltest.Memory.Open(t)
	ts := sqltest.Start(t, store, sqltest.Options{})
	a, b := ts.Session("ds"), ts.Conn()
	ra, rb := sqltest.NewRunner(t, a), sqltest.NewRunner(t, b)
	rb.Exec("USE ds")
	ra.Exec("CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL, v VARCHAR(20), KEY k_1 (k))")
	ra.Exec("INSERT INTO t VALUES (1, 10, 'one'), (2, 20, 'two'), (3, 10, 'three'), (4, 40, 'four')")
	point := "SELECT v FROM t WHERE id = ?"
	in := "SELECT id, k, v FROM t WHERE k IN (?, ?)"
	rng := "SELECT v FROM t WHERE id BETWEEN ? AND ?"
	lim := "SELECT id FROM t WHERE id > ? ORDER BY id LIMIT 2"
	for range 2 { // the first executes build the plans
		execRows(t, a, point, 1)
		execRows(t, a, in, 10, 40)
		execRows(t, a, rng, 1, 3)
		execRows(t, a, lim, 0)
	}
	d0 := directRuns(t, a)

	// Autocommit: each execute sees the other session's latest commit.
	expect := func(q, want string, args ...any) {
		t.Helper()
		if got := execRows(t, a, q, args...); got != want {
			t.Errorf("%s %v: %q, want %q", q, args, got, want)
		}
	}
	expect(point, "one", 1)
	rb.Exec("UPDATE t SET v = 'uno' WHERE id = 1")
	expect(point, "uno", 1)
	rb.Exec("INSERT INTO t VALUES (5, 10, 'five')")
	expect(in, "1\t10\tuno | 3\t10\tthree | 5\t10\tfive | 4\t40\tfour", 10, 40)
	expect(rng, "uno | two | three", 1, 3)
	expect(lim, "3 | 4", 2)

	// A transaction: its snapshot, and its own writes.
	ra.Exec("BEGIN")
	expect(point, "uno", 1)
	rb.Exec("UPDATE t SET v = 'eins' WHERE id = 1")
	rb.Exec("DELETE FROM t WHERE id = 5")
	expect(point, "uno", 1)
	expect(in, "1\t10\tuno | 3\t10\tthree | 5\t10\tfive | 4\t40\tfour", 10, 40)
	ra.Exec("INSERT INTO t VALUES (6, 40, 'six')")
	ra.Exec("UPDATE t SET v = 'tres' WHERE id = 3")
	ra.Exec("DELETE FROM t WHERE id = 4")
	expect(in, "1\t10\tuno | 3\t10\ttres | 5\t10\tfive | 6\t40\tsix", 10, 40)
	expect(point, "tres", 3)
	expect(point, "", 4)
	expect(rng, "uno | two | tres", 1, 3)
	expect(lim, "3 | 5", 2)
	expect(lim, "5 | 6", 4)
	ra.Exec("ROLLBACK")
	expect(point, "eins", 1)
	expect(point, "three", 3)
	expect(in, "1\t10\teins | 3\t10\tthree | 4\t40\tfour", 10, 40)
	// All but the first IN list after the transaction's writes: it plans
	// without the index k_1 there (engine/table.go planIn), a plan of its
	// own, built by go-mysql-server's path once.

	// autocommit off: the first read opens a transaction that later reads
	// keep (its snapshot), until COMMIT; text statements too
	// (textcache.go).
	text := "SELECT v FROM t WHERE id = 2"
	execRows(t, a, text)
	ra.Exec("SET autocommit = 0")
	expect(point, "two", 2)
	rb.Exec("UPDATE t SET v = 'zwei' WHERE id = 2")
	expect(point, "two", 2)
	if got := strings.Join(ra.Rows(text), " | "); got != "two" {
		t.Errorf("text read in the implicit transaction: %q", got)
	}
	ra.Exec("COMMIT")
	expect(point, "zwei", 2)
	ra.Exec("SET autocommit = 1")
	rb.Exec("UPDATE t SET v = 'deux' WHERE id = 2")
	expect(point, "deux", 2)
	if got := strings.Join(ra.Rows(text), " | "); got != "deux" {
		t.Errorf("text read after autocommit is back on: %q", got)
	}
	if d := directRuns(t, a) - d0; d != 16+6 {
		t.Errorf("%d executes ran directly, want 22 of 23", d)
	}
}

// blockingGets is a store whose Gets, while block is set, wait for their
// context to end.
type blockingGets struct {
	storage.Store
	block   atomic.Bool
	waiting chan struct{}
}

func (s *blockingGets) Get(ctx context.Context, table, pk, rk string, o *storage.GetOptions) (*storage.Entity, error) {
	if s.block.Load() {
		select { // a statement may Get more than once
		case s.waiting <- struct{}{}:
		default:
		}
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return s.Store.Get(ctx, table, pk, rk, o)
}

// Snapshot forwards the embedded store's snapshots: without it catalog/txn
// takes the store for one without snapshots and reads its clock entity
// through the blocked Get, outside the statement that is killed.
func (s *blockingGets) Snapshot(ctx context.Context) (storage.Snapshot, error) {
	return storage.ForwardSnapshot(ctx, s.Store)
}

// TestDirectKill: KILL QUERY interrupts a directly executed read with
// MySQL's 1317, and the session goes on.
func TestDirectKill(t *testing.T) {
	inner, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	st := &blockingGets{Store: inner, waiting: make(chan struct{}, 1)}
	ts := sqltest.Start(t, st, sqltest.Options{})
	a, b := ts.Session("dk"), ts.Conn()
	ra := sqltest.NewRunner(t, a)
	ra.Exec("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))")
	ra.Exec("INSERT INTO t VALUES (1, 'one')")
	var id string
	if err := a.QueryRowContext(context.Background(), "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	point := "SELECT v FROM t WHERE id = ?"
	execRows(t, a, point, 1)
	execRows(t, a, point, 1)
	d0 := directRuns(t, a)
	st.block.Store(true)
	done := make(chan error, 1)
	go func() {
		var v string
		done <- a.QueryRowContext(context.Background(), point, 1).Scan(&v)
	}()
	select {
	case <-st.waiting:
	case <-time.After(10 * time.Second):
		t.Fatal("the execute never read the row")
	}
	// The process list shows the running execute as go-mysql-server's
	// own path would (the plan cache makes its statement context itself:
	// engine/querycontext.go).
	rows, err := b.QueryContext(context.Background(), "SHOW PROCESSLIST")
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := rows.Columns()
	seen := false
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		if vals[0].String == id {
			seen = true
			if vals[4].String != "Query" || vals[7].String != point {
				t.Errorf("SHOW PROCESSLIST: the blocked execute is %q %q, want Query %q", vals[4].String, vals[7].String, point)
			}
		}
	}
	rows.Close()
	if !seen {
		t.Errorf("SHOW PROCESSLIST does not list connection %s", id)
	}
	sqltest.NewRunner(t, b).Exec("KILL QUERY " + id)
	select {
	case err := <-done:
		if code := sqltest.Errno(err); code != 1317 {
			t.Fatalf("killed execute: %v (errno %d), want 1317", err, code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("KILL QUERY did not interrupt the execute")
	}
	st.block.Store(false)
	if got := execRows(t, a, point, 1); got != "one" {
		t.Errorf("after KILL QUERY: %q", got)
	}
	if d := directRuns(t, a) - d0; d != 2 {
		t.Errorf("%d executes ran directly, want 2", d)
	}
}

// TestDirectSlowProcess: a text statement the plan cache runs directly
// (engine/textcache.go) that is slow registers in its session, not in
// go-mysql-server's process list (engine/fastproc.go), and is seen as
// before: information_schema.PROCESSLIST shows it running, Threads_running
// counts it while it runs, Slow_queries counts it once it took longer
// than long_query_time, KILL QUERY interrupts it with 1317, and the
// connection is idle afterwards.
func TestDirectSlowProcess(t *testing.T) {
	inner, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	st := &blockingGets{Store: inner, waiting: make(chan struct{}, 1)}
	ts := sqltest.Start(t, st, sqltest.Options{})
	a, b := ts.Session("dsp"), ts.Conn()
	ra, rb := sqltest.NewRunner(t, a), sqltest.NewRunner(t, b)
	ra.Exec("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))")
	ra.Exec("INSERT INTO t VALUES (1, 'one')")
	var id string
	if err := a.QueryRowContext(context.Background(), "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	text := "SELECT v FROM t WHERE id = 1"
	for range 2 {
		var v string
		if err := a.QueryRowContext(ctx, text).Scan(&v); err != nil {
			t.Fatal(err)
		}
	}
	d0 := directRuns(t, a)
	status := func(name string) int64 {
		t.Helper()
		var n string
		var v int64
		if err := b.QueryRowContext(ctx, "SHOW GLOBAL STATUS LIKE '"+name+"'").Scan(&n, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	// Only b's own statement runs now.
	if n := status("Threads_running"); n != 1 {
		t.Fatalf("Threads_running with no statement but its own: %d, want 1", n)
	}
	rb.Exec("SET GLOBAL long_query_time = 0.05")
	defer rb.Exec("SET GLOBAL long_query_time = 10")
	slow0 := status("Slow_queries")

	st.block.Store(true)
	done := make(chan error, 1)
	go func() {
		var v string
		done <- a.QueryRowContext(ctx, text).Scan(&v)
	}()
	select {
	case <-st.waiting:
	case <-time.After(10 * time.Second):
		t.Fatal("the statement never read the row")
	}
	time.Sleep(100 * time.Millisecond) // longer than long_query_time
	var command, state, info string
	if err := b.QueryRowContext(ctx, "SELECT COMMAND, STATE, INFO FROM information_schema.PROCESSLIST WHERE ID = "+id).Scan(&command, &state, &info); err != nil {
		t.Fatal(err)
	}
	if command != "Query" || state != "running" || info != text {
		t.Errorf("PROCESSLIST: the slow statement is %q %q %q, want Query running %q", command, state, info, text)
	}
	if n := status("Threads_running"); n != 2 {
		t.Errorf("Threads_running with the slow statement running: %d, want 2", n)
	}
	rb.Exec("KILL QUERY " + id)
	select {
	case err := <-done:
		if code := sqltest.Errno(err); code != 1317 {
			t.Fatalf("killed statement: %v (errno %d), want 1317", err, code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("KILL QUERY did not interrupt the statement")
	}
	st.block.Store(false)
	if n := status("Slow_queries") - slow0; n != 1 {
		t.Errorf("Slow_queries counted %d statements, want the slow one", n)
	}
	if n := status("Threads_running"); n != 1 {
		t.Errorf("Threads_running after the kill: %d, want 1", n)
	}
	if err := b.QueryRowContext(ctx, "SELECT COMMAND, INFO FROM information_schema.PROCESSLIST WHERE ID = "+id).Scan(&command, &info); err != nil {
		t.Fatal(err)
	}
	if command != "Sleep" || info != "" {
		t.Errorf("PROCESSLIST after the kill: %q %q, want Sleep and no statement", command, info)
	}
	if d := directRuns(t, a) - d0; d != 1 {
		t.Errorf("%d statements ran directly, want the slow one", d)
	}
}

// TestDirectParameters: executes of cached plans with parameters of every
// kind a driver sends (NULL, floats, strings that are and are not numbers,
// bytes, out-of-range integers, a collation-insensitive string key), each
// after executes that built and used the plan, answer exactly as a server
// without the plan cache: rows, metadata, errors and warnings.
func TestDirectParameters(t *testing.T) {
	with, without := diffServer(t, false), diffServer(t, true)
	setup := []string{
		"CREATE DATABASE dp", "USE dp",
		"CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL, v VARCHAR(20), KEY k_1 (k))",
		"INSERT INTO t VALUES (1, 10, 'one'), (2, 20, NULL), (3, 10, 'three'), (127, 40, 'x'), (-1, 5, 'neg')",
		"CREATE TABLE s (name VARCHAR(20) COLLATE utf8mb4_0900_ai_ci PRIMARY KEY, n INT)",
		"INSERT INTO s VALUES ('Alpha', 1), ('beta', 2), ('Émile', 3)",
		"CREATE TABLE u (id BIGINT UNSIGNED PRIMARY KEY, v INT)",
		"INSERT INTO u VALUES (1, 1), (18446744073709551615, 2)",
	}
	for _, q := range setup {
		if a, b := diffRun(with, q), diffRun(without, q); a != b {
			t.Fatalf("%s: %s / %s", q, a, b)
		}
	}
	odd := []any{nil, 2.0, 2.5, "2", " 2", "2abc", "x", []byte("3"), int64(1) << 40, uint64(18446744073709551615), -1, true, ""}
	cases := []struct {
		q     string
		build []any // arguments of the executes that build and use the plan
		odd   func(v any) []any
	}{
		{"SELECT v FROM t WHERE id = ?", []any{1}, func(v any) []any { return []any{v} }},
		{"SELECT id, v FROM t WHERE k IN (?, ?)", []any{10, 40}, func(v any) []any { return []any{v, 10} }},
		{"SELECT v FROM t WHERE id BETWEEN ? AND ?", []any{1, 3}, func(v any) []any { return []any{v, 127} }},
		{"SELECT id FROM t WHERE id > ? ORDER BY id LIMIT 2", []any{0}, func(v any) []any { return []any{v} }},
		{"SELECT n FROM s WHERE name = ?", []any{"ALPHA"}, func(v any) []any { return []any{v} }},
		{"SELECT v FROM u WHERE id = ?", []any{1}, func(v any) []any { return []any{v} }},
	}
	extra := map[string][]any{
		"SELECT n FROM s WHERE name = ?": {"alpha", "BETA ", "emile", "EMILE", "Émile", "beta\x00"},
	}
	for _, c := range cases {
		run := func(args ...any) {
			t.Helper()
			if a, b := diffRun(with, c.q, args...), diffRun(without, c.q, args...); a != b {
				t.Fatalf("%s %#v\nwith the plan cache:\n%s\nwithout:\n%s", c.q, args, a, b)
			}
		}
		for range 3 {
			run(c.build...)
		}
		for _, v := range append(odd, extra[c.q]...) {
			run(c.odd(v)...)
			run(c.build...)
		}
	}
	var name string
	var d int
	if err := with.QueryRowContext(context.Background(), "SHOW SESSION STATUS LIKE 'Plan_cache_direct'").Scan(&name, &d); err != nil {
		t.Fatal(err)
	}
	// A statement whose odd parameters fail to give a cacheable plan a
	// few times is left to go-mysql-server for the session (plancache.go,
	// maxBuildFailures): the executes before that ran directly.
	if d < 20 {
		t.Errorf("only %d executes ran directly", d)
	}
	t.Logf("%d executes ran directly", d)
}

// TestTextPlanCache: text statements of one shape share a cached plan
// (textcache.go): the second is a hit, SHOW STATUS says the last plan came
// from the cache, the result columns keep their names as written, a text
// that is not of a cacheable shape is a miss at most once, and DDL from
// another gateway over the same store invalidates the shape's plan.
func TestTextPlanCache(t *testing.T) {
	store, co := sqltest.Memory.Open(t)
	co.RefreshInterval = 20 * time.Millisecond
	shared := sqltest.NoClose(store)
	a := sqltest.Start(t, shared, sqltest.Options{Catalog: co})
	ca := a.Session("tp")
	ra := sqltest.NewRunner(t, ca)
	ra.Exec("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20), n INT)")
	ra.Exec("INSERT INTO t VALUES (1, 'one', 10), (2, 'two', 20), (3, 'three', 30)")
	status := func(c *sql.Conn) (hits, misses, last int64) { return planCacheStatus(t, c) }

	ra.ExpectRows("SELECT v FROM t WHERE id = 1", "one")
	h0, m0, _ := status(ca)
	ra.ExpectRows("SELECT v FROM t WHERE id = 2", "two")
	if h, m, last := status(ca); h != h0+1 || m != m0 || last != 1 {
		t.Errorf("second text of a shape: hits %d -> %d, misses %d -> %d, last %d; want a hit", h0, h, m0, m, last)
	}
	ra.ExpectRows("select v from t where id=3", "three") // another text, another shape key
	ra.ExpectRows("SELECT v FROM t WHERE id = 3", "three")
	if _, _, last := status(ca); last != 1 {
		t.Errorf("Last_plan_from_cache %d after a text from the cache", last)
	}
	if _, _, last := status(ca); last != 0 {
		t.Errorf("Last_plan_from_cache %d after SHOW STATUS", last)
	}
	// The column names as written, per text.
	for _, q := range []string{"SELECT SUM(n) FROM t WHERE id BETWEEN 1 AND 2", "SELECT SUM( n ) FROM t WHERE id BETWEEN 2 AND 3", "SELECT SUM(n) AS total FROM t WHERE id BETWEEN 1 AND 3", "SELECT SUM(n) FROM t WHERE id BETWEEN 1 AND 3"} {
		for range 2 {
			rs, err := ca.QueryContext(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			cols, _ := rs.Columns()
			rs.Close()
			want := strings.TrimSpace(strings.SplitN(strings.TrimPrefix(q, "SELECT "), " FROM", 2)[0])
			if i := strings.Index(want, " AS "); i >= 0 {
				want = want[i+4:]
			}
			if len(cols) != 1 || cols[0] != want {
				t.Errorf("%s: columns %q, want %q", q, cols, want)
			}
		}
	}
	// Not a cacheable shape (no literal compared): never a hit.
	h0, _, _ = status(ca)
	for range 3 {
		ra.ExpectRows("SELECT v FROM t WHERE id = n / 10 ORDER BY id", "one", "two", "three")
	}
	if h, _, _ := status(ca); h != h0 {
		t.Errorf("uncacheable text: hits %d -> %d", h0, h)
	}
	// DDL from another gateway: the shape's plan is rebuilt for the new
	// schema once this gateway's catalog has seen it.
	ra.ExpectRows("SELECT * FROM t WHERE id = 1", "1\tone\t10")
	ra.ExpectRows("SELECT * FROM t WHERE id = 2", "2\ttwo\t20")
	b := sqltest.Start(t, shared, sqltest.Options{Catalog: co})
	rb := sqltest.NewRunner(t, b.Conn())
	rb.Exec("ALTER TABLE tp.t ADD COLUMN w INT DEFAULT 7")
	rb.Exec("UPDATE tp.t SET v = 'uno' WHERE id = 1")
	time.Sleep(100 * time.Millisecond)
	ra.ExpectRows("SELECT * FROM t WHERE id = 1", "1\tuno\t10\t7")
	ra.ExpectRows("SELECT * FROM t WHERE id = 2", "2\ttwo\t20\t7")
}

// TestPlanCacheResultFields: the result fields of statements from the plan
// cache (text and direct) are go-mysql-server's for the session as it is
// now, field by field (name, table, type, charset, length, flags,
// decimals), also after the session changes character_set_results, which
// the fields' charsets and text lengths follow. go-sql-driver shows little
// of the fields, so this reads them with vitess's client.
func TestPlanCacheResultFields(t *testing.T) {
	with, without := vtConn(t, false), vtConn(t, true)
	run := func(q string) {
		t.Helper()
		a, errA := with.ExecuteFetch(q, 1000, true)
		b, errB := without.ExecuteFetch(q, 1000, true)
		if fmt.Sprint(errA) != fmt.Sprint(errB) {
			t.Fatalf("%s: errors %v / %v", q, errA, errB)
		}
		if a == nil || b == nil {
			return
		}
		if fa, fb := fmt.Sprint(a.Fields), fmt.Sprint(b.Fields); fa != fb {
			t.Fatalf("%s: fields with the plan cache\n%s\nwithout\n%s", q, fa, fb)
		}
		if ra, rb := fmt.Sprint(a.Rows), fmt.Sprint(b.Rows); ra != rb {
			t.Fatalf("%s: rows with the plan cache %s, without %s", q, ra, rb)
		}
	}
	for _, q := range []string{
		"CREATE DATABASE rf", "USE rf",
		"CREATE TABLE t (id INT UNSIGNED PRIMARY KEY, tx TEXT, vc VARCHAR(30) NOT NULL, d DECIMAL(10,3), b VARBINARY(8), dt DATETIME(3), e ENUM('a','b'), f FLOAT)",
		"INSERT INTO t VALUES (1, 'text', 'vc', 1.5, x'00ff', '2024-01-02 03:04:05.678', 'b', 2.5), (2, NULL, 'two', NULL, NULL, NULL, NULL, NULL)",
	} {
		run(q)
	}
	selects := []string{"SELECT * FROM t WHERE id = 1", "SELECT * FROM t WHERE id = 2", "SELECT tx, vc AS name, d FROM t WHERE id IN (1, 2)", "SELECT tx, vc AS name, d FROM t WHERE id IN (2, 1)"}
	for _, set := range []string{"", "SET character_set_results = latin1", "SET character_set_results = NULL", "SET character_set_results = utf8mb4"} {
		if set != "" {
			run(set)
		}
		for range 2 {
			for _, q := range selects {
				run(q)
			}
		}
	}
	if r, err := with.ExecuteFetch("SHOW SESSION STATUS LIKE 'Plan_cache_direct'", 10, false); err != nil || len(r.Rows) != 1 || r.Rows[0][1].ToString() == "0" {
		t.Fatalf("no statement ran from the plan cache directly: %v %v", r, err)
	}
}

// TestDirectConcurrentSessions: prepared point selects and text
// statements from several sessions at once, each served from the plan
// cache with the statement context it makes itself
// (engine/querycontext.go): every one succeeds (the process list refuses
// a pid already running: the sessions' pids must not meet), answers its
// own row, and counts in its session's Com_select.
func TestDirectConcurrentSessions(t *testing.T) {
	inner, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	ts := sqltest.Start(t, inner, sqltest.Options{})
	setup := ts.Session("dcs")
	r := sqltest.NewRunner(t, setup)
	r.Exec("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))")
	for i := 1; i <= 20; i++ {
		r.Exec(fmt.Sprintf("INSERT INTO t VALUES (%d, 'v%d')", i, i))
	}
	const sessions, each = 4, 150
	conns := make([]*sql.Conn, sessions)
	for i := range conns {
		conns[i] = ts.Conn()
		sqltest.NewRunner(t, conns[i]).Exec("USE dcs")
	}
	status := func(c *sql.Conn, name string) int64 {
		var n string
		var v int64
		if err := c.QueryRowContext(context.Background(), "SHOW SESSION STATUS LIKE '"+name+"'").Scan(&n, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	var before [sessions]int64
	for i, c := range conns {
		before[i] = status(c, "Com_select")
	}
	d0 := make([]int64, sessions)
	for i, c := range conns {
		d0[i] = directRuns(t, c)
	}
	errs := make(chan error, sessions)
	for i, c := range conns {
		go func() {
			for j := range each {
				id := (i*each+j)%20 + 1
				var v string
				q, args := "SELECT v FROM t WHERE id = ?", []any{id}
				if j%3 == 2 {
					q, args = fmt.Sprintf("SELECT v FROM t WHERE id = %d", id), nil
				}
				if err := c.QueryRowContext(context.Background(), q, args...).Scan(&v); err != nil {
					errs <- fmt.Errorf("session %d, %s: %w", i, q, err)
					return
				}
				if want := fmt.Sprintf("v%d", id); v != want {
					errs <- fmt.Errorf("session %d: id %d read %q", i, id, v)
					return
				}
			}
			errs <- nil
		}()
	}
	for range sessions {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range conns {
		if d := directRuns(t, c) - d0[i]; d < each/2 {
			t.Errorf("session %d: %d of %d executes ran directly", i, d, each)
		}
		if d := status(c, "Com_select") - before[i]; d != each {
			t.Errorf("session %d: Com_select moved by %d, want %d", i, d, each)
		}
	}
}
