package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/catalog/ixmaint"
	"github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/aztables"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// The SIGKILL test of secondary indexes (issue 6): writers over TCP change
// a table with a local index, a global index and a unique global index
// while the "sqlgw serve" process is killed with SIGKILL at random moments
// and restarted on the same store. The writes: single-row INSERTs (new
// rows, existing primary keys, unique values other rows hold), UPDATEs
// changing every indexed value, only the global one, or none, DELETEs,
// two-row INSERTs and two-row transactions of UPDATEs within one
// partition (atomic: all or none after a kill). It checks, after every
// kill:
//
//   - straight from the store, with no server running (ixmaint.Check):
//     the local index is exact and no global index entity is missing (a
//     crash may only leave marked extra entities, package ixmaint);
//   - after the restart, through SQL: every acknowledged write is there
//     and nothing else (the statement in flight at the kill may have
//     committed or not, but wholly), no unique value appears twice, and
//     every query through each index (EXPLAIN names the index) returns
//     what a scan returns, while the index may still carry the crash's
//     marks (readers verify);
//
// and at the end, once the restarted server's own recovery sweep has run
// (marks older than the lease, ixmaint.DefaultLease), that every index
// equals exactly what the base rows imply (ixmaint.Check finds nothing).
//
// It runs on Pebble (pebble:DIR) and on Azurite (azure:CONNSTR), about
// 30-50 s each on the 2-core development machine.

// crashTable has a local index (la: partition key first), a global index
// (gg) and a unique global index (uu). p is the partition key.
const crashTable = `CREATE TABLE t (p INT, id INT, a INT, g INT, u INT, v VARCHAR(40),
	PRIMARY KEY (p, id),
	KEY la (p, a) COMMENT 'sqlgw: local',
	KEY gg (g) COMMENT 'sqlgw: global',
	UNIQUE KEY uu (u)) COMMENT 'sqlgw: partition_key=(p)'`

const (
	crashWriters    = 4
	crashIDs        = 40  // ids per writer
	crashPartitions = 6   // p = id % crashPartitions
	crashU          = 150 // unique values drawn from [0, crashU): frequent conflicts
	// crashPair apart, two ids belong to one writer and one partition: the
	// least common multiple of crashWriters and crashPartitions.
	crashPair = 12
)

// crow is the model of one row (nil: no row). u < 0 is NULL.
type crow struct {
	a, g, u int
	v       string
}

func (r *crow) String() string {
	if r == nil {
		return "<none>"
	}
	return fmt.Sprintf("a=%d g=%d u=%d v=%s", r.a, r.g, r.u, r.v)
}

func sameRow(a, b *crow) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

// crashWriter owns the ids w, w+crashWriters, ... so it knows the state of
// its rows exactly: acknowledged writes are in rows; the one statement in
// flight when the server died is in pending until a restart tells which
// way it went.
type crashWriter struct {
	w       int
	rows    map[int]*crow
	pending *pendingWrite
	rng     *rand.Rand
	seq     int
	stats   map[string]int
	round   int
	hist    map[int][]string // the last writes of each id, for failure messages
	recent  []string         // the writer's last writes, all ids
	told    bool             // recent was printed
	retried time.Time        // the first retry of the statement in progress
}

// note records the outcome of a write of id.
func (cw *crashWriter) note(id int, format string, args ...any) {
	if cw.hist == nil {
		cw.hist = map[int][]string{}
	}
	h := append(cw.hist[id], fmt.Sprintf("round %d seq %d: ", cw.round, cw.seq)+fmt.Sprintf(format, args...))
	if len(h) > 8 {
		h = h[len(h)-8:]
	}
	cw.hist[id] = h
	cw.recent = append(cw.recent, fmt.Sprintf("seq %d id %d: ", cw.seq, id)+fmt.Sprintf(format, args...))
	if len(cw.recent) > 40 {
		cw.recent = cw.recent[len(cw.recent)-40:]
	}
}

