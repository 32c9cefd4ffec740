package planner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/pebble"
	"github.com/sqlgw/sqlgw/storage/recorder"
)

// Golden traces: every plan case of ../testdata/planner/*.txt is also run
// against an in-memory Pebble store holding a fixed data set (traceRows),
// through the recorder store, and the requests the recorder saw are part
// of the expected output, after the plan's EXPLAIN:
//
//	sent:
//	  Get users pk=a5 rk="" -> 1 entity
//
// The executor (traceExec) follows the Plan contract (plan.go, index.go):
// Gets in parallel, queries in order with their continuations followed
// (Top carrying the remainder of an exact LIMIT), an index's Gets and
// queries, then one base Get per hit unless the index covers the query.
// Parallel requests are traced into one buffer each and printed in the
// plan's order, so the text is stable. It does not evaluate residual
// conjuncts: with a LIMIT and residual conjuncts it reads every request
// (the data set never fills a page, so this only shows where sqlgw could
// stop after an earlier request).

// traceRowCount is the number of rows each golden table holds.
const traceRowCount = 24

// traceWords are the string values of the data set: the literals the
// golden cases use most, so that their point reads find rows.
var traceWords = []string{"acme", "bolt", "r1", "a", "b1", "web1", "b", "eu", "t1", "open", "ann", "a@x",
	"Paris", "bob", "ab", "Bob", "us", "red", "x"}

// traceStore is the store of one golden file: the data of the current
// table, loaded on the first plan after a table or index command.
type traceStore struct {
	inner  *pebble.Store
	rec    *recorder.Store
	tables []string // physical tables holding the current data
	tb     *fakeTable
	loaded bool
}

func newTraceStore(t *testing.T) *traceStore {
	s, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return &traceStore{inner: s, rec: recorder.New(s)}
}

// use makes tb the table later plans read (its indexes may still grow).
func (ts *traceStore) use(tb *fakeTable) { ts.tb, ts.loaded = tb, false }

