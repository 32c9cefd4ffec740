package sqlgw_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// planCacheStatus returns the session's plan cache counters.
func planCacheStatus(t *testing.T, c *sql.Conn) (hits, misses, last int64) {
	t.Helper()
	rs, err := c.QueryContext(context.Background(), "SHOW SESSION STATUS LIKE '%plan%cache%'")
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	for rs.Next() {
		var name string
		var n int64
		if err := rs.Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		switch name {
		case "Plan_cache_hits":
			hits = n
		case "Plan_cache_misses":
			misses = n
		case "Last_plan_from_cache":
			last = n
		}
	}
	return hits, misses, last
}

// TestPlanCache: a prepared point select runs from the plan cache from its
// second execute on, with the right rows, and DDL invalidates the plan.
func TestPlanCache(t *testing.T) {
	store, _ := sqltest.Memory.Open(t)
	ts := sqltest.Start(t, store, sqltest.Options{})
	c := ts.Conn()
	r := sqltest.NewRunner(t, c)
	ctx := context.Background()
	r.Exec("CREATE DATABASE pc")
	r.Exec("USE pc")
	r.Exec("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20), w INT)")
	r.Exec("INSERT INTO t VALUES (1, 'one', 10), (2, 'two', 20), (300, 'three hundred', 30)")
	st, err := c.PrepareContext(ctx, "SELECT v, w AS ww FROM t WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	get := func(id any) string {
		t.Helper()
		var v string
		var w int
		err := st.QueryRowContext(ctx, id).Scan(&v, &w)
		if err == sql.ErrNoRows {
			return "none"
		}
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		id   any
		want string
	}{{1, "one"}, {2, "two"}, {7, "none"}, {1, "one"}, {300, "three hundred"}, {"2", "two"}} {
		if got := get(c.id); got != c.want {
			t.Errorf("id %v: %q, want %q", c.id, got, c.want)
		}
	}
	hits, misses, last := planCacheStatus(t, c)
	// Integer parameters become INT literals (the column's type): one miss,
	// then hits; "2" is a string literal, which the cached plan does not
	// take: a miss, which caches the plan for strings. The text INSERT
	// above was a miss too (writes are cached: engine/directwrite.go).
	if hits != 4 || misses != 3 || last != 0 {
		t.Errorf("hits %d, misses %d, last_plan_from_cache %d; want 4, 3, 0", hits, misses, last)
	}
	// Both variants (integer and string parameter) stay cached.
	get(1)
	if got := get("2"); got != "two" {
		t.Errorf("id '2': %q", got)
	}
	if hits, misses, last := planCacheStatus(t, c); hits != 6 || misses != 3 || last != 1 {
		t.Errorf("hits %d, misses %d, last_plan_from_cache %d; want 6, 3, 1", hits, misses, last)
	}
	if _, _, last := planCacheStatus(t, c); last != 0 {
		t.Errorf("after SHOW STATUS, last_plan_from_cache = %d, want 0", last)
	}
	// A cacheable shape whose plan cannot be cached (two parameters with
	// one value: which literal is whose is ambiguous) is tried a few times,
	// then left alone.
	h0, m0, _ := planCacheStatus(t, c)
	for i := range 6 {
		var v string
		if err := c.QueryRowContext(ctx, "SELECT v FROM t WHERE id IN (?, ?)", i%2+1, i%2+1).Scan(&v); err != nil {
			t.Fatal(err)
		}
	}
	if h1, m1, _ := planCacheStatus(t, c); h1 != h0 || m1 != m0+3 {
		t.Errorf("uncacheable plan: hits %d -> %d, misses %d -> %d; want no hit and 3 misses", h0, h1, m0, m1)
	}
	// An IN list whose integer literals change type with every execute
	// (the binder types each by its value's width) would be rebuilt on
	// most executes: after 8 builds with few hits it is left alone.
	_, m0, _ = planCacheStatus(t, c)
	widths := []int{1, 200, 300, 40000, 70000}
	for i := range 40 {
		a, b, d := widths[i%5], widths[(i/5)%5], widths[(i/3)%5]
		var n int
		if err := c.QueryRowContext(ctx, "SELECT COUNT(*) FROM t WHERE id IN (?, ?, ?)", a, b, d).Scan(&n); err != nil {
			t.Fatal(err)
		}
		want := 0
		for _, id := range []int{1, 2, 300} {
			if id == a || id == b || id == d {
				want++
			}
		}
		if n != want {
			t.Errorf("IN (%d, %d, %d): COUNT(*) = %d, want %d", a, b, d, n, want)
		}
	}
	if _, m1, _ := planCacheStatus(t, c); m1-m0 > 8 {
		t.Errorf("IN list of varying literal types: %d misses, want at most 8 builds before giving up", m1-m0)
	}
	// DDL invalidates: the next execute is a miss and sees the new schema.
	r.Exec("ALTER TABLE t MODIFY COLUMN v VARCHAR(30)")
	r.Exec("UPDATE t SET v = 'uno' WHERE id = 1")
	h0, m0, _ = planCacheStatus(t, c)
	if got := get(1); got != "uno" {
		t.Errorf("after ALTER: %q", got)
	}
	h1, m1, _ := planCacheStatus(t, c)
	if h1 != h0 || m1 != m0+1 {
		t.Errorf("after ALTER: hits %d -> %d, misses %d -> %d; want a miss", h0, h1, m0, m1)
	}
	if got := get(2); got != "two" {
		t.Errorf("after ALTER, cached again: %q", got)
	}
	if h2, _, _ := planCacheStatus(t, c); h2 != h1+1 {
		t.Errorf("after ALTER: second execute not from the cache (hits %d -> %d)", h1, h2)
	}
}