// history describes the last writes of id and of the ids it was written
// together with (id ± crashPair).
func (cw *crashWriter) history(id int) string {
	var sb strings.Builder
	for _, i := range []int{id - crashPair, id, id + crashPair} {
		if h := cw.hist[i]; len(h) > 0 {
			fmt.Fprintf(&sb, "\n\t\thistory of id %d (model now %s):\n\t\t%s", i, cw.rows[i], strings.Join(h, "\n\t\t"))
		}
	}
	if !cw.told {
		cw.told = true
		fmt.Fprintf(&sb, "\n\t\tthe writer's last writes:\n\t\t%s", strings.Join(cw.recent, "\n\t\t"))
	}
	return sb.String()
}

// pendingWrite is a write whose outcome is unknown: it changes rows ids
// from before[i] to after[i], all or none.
type pendingWrite struct {
	stmt          string
	ids           []int
	before, after []*crow
}

func pending1(id int, stmt string, before, after *crow) *pendingWrite {
	return &pendingWrite{stmt, []int{id}, []*crow{before}, []*crow{after}}
}

func (cw *crashWriter) id(k int) int { return cw.w + crashWriters*k }

// crashErrKind classifies a statement's error.
type crashErrKind int

const (
	errNone   crashErrKind = iota
	errDup                 // 1062: the statement did nothing
	errRetry               // 1213 / 40001 / 1205: retry
	errServer              // another MySQL error: the statement failed (unexpected)
	errConn                // no answer: the outcome is unknown
)

func classify(err error) crashErrKind {
	if err == nil {
		return errNone
	}
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return errConn
	}
	switch {
	case me.Number == 1062:
		return errDup
	case me.Number == 1213 || me.Number == 1205 || string(me.SQLState[:]) == "40001":
		return errRetry
	}
	return errServer
}