// load writes the current table's data set, replacing the previous one.
func (ts *traceStore) load(t *testing.T) {
	if ts.loaded {
		return
	}
	ts.loaded = true
	ctx := context.Background()
	for _, name := range ts.tables {
		if err := ts.inner.DeleteTable(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	tb := ts.tb
	ts.tables = []string{tb.name}
	for _, ix := range tb.indexes {
		if !ix.Local && !slices.Contains(ts.tables, ix.Table) {
			ts.tables = append(ts.tables, ix.Table)
		}
	}
	for _, name := range ts.tables {
		if err := ts.inner.CreateTable(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	db := &memDB{tb: tb}
	seen := map[string]bool{}
	keyless := len(tb.part) == 0
	var base []*storage.Entity
	for i := 0; i < traceRowCount; i++ {
		row := traceRow(tb, i)
		pk, rk := "", fmt.Sprintf("g%04d", i)
		if !keyless {
			var err error
			if pk, err = tb.EncodeKey(PartitionKey, pick(row, tb.part)); err != nil {
				continue // a key the fake cannot encode (decimal): no row
			}
			if rk, err = tb.EncodeKey(RowKey, pick(row, tb.row)); err != nil {
				continue
			}
		}
		ixEnts, ok := db.claim(t, row, pk, rk, seen)
		if !ok {
			continue
		}
		for _, ie := range ixEnts {
			ie.e.Properties["_pk"] = storage.String(pk)
			ie.e.Properties["_rk"] = storage.String(rk)
			ix := tb.indexes[ixOrdinal(tb, ie.index)]
			table := ix.Table // a local index's entities live in the base table
			if ix.Local {
				table = tb.name
			}
			if _, err := ts.inner.Insert(ctx, table, ie.e); err != nil {
				t.Fatalf("index entity %s/%q/%q: %v", table, ie.e.PartitionKey, ie.e.RowKey, err)
			}
		}
		e := &storage.Entity{PartitionKey: pk, RowKey: rk, Properties: rowProperties(t, tb, row)}
		if _, err := ts.inner.Insert(ctx, tb.name, e); err != nil {
			t.Fatalf("row %q/%q: %v", pk, rk, err)
		}
		base = append(base, e)
	}
	if tb.rowEnd != "" {
		// Entities above RowKeyEnd share the first partitions (the
		// catalog's local index entities): no query may return them.
		for _, e := range base[:min(3, len(base))] {
			x := &storage.Entity{PartitionKey: e.PartitionKey, RowKey: tb.rowEnd + "x", Properties: storage.Properties{}}
			if _, err := ts.inner.Upsert(ctx, tb.name, x, storage.Replace); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// traceRow returns row i of the data set. The key columns, in key order,
// are the digits of i in base 3 (the first takes what is left), so that
// partitions hold several rows; other columns cycle through 23 values, NULL
// in every sixth row (see descIndexed).
func traceRow(tb *fakeTable, i int) []Datum {
	row := make([]Datum, len(tb.cols))
	keys := append(slices.Clone(tb.part), tb.row...)
	digit := make(map[int]int, len(keys))
	n := i
	for j := len(keys) - 1; j >= 0; j-- {
		if j == 0 {
			digit[keys[j].Col] = n
		} else {
			digit[keys[j].Col] = n % 3
			n /= 3
		}
	}
	// The fake encodes a NULL in a descending index column as "\x7f",
	// which no store key may hold: those columns are never NULL here.
	descIndexed := map[int]bool{}
	for _, ix := range tb.indexes {
		for _, kc := range ix.Columns {
			descIndexed[kc.Col] = descIndexed[kc.Col] || kc.Desc
		}
	}
	for c, col := range tb.cols {
		d, isKey := digit[c]
		if !isKey {
			if (i+c)%6 == 5 && !descIndexed[c] {
				continue // NULL
			}
			d = (i*7 + c*3) % 23
			if col.Kind == KindInt {
				d *= 5 // 0, 5, ..., 110: the golden cases' ages and quantities
			}
		}
		row[c] = traceValue(col.Kind, d)
	}
	return row
}

func traceValue(k Kind, d int) Datum {
	base := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	switch k {
	case KindInt:
		return int64(d + 1)
	case KindDuration:
		return int64(d) * int64(time.Minute/time.Microsecond)
	case KindUint, KindEnum, KindSet, KindBit:
		return uint64(d + 1)
	case KindFloat:
		return float64(d) / 2
	case KindDecimal:
		return decimal.New(int64(d*10+5), -1)
	case KindString:
		return traceWords[d%len(traceWords)]
	case KindBytes:
		return []byte{byte(d)}
	case KindTime:
		return base.Add(time.Duration(d) * 6 * time.Hour)
	case KindDate:
		return base.AddDate(0, 0, d-2)
	case KindJSON:
		return fmt.Sprintf(`{"n":%d}`, d)
	}
	panic(fmt.Sprintf("traceValue: kind %v", k))
}

// trace runs the plan against the data set and returns the "sent:"
// section: the recorder's line for every request, in the plan's order.
func (ts *traceStore) trace(t *testing.T, p *Plan) string {
	ts.load(t)
	var b strings.Builder
	b.WriteString("  sent:")
	lines := traceExec(context.Background(), ts.rec, p)
	if len(lines) == 0 {
		b.WriteString(" nothing")
	}
	for _, l := range lines {
		b.WriteString("\n    " + l)
	}
	return b.String()
}

// traceExec executes p against s (a recorder) and returns its trace
// lines, parallel requests in the plan's order.
func traceExec(ctx context.Context, s storage.Store, p *Plan) []string {
	var lines []string
	emit := func(b *strings.Builder) {
		lines = append(lines, strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")...)
	}
	// gets reads keys in parallel; it returns the entities found, in
	// the order of keys.
	gets := func(table string, keys []Key, sel []string) []*storage.Entity {
		bufs := make([]strings.Builder, len(keys))
		ents := make([]*storage.Entity, len(keys))
		var wg sync.WaitGroup
		for i, k := range keys {
			wg.Add(1)
			go func() {
				defer wg.Done()
				e, err := s.Get(recorder.WithTrace(ctx, &bufs[i]), table, k.PK, k.RK, &storage.GetOptions{Select: sel})
				if err == nil {
					ents[i] = e
				} else if !errors.Is(err, storage.ErrNotFound) {
					fmt.Fprintf(&bufs[i], "(error: %v)\n", err)
				}
			}()
		}
		wg.Wait()
		var out []*storage.Entity
		for i := range keys {
			emit(&bufs[i])
			if ents[i] != nil {
				out = append(out, ents[i])
			}
		}
		return out
	}
	// queries runs qs in order, following continuations; with an exact
	// limit (Top set) it stops once limit entities arrived.
	queries := func(table string, qs []*storage.Query, limit int64) []*storage.Entity {
		var out []*storage.Entity
		var b strings.Builder
		tctx := recorder.WithTrace(ctx, &b)
		for _, q := range qs {
			if q.Top > 0 && limit > 0 && int64(len(out)) >= limit {
				break
			}
			next := *q
			for {
				page, err := s.Query(tctx, table, &next)
				if err != nil {
					fmt.Fprintf(&b, "(error: %v)\n", err)
					break
				}
				out = append(out, page.Entities...)
				if page.Continuation == "" {
					break
				}
				if q.Top > 0 && limit > 0 {
					if int64(len(out)) >= limit {
						break
					}
					next.Top = int(limit - int64(len(out)))
				}
				next.Continuation = page.Continuation
			}
		}
		if b.Len() > 0 {
			emit(&b)
		}
		return out
	}
	switch {
	case p.Path == Empty:
	case p.Index != nil:
		ix := p.Index
		hits := gets(ix.Table, ix.Gets, ix.Select)
		hits = append(hits, queries(ix.Table, ix.Queries, p.Limit)...)
		if !ix.Covering {
			keys := make([]Key, 0, len(hits))
			for _, h := range hits {
				keys = append(keys, Key{PK: h.Properties["_pk"].Str(), RK: h.Properties["_rk"].Str()})
			}
			gets(p.Table, keys, p.Select)
		}
	case len(p.Gets) > 0:
		gets(p.Table, p.Gets, p.Select)
	default:
		queries(p.Table, p.Queries, p.Limit)
	}
	return lines
}
