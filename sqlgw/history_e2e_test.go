package sqlgw_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// A history checker for the anomalies sqlgw's isolation forbids (sqlgw/
// txn.go): registers in separate partitions, each write a unique value;
// transactions read some registers and overwrite some of those they read
// (sometimes twice: an intermediate value), concurrently over TCP, and
// every transaction's reads and writes are recorded with its outcome.
// The checker then looks for
//
//   - G1a (aborted read): a value read that an aborted transaction wrote;
//   - G1b (intermediate read): a value read that a committed transaction
//     overwrote within itself;
//   - dirty or phantom values: a value read that no transaction committed;
//   - lost update: two committed transactions that read the same version
//     of a register and both overwrote it (the version order of every
//     register must be one chain from its initial value);
//   - G1c: a cycle of write-write and write-read dependencies;
//   - G-single, which includes read skew: a transaction that read a
//     version overwritten by a transaction whose effects it also saw
//     (directly or through later transactions). Read-only transactions
//     read every register in one statement or in two, with commits in
//     between. Snapshot reads (sqlgw/engine/snapshot.go) forbid it; on a store
//     without snapshots (Azure Table) it is counted, not failed.
//
// TestHistoryChecker shows the checker finds each anomaly in a
// hand-written history.

type histTxn struct {
	reads     map[int]int64 // register -> value read
	writes    map[int]int64 // register -> final value written
	inter     map[int]int64 // register -> intermediate value written
	committed bool
}

const histRegs = 12

func TestHistoryAnomalies(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		db := sqltest.NewRunner(t, ts.DB)
		db.Exec("CREATE DATABASE hist")
		db.Exec("CREATE TABLE hist.reg (k INT PRIMARY KEY, v BIGINT NOT NULL)")
		for k := 0; k < histRegs; k++ {
			db.Exec("INSERT INTO hist.reg VALUES (?, 0)", k)
		}
		ts.DB.SetMaxOpenConns(8)
		var next atomic.Int64
		var mu sync.Mutex
		var hist []*histTxn
		ctx, cancel := context.WithTimeout(context.Background(), bankDuration())
		defer cancel()
		var wg sync.WaitGroup
		var failMu sync.Mutex
		var fail error
		for w := 0; w < 6; w++ {
			wg.Add(1)
			go func(seed int64) {
				defer wg.Done()
				r := rand.New(rand.NewSource(seed))
				for ctx.Err() == nil {
					h, err := histOne(ctx, ts.DB, r, &next)
					if err != nil && ctx.Err() != nil {
						return // cut short by the end of the run: not committed
					}
					// A transaction that committed as the run ended is kept:
					// dropping it made its writes look like nobody's.
					if err != nil && sqltest.Errno(err) != 1213 {
						failMu.Lock()
						fail = err
						failMu.Unlock()
						return
					}
					mu.Lock()
					hist = append(hist, h)
					mu.Unlock()
				}
			}(time.Now().UnixNano() + int64(w))
		}
		wg.Wait()
		if fail != nil {
			t.Fatalf("a transaction failed with an error other than 1213: %v", fail)
		}
		checkHistory(t, hist)
	})
}

// histOne runs one transaction: reads 2 or 3 registers, overwrites 1 or 2
// of them with fresh unique values (sometimes through an intermediate one).
func histOne(ctx context.Context, db *sql.DB, r *rand.Rand, next *atomic.Int64) (*histTxn, error) {
	h := &histTxn{reads: map[int]int64{}, writes: map[int]int64{}, inter: map[int]int64{}}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return h, err
	}
	defer tx.Rollback()
	if r.Intn(3) == 0 {
		return h, histReadOnly(ctx, tx, r, h)
	}
	ks := r.Perm(histRegs)[:2+r.Intn(2)]
	for _, k := range ks {
		var v int64
		if err := tx.QueryRow("SELECT v FROM hist.reg WHERE k = ?", k).Scan(&v); err != nil {
			return h, err
		}
		h.reads[k] = v
	}
	for _, k := range ks[:1+r.Intn(2)] {
		if r.Intn(3) == 0 {
			iv := next.Add(1)
			if _, err := tx.Exec("UPDATE hist.reg SET v = ? WHERE k = ?", iv, k); err != nil {
				return h, err
			}
			h.inter[k] = iv
		}
		v := next.Add(1)
		if _, err := tx.Exec("UPDATE hist.reg SET v = ? WHERE k = ?", v, k); err != nil {
			return h, err
		}
		h.writes[k] = v
	}
	if r.Intn(8) == 0 {
		return h, tx.Rollback() // an abort on purpose
	}
	if err := tx.Commit(); err != nil {
		return h, err
	}
	h.committed = true
	return h, nil
}