// step runs one random write. It returns false when the server stopped
// answering (the write is then recorded as pending).
func (cw *crashWriter) step(ctx context.Context, db *sql.DB, killed *atomic.Bool, errorf func(string, ...any)) bool {
	k := cw.rng.IntN(crashIDs)
	id := cw.id(k)
	p := id % crashPartitions
	cur := cw.rows[id]
	cw.seq++
	newU := func() int {
		if cw.rng.IntN(10) == 0 {
			return -1
		}
		return cw.rng.IntN(crashU)
	}
	uArg := func(u int) any {
		if u < 0 {
			return nil
		}
		return u
	}
	var (
		stmt  string
		args  []any
		after *crow
		kind  string
	)
	r := cw.rng.IntN(100)
	// Two rows of one partition in one write: id and id + crashPair (the
	// same writer, the same partition), changed together atomically.
	if id2 := id + crashPair; r < 10 && id2 < cw.id(crashIDs) {
		return cw.step2(ctx, db, killed, errorf, id, id2)
	}
	switch {
	case cur == nil:
		after = &crow{a: cw.rng.IntN(50), g: cw.rng.IntN(50), u: newU(), v: fmt.Sprintf("i%d.%d", cw.w, cw.seq)}
		kind, stmt = "insert", "INSERT INTO t (p, id, a, g, u, v) VALUES (?, ?, ?, ?, ?, ?)"
		args = []any{p, id, after.a, after.g, uArg(after.u), after.v}
	case r < 30: // every indexed value may change (or stay)
		after = &crow{a: cw.rng.IntN(50), g: cw.rng.IntN(50), u: newU(), v: fmt.Sprintf("x%d.%d", cw.w, cw.seq)}
		kind, stmt = "update-indexed", "UPDATE t SET a = ?, g = ?, u = ?, v = ? WHERE p = ? AND id = ?"
		args = []any{after.a, after.g, uArg(after.u), after.v, p, id}
	case r < 45: // the global index only
		after = &crow{a: cur.a, g: cw.rng.IntN(50), u: cur.u, v: cur.v}
		kind, stmt = "update-global", "UPDATE t SET g = ? WHERE p = ? AND id = ?"
		args = []any{after.g, p, id}
	case r < 70: // no indexed value changes
		after = &crow{a: cur.a, g: cur.g, u: cur.u, v: fmt.Sprintf("v%d.%d", cw.w, cw.seq)}
		kind, stmt = "update-unindexed", "UPDATE t SET v = ? WHERE p = ? AND id = ?"
		args = []any{after.v, p, id}
	case r < 90:
		kind, stmt = "delete", "DELETE FROM t WHERE p = ? AND id = ?"
		args = []any{p, id}
	default: // an existing primary key: 1062, nothing changes
		kind, stmt = "insert-dup-pk", "INSERT INTO t (p, id, a, g, u, v) VALUES (?, ?, 1, 1, NULL, 'dup')"
		args = []any{p, id}
		after = cur
	}
	for attempt := 0; ; attempt++ {
		res, err := db.ExecContext(ctx, stmt, args...)
		switch classify(err) {
		case errNone:
			n, _ := res.RowsAffected()
			switch {
			case kind == "insert-dup-pk":
				errorf("writer %d: %s (%s) succeeded on an existing row %s%s", cw.w, stmt, cur, fmt.Sprint(args...), cw.history(id))
			case kind != "update-global" && n != 1:
				errorf("writer %d: %s %v: %d rows affected, want 1 (model %s)%s", cw.w, stmt, args, n, cur, cw.history(id))
			case n > 1:
				errorf("writer %d: %s %v: %d rows affected", cw.w, stmt, args, n)
			}
			cw.note(id, "%s ok: %s", kind, after)
			cw.rows[id] = after
			cw.stats[kind]++
			return true
		case errDup:
			cw.stats[kind+"-1062"]++
			cw.note(id, "%s 1062 (%s)", kind, after)
			return true
		case errRetry:
			if cw.backoff(attempt) {
				continue
			}
			errorf("writer %d: %s: still %v after %d attempts", cw.w, stmt, err, attempt)
			cw.pending = pending1(id, stmt, cur, after)
			return false
		case errServer:
			// A failed statement should have had no effect; the restart
			// check verifies that it wholly had or had not.
			errorf("writer %d: %s %v: unexpected error %v", cw.w, stmt, args, err)
			cw.pending = pending1(id, stmt, cur, after)
			return false
		default:
			if !killed.Load() {
				errorf("writer %d: %s: %v while the server was running", cw.w, stmt, err)
			}
			cw.note(id, "%s in flight at the kill (%s)", kind, after)
			cw.pending = pending1(id, stmt, cur, after)
			return false
		}
	}
}

// backoff counts a retry of a statement that failed with a retryable
// error and waits a little before the next attempt; false after 100
// attempts and three transaction leases. On the Table service every
// commit takes a transaction record (catalog/txn, "Isolation"), so a
// commit in flight at a kill leaves locks that conflict with writers
// until its lease expires and a reader or the sweep aborts it.
func (cw *crashWriter) backoff(attempt int) bool {
	if attempt == 0 {
		cw.retried = time.Now()
	}
	if attempt >= 100 && time.Since(cw.retried) > 3*txn.DefaultLease {
		return false
	}
	cw.stats["retry"]++
	if attempt >= 100 {
		time.Sleep(50 * time.Millisecond) // waiting for a lease
	} else {
		time.Sleep(time.Duration(1+attempt%5) * time.Millisecond)
	}
	return true
}

// crashBackend is where a crash test keeps its data.
type crashBackend struct {
	store string                                     // --store
	open  func(t *testing.T) (storage.Store, func()) // the same store, opened directly
	db    string                                     // SQL database name
}

func TestIndexCrashSIGKILLPebble(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the 30 s SIGKILL test in -short mode")
	}
	runIndexCrash(t, pebbleCrashBackend(t, "crash"), 4)
}

func TestIndexCrashSIGKILLAzurite(t *testing.T) {
	runIndexCrash(t, azureCrashBackend(t, uniqueDB("crash")), 3)
}

