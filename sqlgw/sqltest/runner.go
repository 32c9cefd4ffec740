package sqltest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/go-sql-driver/mysql"
)

// Execer is what a Runner runs statements on: a *sql.DB, *sql.Conn or
// *sql.Tx.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Runner runs SQL and fails the test (t.Fatal) when a statement does not
// do what the test expects.
type Runner struct {
	T  testing.TB
	DB Execer
}

// NewRunner returns a Runner on db.
func NewRunner(t testing.TB, db Execer) *Runner { return &Runner{T: t, DB: db} }

// Exec runs a statement that must succeed.
func (r *Runner) Exec(q string, args ...any) sql.Result {
	r.T.Helper()
	res, err := r.DB.ExecContext(context.Background(), q, args...)
	if err != nil {
		r.T.Fatalf("%s: %v", q, err)
	}
	return res
}

// ExecAll runs statements that must succeed, in order.
func (r *Runner) ExecAll(qs ...string) {
	r.T.Helper()
	for _, q := range qs {
		r.Exec(q)
	}
}

// Affected runs a statement that must succeed and returns its affected-rows
// count.
func (r *Runner) Affected(q string, args ...any) int64 {
	r.T.Helper()
	n, err := r.Exec(q, args...).RowsAffected()
	if err != nil {
		r.T.Fatal(err)
	}
	return n
}

// ExpectAffected runs a statement that must succeed with want rows
// affected.
func (r *Runner) ExpectAffected(want int64, q string, args ...any) {
	r.T.Helper()
	if n := r.Affected(q, args...); n != want {
		r.T.Fatalf("%s: %d rows affected, want %d", q, n, want)
	}
}

// Rows returns a query's result as lines of tab-separated values ("NULL"
// for NULL).
func (r *Runner) Rows(q string, args ...any) []string {
	r.T.Helper()
	rs, err := r.DB.QueryContext(context.Background(), q, args...)
	if err != nil {
		r.T.Fatalf("%s: %v", q, err)
	}
	defer rs.Close()
	out := r.scan(q, rs)
	if err := rs.Err(); err != nil {
		r.T.Fatalf("%s: %v", q, err)
	}
	return out
}

// ResultSets returns every result set of a multi-statement query (the
// connection needs multiStatements=true; see Server.Open), each as Rows
// gives it.
func (r *Runner) ResultSets(q string, args ...any) [][]string {
	r.T.Helper()
	rs, err := r.DB.QueryContext(context.Background(), q, args...)
	if err != nil {
		r.T.Fatalf("%s: %v", q, err)
	}
	defer rs.Close()
	var sets [][]string
	for {
		sets = append(sets, r.scan(q, rs))
		if !rs.NextResultSet() {
			break
		}
	}
	if err := rs.Err(); err != nil {
		r.T.Fatalf("%s: %v", q, err)
	}
	return sets
}

// scan reads the rows of rs's current result set.
func (r *Runner) scan(q string, rs *sql.Rows) []string {
	r.T.Helper()
	cols, _ := rs.Columns()
	var out []string
	for rs.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			r.T.Fatalf("%s: %v", q, err)
		}
		parts := make([]string, len(cols))
		for i, v := range vals {
			if v.Valid {
				parts[i] = v.String
			} else {
				parts[i] = "NULL"
			}
		}
		out = append(out, strings.Join(parts, "\t"))
	}
	return out
}

// ExpectRows runs a query and fails unless its result (as Rows gives it)
// is want, in order.
func (r *Runner) ExpectRows(q string, want ...string) {
	r.T.Helper()
	got := r.Rows(q)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		r.T.Fatalf("%s:\n got: %q\nwant: %q", q, got, want)
	}
}