// histReadOnly reads every register, in one statement or in two (the
// halves, with commits likely in between), and commits.
func histReadOnly(ctx context.Context, tx *sql.Tx, r *rand.Rand, h *histTxn) error {
	read := func(q string) error {
		rows, err := tx.QueryContext(ctx, q)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k int
			var v int64
			if err := rows.Scan(&k, &v); err != nil {
				return err
			}
			h.reads[k] = v
		}
		return rows.Err()
	}
	if r.Intn(2) == 0 {
		if err := read("SELECT k, v FROM hist.reg"); err != nil {
			return err
		}
	} else {
		if err := read(fmt.Sprintf("SELECT k, v FROM hist.reg WHERE k < %d", histRegs/2)); err != nil {
			return err
		}
		time.Sleep(time.Duration(r.Intn(5)) * time.Millisecond)
		if err := read(fmt.Sprintf("SELECT k, v FROM hist.reg WHERE k >= %d", histRegs/2)); err != nil {
			return err
		}
	}
	if len(h.reads) != histRegs {
		return fmt.Errorf("read %d registers, want %d", len(h.reads), histRegs)
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	h.committed = true
	return nil
}

func checkHistory(t *testing.T, hist []*histTxn) {
	t.Helper()
	rep := analyzeHistory(hist)
	for _, e := range rep.errors {
		t.Error(e)
	}
	if rep.committed == 0 {
		t.Fatal("no transaction committed")
	}
	if rep.readOnly == 0 {
		t.Fatal("no read-only transaction committed")
	}
	for _, e := range rep.skews {
		t.Error(e)
	}
	t.Logf("history: %d transactions, %d committed (%d read-only); %d dependency edges; read skew (G-single) %d times",
		len(hist), rep.committed, rep.readOnly, rep.edges, len(rep.skews))
}

// histReport is what analyzeHistory finds: errors are anomalies every
// level forbids, skews the read skews (G-single) that snapshots forbid.
type histReport struct {
	errors, skews              []string
	committed, readOnly, edges int
}

// analyzeHistory checks a history of register transactions in which every
// write of a register overwrites a value the transaction read (so the
// version order of each register is the chain of committed overwrites
// from 0). Beyond the value checks (G1a, G1b, values no transaction
// committed) and lost updates (two overwrites of one version), it builds
// Adya's direct serialization graph over the committed transactions: ww
// (the writer of a version to the writer of the next), wr (the writer of a
// version to its readers), rw (a reader of a version to the writer of the
// next one), and reports G1c (a cycle of ww and wr edges: circular
// information flow) as an error and every rw edge T->U where U reaches T
// through ww and wr edges (G-single: a cycle with exactly one
// anti-dependency, which includes read skew) as a skew.
func analyzeHistory(hist []*histTxn) histReport {
	var rep histReport
	errorf := func(f string, a ...any) { rep.errors = append(rep.errors, fmt.Sprintf(f, a...)) }
	committedBy := map[int64]*histTxn{} // final values of committed txns
	abortedVal := map[int64]bool{}
	interVal := map[int64]bool{}
	for _, h := range hist {
		for _, v := range h.inter {
			interVal[v] = true
		}
		for _, v := range h.writes {
			if h.committed {
				committedBy[v] = h
			} else {
				abortedVal[v] = true
			}
		}
		if h.committed {
			rep.committed++
			if len(h.writes) == 0 {
				rep.readOnly++
			}
		}
	}
	// Reads.
	for _, h := range hist {
		if !h.committed {
			continue // an aborted transaction's reads may be stale, never wrong, but are not checked
		}
		for k, v := range h.reads {
			switch {
			case v == 0:
			case abortedVal[v]:
				errorf("G1a: register %d read %d, written by an aborted transaction", k, v)
			case interVal[v]:
				errorf("G1b: register %d read %d, an intermediate value", k, v)
			case committedBy[v] == nil:
				errorf("register %d read %d, which no transaction committed", k, v)
			}
		}
	}
	// Lost updates: per register, each version is overwritten by at most
	// one committed transaction (next[k][v]).
	next := map[int]map[int64]*histTxn{}
	for _, h := range hist {
		if !h.committed {
			continue
		}
		for k, w := range h.writes {
			from, ok := h.reads[k]
			if !ok {
				errorf("register %d written (%d) by a transaction that did not read it: the workload must read what it writes", k, w)
				continue
			}
			if next[k] == nil {
				next[k] = map[int64]*histTxn{}
			}
			if prev := next[k][from]; prev != nil {
				errorf("lost update: register %d: two committed transactions read %d and overwrote it (with %d and %d)", k, from, prev.writes[k], w)
				continue
			}
			next[k][from] = h
		}
	}
	// The dependency graph.
	id := map[*histTxn]int{}
	for _, h := range hist {
		if h.committed {
			id[h] = len(id)
		}
	}
	dep := make([][]int, len(id)) // ww and wr edges
	type edge struct {
		from, to *histTxn
		k        int
		v        int64
	}
	var rw []edge
	for _, h := range hist {
		if !h.committed {
			continue
		}
		for k, v := range h.reads {
			if w := committedBy[v]; v != 0 && w != nil && w != h {
				dep[id[w]] = append(dep[id[w]], id[h]) // wr (and ww, when h overwrites v)
				rep.edges++
			}
			if u := next[k][v]; u != nil && u != h {
				rw = append(rw, edge{h, u, k, v})
				rep.edges++
			}
		}
	}
	reach := func(from, to int) bool {
		seen := make([]bool, len(dep))
		stack := []int{from}
		seen[from] = true
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if n == to {
				return true
			}
			for _, m := range dep[n] {
				if !seen[m] {
					seen[m] = true
					stack = append(stack, m)
				}
			}
		}
		return false
	}
	// G1c: a cycle of ww/wr edges (Tarjan would do; a DFS colouring does).
	colour := make([]int, len(dep))
	var cyclic bool
	var visit func(n int)
	visit = func(n int) {
		colour[n] = 1
		for _, m := range dep[n] {
			if colour[m] == 1 {
				cyclic = true
			} else if colour[m] == 0 {
				visit(m)
			}
		}
		colour[n] = 2
	}
	for n := range dep {
		if colour[n] == 0 {
			visit(n)
		}
	}
	if cyclic {
		errorf("G1c: a cycle of write-write and write-read dependencies among committed transactions")
	}
	for _, e := range rw {
		if reach(id[e.to], id[e.from]) {
			rep.skews = append(rep.skews, fmt.Sprintf("G-single (read skew): a transaction read %d of register %d, overwritten by a transaction whose effects (or later ones) it also saw", e.v, e.k))
		}
	}
	return rep
}