// pebbleCrashBackend is a Pebble store in a temporary directory, opened by
// the test after the server has stopped.
func pebbleCrashBackend(t *testing.T, db string) crashBackend {
	dir := t.TempDir()
	return crashBackend{
		store: "pebble:" + dir,
		db:    db,
		open: func(t *testing.T) (storage.Store, func()) {
			s, err := pebble.Open(dir, nil)
			if err != nil {
				t.Fatalf("opening the store after the server: %v", err)
			}
			return s, func() { s.Close() }
		},
	}
}

// azureCrashBackend is the shared Azurite, with database db.
func azureCrashBackend(t *testing.T, db string) crashBackend {
	store := azureStore(t)
	cs := strings.TrimPrefix(store, "azure:")
	return crashBackend{
		store: store,
		db:    db,
		open: func(t *testing.T) (storage.Store, func()) {
			s, err := aztables.Open(context.Background(), cs, nil)
			if err != nil {
				t.Fatalf("opening Azurite: %v", err)
			}
			return s, func() { s.Close() }
		},
	}
}

// recoveryLine is the log line of the start-up sweep that settled marks.
var recoveryLine = regexp.MustCompile(`msg="sqlgw: index recovery" table=t resolved=\d+ pending=0`)

func runIndexCrash(t *testing.T, be crashBackend, kills int) {
	ctx := context.Background()
	sqltest.QuietDriver(t)
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 6))
	writers := make([]*crashWriter, crashWriters)
	for w := range writers {
		writers[w] = &crashWriter{w: w, rows: map[int]*crow{}, rng: rand.New(rand.NewPCG(seed, uint64(w))), stats: map[string]int{}}
	}
	var errMu sync.Mutex
	errorf := func(format string, args ...any) {
		errMu.Lock()
		defer errMu.Unlock()
		t.Errorf(format, args...)
	}

	g := startGateway(t, nil, "--store", be.store)
	g.MustBeReady(t, "not ready")
	admin := sqltest.NewRunner(t, g.Client(t))
	admin.Exec("CREATE DATABASE " + be.db)
	admin.Exec(strings.Replace(crashTable, "TABLE t", "TABLE "+be.db+".t", 1))

	start := time.Now()
	gws, lastKill := sqltest.RunKillRounds(t, []*sqltest.Process{g}, sqltest.KillRounds{
		Rounds: kills,
		Pause:  func(int) time.Duration { return time.Duration(700+rng.IntN(2300)) * time.Millisecond },
		// Writers run until the kill, which comes at a random moment.
		Load: func(round int, gws []*sqltest.Process, killed *atomic.Bool) func() {
			for _, cw := range writers {
				cw.round = round
			}
			return gws[0].Writers(t, len(writers), be.db, func(w int, db *sql.DB) {
				for writers[w].step(ctx, db, killed, errorf) {
				}
			})
		},
		// The store as the crash left it: local indexes exact, no global
		// entity missing.
		Crashed: func(round int) {
			mm := checkStore(t, be, 3)
			bad := 0
			for _, m := range mm {
				if m.Reason == "missing" || m.Index == "la" {
					t.Errorf("round %d: after SIGKILL: index %s entity %s: %s", round, m.Index, m.Key, m.Reason)
					bad++
				}
			}
			t.Logf("round %d: killed after %v; the store holds %d unsettled global index entities", round, time.Since(start).Round(time.Millisecond), len(mm)-bad)
		},
		Restart: func(int) *sqltest.Process { return startGateway(t, nil, "--store", be.store) },
		Check: func(round int, gws []*sqltest.Process) {
			db := gws[0].Client(t)
			for _, cw := range writers {
				resolvePending(t, db, be.db, cw)
			}
			checkSQL(t, db, be.db, writers, fmt.Sprintf("round %d", round))
		},
	})
	g = gws[0]

	// Stop the last incarnation (the marks of the last kill are younger
	// than the lease, so its start-up sweep left them), then start a
	// server once they are older than the lease: its start-up sweep
	// settles them.
	g.Stop(t)
	mm := checkStore(t, be, 3)
	t.Logf("%d unsettled global index entities before the final restart", len(mm))
	if wait := time.Until(lastKill.Add(ixmaint.DefaultLease + time.Second)); wait > 0 {
		time.Sleep(wait)
	}
	g = startGateway(t, nil, "--store", be.store)
	g.MustBeReady(t, "final restart failed")
	if len(mm) > 0 {
		waitFor(t, "the start-up index recovery line", 20*time.Second, func() error {
			if recoveryLine.MatchString(g.Out.String()) {
				return nil
			}
			return fmt.Errorf("log: %s", g.Out.String())
		})
	}
	if strings.Contains(g.Out.String(), "level=WARN") {
		t.Errorf("server warnings: %s", g.Out.String())
	}
	checkSQL(t, g.Client(t), be.db, writers, "final")
	g.Stop(t)
	if mm := checkStore(t, be, 3); len(mm) > 0 {
		t.Errorf("after recovery, the indexes differ from the rows: %v", mm)
	}
	total := map[string]int{}
	for _, cw := range writers {
		for k, n := range cw.stats {
			total[k] += n
		}
	}
	t.Logf("%d kills in %v; statements: %v", kills, time.Since(start).Round(time.Millisecond), total)
}