// TestPlanCachePrivileges: a REVOKE applies to a statement running from the
// plan cache at its next execute, as to any other statement.
func TestPlanCachePrivileges(t *testing.T) {
	store, _ := sqltest.Memory.Open(t)
	ts, _ := startAccountsServer(t, store, catalog.Options{}, "", nil)
	ctx := context.Background()
	sqltest.NewRunner(t, ts.DB).Exec("CREATE DATABASE pcp")
	sqltest.NewRunner(t, ts.DB).Exec("CREATE TABLE pcp.t (id INT PRIMARY KEY, v VARCHAR(10))")
	sqltest.NewRunner(t, ts.DB).Exec("INSERT INTO pcp.t VALUES (1, 'one'), (2, 'two')")
	sqltest.NewRunner(t, ts.DB).Exec("CREATE USER reader IDENTIFIED BY 'pw'")
	sqltest.NewRunner(t, ts.DB).Exec("GRANT SELECT ON pcp.t TO reader")
	db := as(t, ts, "reader", "pw", "pcp")
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	st, err := c.PrepareContext(ctx, "SELECT v FROM t WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, id := range []int{1, 2, 1} {
		var v string
		if err := st.QueryRowContext(ctx, id).Scan(&v); err != nil {
			t.Fatalf("id %d: %v", id, err)
		}
	}
	if hits, _, _ := planCacheStatus(t, c); hits != 2 {
		t.Fatalf("plan cache hits %d, want 2", hits)
	}
	if d := directRuns(t, c); d != 2 {
		t.Fatalf("%d executes ran directly (direct.go), want 2", d)
	}
	sqltest.NewRunner(t, ts.DB).Exec("REVOKE SELECT ON pcp.t FROM reader")
	var v string
	err = st.QueryRowContext(ctx, 2).Scan(&v)
	// The general path's answer: the user has no privilege left in pcp.
	if code := sqltest.Errno(err); code != 1044 && code != 1142 {
		t.Fatalf("after REVOKE: %v (errno %d), want access denied (1044 or 1142)", err, code)
	}
	// A passed check is remembered per plan while the privilege tables are
	// unchanged (FastLane.authorized): a GRANT between two executes
	// applies at the next one, and so do the REVOKE and DROP USER after it.
	sqltest.NewRunner(t, ts.DB).Exec("GRANT SELECT ON pcp.* TO reader")
	d0 := directRuns(t, c)
	for _, id := range []int{2, 1} {
		if err := st.QueryRowContext(ctx, id).Scan(&v); err != nil {
			t.Fatalf("after GRANT, id %d: %v", id, err)
		}
	}
	if d := directRuns(t, c); d != d0+2 {
		t.Fatalf("after GRANT: %d executes ran directly, want 2", d-d0)
	}
	sqltest.NewRunner(t, ts.DB).Exec("REVOKE SELECT ON pcp.* FROM reader")
	err = st.QueryRowContext(ctx, 1).Scan(&v)
	if code := sqltest.Errno(err); code != 1044 && code != 1142 {
		t.Fatalf("after the second REVOKE: %v (errno %d), want access denied (1044 or 1142)", err, code)
	}
	sqltest.NewRunner(t, ts.DB).Exec("GRANT SELECT ON pcp.t TO reader")
	if err := st.QueryRowContext(ctx, 1).Scan(&v); err != nil {
		t.Fatalf("after the second GRANT: %v", err)
	}
	sqltest.NewRunner(t, ts.DB).Exec("DROP USER reader")
	if err := st.QueryRowContext(ctx, 2).Scan(&v); err == nil {
		t.Fatalf("after DROP USER: the execute succeeded (%q)", v)
	}
}

