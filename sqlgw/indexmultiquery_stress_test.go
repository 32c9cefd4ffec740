package sqlgw_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/sqlgw/engine"
)

// TestIndexMultiQueryConcurrentWrites: IN lists on a global index, read
// with one storage.MultiQuery call (multiQueryHits) and the hits' rows
// with one storage.MultiGet call (indexhits.go), while other sessions
// move rows between index values and delete and re-insert them. Every
// row returned must have its k in the list (hits are verified against the
// rows), no row twice; and inside a transaction the same IN list read
// twice returns the same rows (one snapshot for the transaction), also
// when its own buffered write to the table comes in between. (Each writer
// has rows of its own: two sessions' DELETE and INSERT IGNORE of one id
// can fail with 1062 on main too.)
func TestIndexMultiQueryConcurrentWrites(t *testing.T) {
	host, port := startServer(t, false)
	db, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/", net.JoinHostPort(host, strconv.Itoa(port))))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for _, q := range []string{"CREATE DATABASE mqs", "CREATE TABLE mqs.t (id INT PRIMARY KEY, k INT, c VARCHAR(20), KEY k_1 (k))"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	const rows, ks = 200, 30
	var sb strings.Builder
	sb.WriteString("INSERT INTO mqs.t VALUES ")
	for i := range rows {
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "(%d, %d, 'c%d')", i, i%ks, i)
	}
	if _, err := db.ExecContext(ctx, sb.String()); err != nil {
		t.Fatal(err)
	}
	m0, g0 := engine.IndexMultiQueries(), engine.IndexMultiGets()
	deadline := time.Now().Add(4 * time.Second)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for time.Now().Before(deadline) {
				id := r.IntN(rows/2)*2 + w // each writer its own rows
				var err error
				switch r.IntN(3) {
				case 0:
					_, err = db.ExecContext(ctx, "DELETE FROM mqs.t WHERE id = ?", id)
					if err == nil {
						_, err = db.ExecContext(ctx, "INSERT IGNORE INTO mqs.t VALUES (?, ?, 'again')", id, r.IntN(ks))
					}
				default:
					_, err = db.ExecContext(ctx, "UPDATE mqs.t SET k = ? WHERE id = ?", r.IntN(ks), id)
				}
				if err != nil && !strings.Contains(err.Error(), "1213") && !strings.Contains(err.Error(), "Deadlock") {
					errs <- err
					return
				}
			}
		}()
	}
	read := func(c interface {
		QueryContext(context.Context, string, ...any) (*sql.Rows, error)
	}, vals []any) ([]string, error) {
		// c is not in k_1: the hits' rows are read (a covering plan
		// reads none).
		rs, err := c.QueryContext(ctx, "SELECT id, k, c FROM mqs.t WHERE k IN (?, ?, ?, ?, ?, ?)", vals...)
		if err != nil {
			return nil, err
		}
		defer rs.Close()
		var out []string
		for rs.Next() {
			var id, k int
			var cv string
			if err := rs.Scan(&id, &k, &cv); err != nil {
				return nil, err
			}
			if !slices.Contains(vals, any(k)) {
				return nil, fmt.Errorf("row %d with k = %d for k IN %v", id, k, vals)
			}
			out = append(out, fmt.Sprint(id, ":", k))
		}
		ids := map[string]bool{}
		for _, s := range out {
			id := strings.Split(s, ":")[0]
			if ids[id] {
				return nil, fmt.Errorf("row %s twice for k IN %v: %v", id, vals, out)
			}
			ids[id] = true
		}
		return out, rs.Err()
	}
	for rd := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(rd), 2))
			conn, err := db.Conn(ctx)
			if err != nil {
				errs <- err
				return
			}
			defer conn.Close()
			for time.Now().Before(deadline) {
				vals := make([]any, 6)
				for i := range vals {
					vals[i] = r.IntN(ks)
				}
				if _, err := read(conn, vals); err != nil {
					errs <- err
					return
				}
				// A transaction: the same read twice at its snapshot, with
				// its own writes in between and after them rolled back.
				if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
					errs <- err
					return
				}
				a, err := read(conn, vals)
				if err == nil {
					_, err = conn.ExecContext(ctx, "UPDATE mqs.t SET c = 'mine' WHERE id = ?", r.IntN(rows))
				}
				var b []string
				if err == nil {
					b, err = read(conn, vals)
				}
				conn.ExecContext(ctx, "ROLLBACK")
				if err != nil && !strings.Contains(err.Error(), "1213") {
					errs <- err
					return
				}
				// Without ORDER BY: in index order, or in key order when the
				// transaction's buffered writes are merged (iter.go).
				slices.Sort(a)
				slices.Sort(b)
				if err == nil && !slices.Equal(a, b) {
					errs <- fmt.Errorf("k IN %v twice in one transaction: %v, then %v", vals, a, b)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := engine.IndexMultiQueries() - m0; n < 20 {
		t.Errorf("only %d index reads in one MultiQuery", n)
	}
	if n := engine.IndexMultiGets() - g0; n < 20 {
		t.Errorf("only %d reads of verified hits' rows in one MultiGet", n)
	}
}