// checkStore opens the store directly (no server may hold a Pebble
// directory) and compares every index of table t with its rows; the table
// must have indexes indexes (0: any number).
func checkStore(t *testing.T, be crashBackend, indexes int) []ixmaint.Mismatch {
	t.Helper()
	ctx := context.Background()
	st, closeStore := be.open(t)
	defer closeStore()
	tbl := sqltest.StoreTable(t, st, catalog.Options{}, be.db, "t")
	if indexes > 0 && len(tbl.Indexes) != indexes {
		t.Fatalf("table has %d indexes, want %d", len(tbl.Indexes), indexes)
	}
	// Through catalog/txn's view, as the gateway reads: it hides the
	// versions kept on Azure Table (catalog/txn, "Isolation").
	cat, err := catalog.Open(ctx, st, catalog.Options{})
	if err != nil {
		t.Fatalf("catalog: %v", err)
	}
	view := txn.Wrap(st, strings.TrimSuffix(cat.CatalogTable(), "catalog")+"txn", txn.Options{})
	mm, err := ixmaint.Check(ctx, view, tbl)
	if err != nil {
		t.Fatalf("ixmaint.Check: %v", err)
	}
	return mm
}

// resolvePending reads the row of a writer's statement in flight at the
// kill: it must be the row before or after it, wholly.
func resolvePending(t *testing.T, db *sql.DB, dbName string, cw *crashWriter) {
	t.Helper()
	pw := cw.pending
	if pw == nil {
		return
	}
	cw.pending = nil
	got := make([]*crow, len(pw.ids))
	for i, id := range pw.ids {
		r, err := readRow(db, dbName, id)
		if err != nil {
			t.Fatalf("reading row %d: %v", id, err)
		}
		got[i] = r
	}
	all := func(want []*crow) bool {
		for i := range want {
			if !sameRow(got[i], want[i]) {
				return false
			}
		}
		return true
	}
	switch {
	case all(pw.after):
		for i, id := range pw.ids {
			cw.rows[id] = pw.after[i]
			cw.note(id, "after restart: the write in flight had committed")
		}
		cw.stats["in-flight-committed"]++
	case all(pw.before):
		for _, id := range pw.ids {
			cw.note(id, "after restart: the write in flight had not committed")
		}
		cw.stats["in-flight-lost"]++
	default:
		t.Errorf("rows %v after the kill during %q: %v, want all of %v (before) or all of %v (after)", pw.ids, pw.stmt, got, pw.before, pw.after)
		for i, id := range pw.ids {
			cw.rows[id] = got[i]
		}
	}
}