// TestPlanCacheStatementSpacing: a prepared statement whose text starts
// or ends with spaces or newlines (sysbench's select_random_points
// prepares "\n        SELECT id, k, c, pad\n          FROM sbtest1 ...")
// runs from the plan cache like any other: go-mysql-server keeps its parse
// tree under the trimmed text, and the plan cache looked it up under the
// text as sent, so every execute took the general path.
func TestPlanCacheStatementSpacing(t *testing.T) {
	store, _ := sqltest.Memory.Open(t)
	ts := sqltest.Start(t, store, sqltest.Options{})
	c := ts.Conn()
	r := sqltest.NewRunner(t, c)
	ctx := context.Background()
	r.Exec("CREATE DATABASE pcs")
	r.Exec("USE pcs")
	r.Exec("CREATE TABLE t (id INT PRIMARY KEY, k INT, v VARCHAR(20), KEY k_1 (k))")
	r.Exec("INSERT INTO t VALUES (1, 10, 'one'), (2, 20, 'two'), (3, 30, 'three')")
	for _, q := range []string{
		"\n        SELECT id, k, v\n          FROM t\n          WHERE k IN (?, ?)\n        ",
		"  SELECT v FROM t WHERE id = ? ;  ",
	} {
		args := func(i int) []any {
			if strings.Contains(q, "IN") {
				return []any{(i%3 + 1) * 10, 99}
			}
			return []any{i%3 + 1}
		}
		st, err := c.PrepareContext(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		h0, _, _ := planCacheStatus(t, c)
		for i := range 4 {
			rs, err := st.QueryContext(ctx, args(i)...)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for rs.Next() {
				n++
			}
			if err := rs.Err(); err != nil {
				t.Fatal(err)
			}
			rs.Close()
			if n != 1 {
				t.Errorf("%q execute %d: %d rows", q, i, n)
			}
		}
		st.Close()
		if h1, _, _ := planCacheStatus(t, c); h1-h0 != 3 {
			t.Errorf("%q: %d plan cache hits in 4 executes, want 3", q, h1-h0)
		}
	}
}

// TestLastPlanFromCacheVariable: @@last_plan_from_cache (TiDB's name) says
// whether the session's previous statement ran from the plan cache, is
// read-only, and is listed by SHOW VARIABLES.
func TestLastPlanFromCacheVariable(t *testing.T) {
	store, _ := sqltest.Memory.Open(t)
	ts := sqltest.Start(t, store, sqltest.Options{})
	c := ts.Conn()
	r := sqltest.NewRunner(t, c)
	ctx := context.Background()
	r.Exec("CREATE DATABASE lpc")
	r.Exec("USE lpc")
	r.Exec("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))")
	r.Exec("INSERT INTO t VALUES (1, 'one'), (2, 'two')")
	last := func() int {
		t.Helper()
		var n int
		if err := c.QueryRowContext(ctx, "SELECT @@last_plan_from_cache").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if got := last(); got != 0 {
		t.Errorf("new session: @@last_plan_from_cache = %d, want 0", got)
	}
	st, err := c.PrepareContext(ctx, "SELECT v FROM t WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var v string
	for i, want := range []int{0, 1, 1} { // the first execute builds the plan
		if err := st.QueryRowContext(ctx, i%2+1).Scan(&v); err != nil {
			t.Fatal(err)
		}
		if got := last(); got != want {
			t.Errorf("after execute %d: @@last_plan_from_cache = %d, want %d", i+1, got, want)
		}
		// The SELECT of the variable did not run from the cache.
		if got := last(); got != 0 {
			t.Errorf("after SELECT @@last_plan_from_cache: %d, want 0", got)
		}
	}
	// A text statement of a cached shape counts too.
	r.Exec("SELECT v FROM t WHERE id = 1")
	r.Exec("SELECT v FROM t WHERE id = 2")
	if got := last(); got != 1 {
		t.Errorf("after a cached text SELECT: @@last_plan_from_cache = %d, want 1", got)
	}
	var name string
	var val string
	if err := c.QueryRowContext(ctx, "SHOW SESSION VARIABLES LIKE 'last_plan_from_cache'").Scan(&name, &val); err != nil {
		t.Fatal(err)
	}
	if val != "0" && val != "OFF" {
		t.Errorf("SHOW VARIABLES: %s = %q, want 0 or OFF", name, val)
	}
	for _, set := range []string{"SET last_plan_from_cache = 1", "SET SESSION last_plan_from_cache = 0", "SET GLOBAL last_plan_from_cache = 1"} {
		if _, err := c.ExecContext(ctx, set); err == nil {
			t.Errorf("%s: no error, want a read-only variable's", set)
		}
	}
}