// Errno returns the MySQL error number of err (0 when it is not a MySQL
// error).
func Errno(err error) uint16 {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

// ExpectErrno runs a statement that must fail with MySQL error number want.
func (r *Runner) ExpectErrno(want uint16, q string, args ...any) {
	r.T.Helper()
	_, err := r.DB.ExecContext(context.Background(), q, args...)
	if err == nil {
		r.T.Fatalf("%s: succeeded, want error %d", q, want)
	}
	if got := Errno(err); got != want {
		r.T.Fatalf("%s: error %v (%d), want %d", q, err, got, want)
	}
}

// ExpectError runs a statement that must fail with MySQL error number want
// and a message containing msg.
func (r *Runner) ExpectError(want uint16, msg, q string, args ...any) {
	r.T.Helper()
	_, err := r.DB.ExecContext(context.Background(), q, args...)
	if err == nil {
		r.T.Fatalf("%s: succeeded, want error %d", q, want)
	}
	if got := Errno(err); got != want || !strings.Contains(err.Error(), msg) {
		r.T.Fatalf("%s: error %v (%d), want %d with %q", q, err, got, want, msg)
	}
}

// ExpectMessage runs q and fails unless it fails with MySQL error want
// and exactly the message msg.
func (r *Runner) ExpectMessage(want uint16, msg, q string, args ...any) {
	r.T.Helper()
	_, err := r.DB.ExecContext(context.Background(), q, args...)
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Number != want || me.Message != msg {
		r.T.Fatalf("%s: %v, want error %d %q", q, err, want, msg)
	}
}

// Status returns the session's sqlgw counters: store requests sent and
// entities read (Sqlgw_store_requests, Sqlgw_entities_read). The runner
// must be on one session (a *sql.Conn).
func (r *Runner) Status() (requests, entities int64) {
	r.T.Helper()
	for _, line := range r.Rows("SHOW SESSION STATUS LIKE 'Sqlgw%'") {
		name, val, _ := strings.Cut(line, "\t")
		var n int64
		fmt.Sscan(val, &n)
		switch name {
		case "Sqlgw_store_requests":
			requests = n
		case "Sqlgw_entities_read":
			entities = n
		}
	}
	return
}

// Cost runs q (a query when it starts with SELECT, else a statement) and
// returns the store requests and entities read it cost its session.
func (r *Runner) Cost(q string) (requests, entities int64) {
	r.T.Helper()
	r0, e0 := r.Status()
	if strings.HasPrefix(strings.ToUpper(q), "SELECT") {
		r.Rows(q)
	} else {
		r.Exec(q)
	}
	r1, e1 := r.Status()
	return r1 - r0, e1 - e0
}

// CostCase is a statement and what it must cost its session: store
// requests and entities read.
type CostCase struct {
	Q              string
	Reqs, Entities int64
}

// ExpectCosts runs each case (Cost) and reports every case whose cost
// differs with Errorf, so that the other cases still run. The runner must
// be on one session.
func (r *Runner) ExpectCosts(cases []CostCase) {
	r.T.Helper()
	for _, tc := range cases {
		reqs, ents := r.Cost(tc.Q)
		if reqs != tc.Reqs || ents != tc.Entities {
			r.T.Errorf("%s: %d requests, %d entities; want %d, %d", tc.Q, reqs, ents, tc.Reqs, tc.Entities)
		}
	}
}

// ExpectRequests runs q (Cost) and reports with Errorf a cost other than
// want store requests; what names the case.
func (r *Runner) ExpectRequests(want int64, q, what string) {
	r.T.Helper()
	if n, _ := r.Cost(q); n != want {
		r.T.Errorf("%s: %d requests, want %d", what, n, want)
	}
}

// InsertRows inserts n rows into table with multi-row INSERTs of at most
// per rows each; row(i) gives the values of row i (0 <= i < n) as a
// parenthesised list, e.g. "(1, 'a')".
func (r *Runner) InsertRows(table string, n, per int, row func(i int) string) {
	r.T.Helper()
	vals := make([]string, 0, per)
	for i := 0; i < n; i++ {
		vals = append(vals, row(i))
		if len(vals) == per || i == n-1 {
			r.Exec("INSERT INTO " + table + " VALUES " + strings.Join(vals, ", "))
			vals = vals[:0]
		}
	}
}

// Race runs each connection's statements (stmts[i] on conns[i]) in a
// goroutine of its own, all released at the same moment, and returns each
// connection's first error (nil: all its statements succeeded). A
// connection stops at its first error and rolls back.
func Race(conns []*sql.Conn, stmts [][]string) []error {
	errs := make([]error, len(conns))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for _, q := range stmts[i] {
				if _, err := c.ExecContext(context.Background(), q); err != nil {
					errs[i] = err
					c.ExecContext(context.Background(), "ROLLBACK")
					return
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	return errs
}

// ColumnTypes runs query q and returns its result's column metadata (none
// for a statement answered with an OK packet); the rows are read and
// dropped.
func (r *Runner) ColumnTypes(q string, args ...any) []*sql.ColumnType {
	r.T.Helper()
	rs, err := r.DB.QueryContext(context.Background(), q, args...)
	if err != nil {
		r.T.Fatalf("%s: %v", q, err)
	}
	defer rs.Close()
	cts, err := rs.ColumnTypes()
	if err != nil {
		r.T.Fatalf("%s: %v", q, err)
	}
	for rs.Next() {
	}
	return cts
}