func readRow(db *sql.DB, dbName string, id int) (*crow, error) {
	var r crow
	var u sql.NullInt64
	err := db.QueryRow("SELECT a, g, u, v FROM "+dbName+".t WHERE p = ? AND id = ?", id%crashPartitions, id).Scan(&r.a, &r.g, &u, &r.v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	r.u = -1
	if u.Valid {
		r.u = int(u.Int64)
	}
	return &r, err
}

// checkSQL compares the table, read by a scan and through each index,
// with the writers' model.
func checkSQL(t *testing.T, db *sql.DB, dbName string, writers []*crashWriter, when string) {
	t.Helper()
	// The model: every acknowledged write, and no unique value twice.
	want := map[int]*crow{}
	holder := map[int]int{}
	for _, cw := range writers {
		for id, r := range cw.rows {
			if r == nil {
				continue
			}
			want[id] = r
			if r.u >= 0 {
				if other, ok := holder[r.u]; ok {
					t.Errorf("%s: acknowledged writes gave u=%d to rows %d and %d", when, r.u, other, id)
				}
				holder[r.u] = id
			}
		}
	}
	query := func(q string, args ...any) []string {
		t.Helper()
		out := sqltest.NewRunner(t, db).Rows(q, args...)
		for i := range out {
			out[i] = strings.ReplaceAll(out[i], "\t", " ")
		}
		sort.Strings(out)
		return out
	}
	explain := func(q, index string, args ...any) {
		t.Helper()
		plan := strings.Join(query("EXPLAIN "+q, args...), "\n")
		if !strings.Contains(plan, "index "+index+" ") {
			t.Fatalf("%s: %s does not read index %s:\n%s", when, q, index, plan)
		}
	}
	tb := dbName + ".t"

	// All rows by a scan, against the model.
	var wantAll []string
	for id, r := range want {
		u := "NULL"
		if r.u >= 0 {
			u = fmt.Sprint(r.u)
		}
		wantAll = append(wantAll, fmt.Sprintf("%d %d %d %d %s %s", id%crashPartitions, id, r.a, r.g, u, r.v))
	}
	sort.Strings(wantAll)
	gotAll := query("SELECT p, id, a, g, u, v FROM " + tb)
	if !slices.Equal(gotAll, wantAll) {
		t.Errorf("%s: the rows differ from the acknowledged writes:\n%s", when, diffLines(gotAll, wantAll))
	}
	if dup := query("SELECT u, COUNT(*) FROM " + tb + " WHERE u IS NOT NULL GROUP BY u HAVING COUNT(*) > 1"); len(dup) > 0 {
		t.Errorf("%s: unique values held twice: %v", when, dup)
	}

	// Through each index (covering ranges and non-covering lookups),
	// against a scan of the same predicate (the +0 hides the column from
	// the planner).
	same := func(q, scan, index string, args ...any) {
		t.Helper()
		explain(q, index, args...)
		got, exp := query(q, args...), query(scan, args...)
		if !slices.Equal(got, exp) {
			t.Errorf("%s: through %s: %s %v:\n%s", when, index, q, args, diffLines(got, exp))
		}
	}
	same("SELECT p, id, g FROM "+tb+" WHERE g >= 0", "SELECT p, id, g FROM "+tb+" WHERE g + 0 >= 0", "gg")
	same("SELECT p, id, u FROM "+tb+" WHERE u >= 0", "SELECT p, id, u FROM "+tb+" WHERE u + 0 >= 0", "uu")
	for p := range crashPartitions {
		same("SELECT p, id, a FROM "+tb+" WHERE p = ? AND a >= 0", "SELECT p, id, a FROM "+tb+" WHERE p = ? AND a + 0 >= 0", "la", p)
	}
	for _, v := range []int{0, 7, 23, 49} {
		same("SELECT * FROM "+tb+" WHERE g = ?", "SELECT * FROM "+tb+" WHERE g + 0 = ?", "gg", v)
		same("SELECT * FROM "+tb+" WHERE p = ? AND a = ?", "SELECT * FROM "+tb+" WHERE p = ? AND a + 0 = ?", "la", v%crashPartitions, v)
	}
	for u := range crashU {
		if u%5 != 0 {
			continue
		}
		same("SELECT * FROM "+tb+" WHERE u = ?", "SELECT * FROM "+tb+" WHERE u + 0 = ?", "uu", u)
	}
}

// diffLines lists the lines only in got (+) or only in want (-).
func diffLines(got, want []string) string {
	in := func(xs []string) map[string]bool {
		m := map[string]bool{}
		for _, x := range xs {
			m[x] = true
		}
		return m
	}
	g, w := in(got), in(want)
	var sb strings.Builder
	for _, x := range got {
		if !w[x] {
			fmt.Fprintf(&sb, "  + %s\n", x)
		}
	}
	for _, x := range want {
		if !g[x] {
			fmt.Fprintf(&sb, "  - %s\n", x)
		}
	}
	return sb.String()
}

// step2 writes two rows of one partition atomically: a multi-row INSERT
// when both are absent, a transaction of two UPDATEs changing every
// indexed value when both exist (skipped otherwise).
func (cw *crashWriter) step2(ctx context.Context, db *sql.DB, killed *atomic.Bool, errorf func(string, ...any), id1, id2 int) bool {
	p := id1 % crashPartitions
	if id2%crashPartitions != p {
		panic("step2: rows in different partitions")
	}
	ids := []int{id1, id2}
	before := []*crow{cw.rows[id1], cw.rows[id2]}
	after := make([]*crow, 2)
	uArg := func(u int) any {
		if u < 0 {
			return nil
		}
		return u
	}
	for i := range after {
		after[i] = &crow{a: cw.rng.IntN(50), g: cw.rng.IntN(50), u: cw.rng.IntN(crashU), v: fmt.Sprintf("m%d.%d.%d", cw.w, cw.seq, i)}
	}
	var kind string
	var run func() (committed bool, err error)
	switch {
	case before[0] == nil && before[1] == nil:
		kind = "insert-2rows"
		run = func() (bool, error) {
			res, err := db.ExecContext(ctx, "INSERT INTO t (p, id, a, g, u, v) VALUES (?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?)",
				p, id1, after[0].a, after[0].g, uArg(after[0].u), after[0].v,
				p, id2, after[1].a, after[1].g, uArg(after[1].u), after[1].v)
			if err == nil {
				if n, _ := res.RowsAffected(); n != 2 {
					errorf("writer %d: %s: %d rows affected, want 2", cw.w, kind, n)
				}
			}
			return err == nil, err
		}
	case before[0] != nil && before[1] != nil:
		kind = "txn-2rows"
		run = func() (bool, error) {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				return false, err
			}
			for i, id := range ids {
				if _, err := tx.ExecContext(ctx, "UPDATE t SET a = ?, g = ?, u = ?, v = ? WHERE p = ? AND id = ?",
					after[i].a, after[i].g, uArg(after[i].u), after[i].v, p, id); err != nil {
					if classify(err) != errConn {
						tx.Rollback()
					}
					return false, err
				}
			}
			err = tx.Commit()
			return err == nil, err
		}
	default:
		return true
	}
	stmt := fmt.Sprintf("%s %v", kind, ids)
	for attempt := 0; ; attempt++ {
		committed, err := run()
		switch classify(err) {
		case errNone:
			if !committed {
				errorf("writer %d: %s: no error and no commit", cw.w, stmt)
			}
			for i, id := range ids {
				cw.rows[id] = after[i]
				cw.note(id, "%s %v ok: %s", kind, ids, after[i])
			}
			cw.stats[kind]++
			return true
		case errDup:
			cw.stats[kind+"-1062"]++
			for _, id := range ids {
				cw.note(id, "%s %v 1062", kind, ids)
			}
			return true
		case errRetry:
			if cw.backoff(attempt) {
				continue
			}
			errorf("writer %d: %s: still %v after %d attempts", cw.w, stmt, err, attempt)
		case errServer:
			errorf("writer %d: %s: unexpected error %v", cw.w, stmt, err)
		default:
			if !killed.Load() {
				errorf("writer %d: %s: %v while the server was running", cw.w, stmt, err)
			}
		}
		for i, id := range ids {
			cw.note(id, "%s in flight at the kill or failed (%s)", stmt, after[i])
		}
		cw.pending = &pendingWrite{stmt, ids, before, after}
		return false
	}
}