// TestHistoryChecker: the checker finds each anomaly in a hand-written
// history (and none in a serial one).
func TestHistoryChecker(t *testing.T) {
	txn := func(committed bool, reads, writes map[int]int64) *histTxn {
		if reads == nil {
			reads = map[int]int64{}
		}
		if writes == nil {
			writes = map[int]int64{}
		}
		return &histTxn{reads: reads, writes: writes, inter: map[int]int64{}, committed: committed}
	}
	type m = map[int]int64
	serial := []*histTxn{
		txn(true, m{0: 0, 1: 0}, m{0: 1, 1: 2}),
		txn(true, m{0: 1, 1: 2}, nil),
		txn(true, m{1: 2}, m{1: 3}),
		txn(true, m{0: 1, 1: 3}, nil),
	}
	if rep := analyzeHistory(serial); len(rep.errors)+len(rep.skews) != 0 {
		t.Fatalf("a serial history: %v %v", rep.errors, rep.skews)
	}
	aborted := txn(false, m{0: 0}, m{0: 7})
	inter := txn(true, m{1: 0}, m{1: 9})
	inter.inter[1] = 8
	cases := []struct {
		name   string
		hist   []*histTxn
		errors bool // else skews
		want   string
	}{
		{"G1a", []*histTxn{aborted, txn(true, m{0: 7}, nil)}, true, "G1a"},
		{"G1b", []*histTxn{inter, txn(true, m{1: 8}, nil)}, true, "G1b"},
		{"lost update", []*histTxn{txn(true, m{0: 0}, m{0: 1}), txn(true, m{0: 0}, m{0: 2})}, true, "lost update"},
		{"G1c", []*histTxn{txn(true, m{0: 0, 1: 2}, m{0: 1}), txn(true, m{0: 1, 1: 0}, m{1: 2})}, true, "G1c"},
		// A transfer T from register 0 to 1 (values 1, 2); a reader sees
		// 0 before T and 1 after it.
		{"read skew", []*histTxn{txn(true, m{0: 0, 1: 0}, m{0: 1, 1: 2}), txn(true, m{0: 0, 1: 2}, nil)}, false, "G-single"},
		// Through a later transaction: U overwrites 1 after T; the reader
		// sees U's value of 1 and the value of 0 before T.
		{"read skew via a later transaction", []*histTxn{txn(true, m{0: 0, 1: 0}, m{0: 1, 1: 2}), txn(true, m{1: 2}, m{1: 3}), txn(true, m{0: 0, 1: 3}, nil)}, false, "G-single"},
	}
	for _, c := range cases {
		rep := analyzeHistory(c.hist)
		got := rep.skews
		if c.errors {
			got = rep.errors
		}
		found := false
		for _, e := range got {
			found = found || strings.Contains(e, c.want)
		}
		if !found {
			t.Errorf("%s: not found (errors %q, skews %q)", c.name, rep.errors, rep.skews)
		}
	}
	// Write skew is not G-single: both read both, each writes one.
	ws := []*histTxn{txn(true, m{0: 0, 1: 0}, m{0: 1}), txn(true, m{0: 0, 1: 0}, m{1: 2})}
	if rep := analyzeHistory(ws); len(rep.errors)+len(rep.skews) != 0 {
		t.Errorf("write skew reported: %v %v", rep.errors, rep.skews)
	}
}
