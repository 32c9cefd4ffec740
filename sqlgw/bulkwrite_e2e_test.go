package sqlgw_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// bulkCountingStore is a Pebble store that counts the writes made under
// storage.WithBulkWrite and the others (every write method).
type bulkCountingStore struct {
	*pebble.Store
	bulk, plain atomic.Int64
}

func (s *bulkCountingStore) count(ctx context.Context) {
	if storage.BulkWrite(ctx) {
		s.bulk.Add(1)
	} else {
		s.plain.Add(1)
	}
}

func (s *bulkCountingStore) Batch(ctx context.Context, table string, ops []storage.Operation) ([]storage.ETag, error) {
	s.count(ctx)
	return s.Store.Batch(ctx, table, ops)
}

func (s *bulkCountingStore) Insert(ctx context.Context, table string, e *storage.Entity) (storage.ETag, error) {
	s.count(ctx)
	return s.Store.Insert(ctx, table, e)
}

func (s *bulkCountingStore) Upsert(ctx context.Context, table string, e *storage.Entity, mode storage.UpdateMode) (storage.ETag, error) {
	s.count(ctx)
	return s.Store.Upsert(ctx, table, e, mode)
}

func (s *bulkCountingStore) Update(ctx context.Context, table string, e *storage.Entity, mode storage.UpdateMode, ifMatch storage.ETag) (storage.ETag, error) {
	s.count(ctx)
	return s.Store.Update(ctx, table, e, mode, ifMatch)
}

func (s *bulkCountingStore) Delete(ctx context.Context, table, pk, rk string, ifMatch storage.ETag) error {
	s.count(ctx)
	return s.Store.Delete(ctx, table, pk, rk, ifMatch)
}

func (s *bulkCountingStore) MultiBatch(ctx context.Context, batches []storage.TableBatch) ([][]storage.ETag, error) {
	if len(batches) > 0 {
		s.count(ctx)
	}
	return s.Store.MultiBatch(ctx, batches)
}

// TestBulkCommitHint: a commit of at least 128 rows (a multi-row INSERT,
// INSERT ... SELECT, a wide UPDATE; engine bulkWriteRows) writes under
// storage.WithBulkWrite, so the row cache evicts nothing for its rows
// (storage/pebble TestRowCacheBulkWrite); an OLTP statement's commit of a
// few rows does not. Direct execution and go-mysql-server's executor; the
// rows read back right.
func TestBulkCommitHint(t *testing.T) {
	for _, noDirect := range []bool{false, true} {
		t.Run(fmt.Sprintf("nodirect=%v", noDirect), func(t *testing.T) {
			pst, err := pebble.Open("", &pebble.Options{InMemory: true, RowCacheSize: sqltest.TestRowCacheSize})
			if err != nil {
				t.Fatal(err)
			}
			st := &bulkCountingStore{Store: pst}
			ts := sqltest.Start(t, st, sqltest.Options{Config: func(c *sqlgw.Config) { c.NoDirect = noDirect }})
			r := ts.Runner()
			// expect runs q and checks whether its writes were bulk.
			expect := func(bulk bool, q string) {
				t.Helper()
				b0, p0 := st.bulk.Load(), st.plain.Load()
				r.Exec(q)
				b, p := st.bulk.Load()-b0, st.plain.Load()-p0
				switch {
				case bulk && (b == 0 || p != 0):
					t.Fatalf("%.60s: %d bulk and %d other writes, want bulk writes only", q, b, p)
				case !bulk && (b != 0 || p == 0):
					t.Fatalf("%.60s: %d bulk and %d other writes, want no bulk write", q, b, p)
				}
			}
			r.ExecAll("CREATE DATABASE bw", "USE bw",
				"CREATE TABLE t (id INT PRIMARY KEY, k INT, c VARCHAR(40))",
				"CREATE TABLE u (id INT PRIMARY KEY, k INT, c VARCHAR(40))")
			var vals []string
			sum := 0
			for i := 1; i <= 300; i++ {
				vals = append(vals, fmt.Sprintf("(%d, %d, 'row-%d')", i, i%7, i))
				sum += i % 7
			}
			expect(true, "INSERT INTO t VALUES "+strings.Join(vals, ", "))
			expect(false, "INSERT INTO t VALUES (1001, 1, 'a'), (1002, 2, 'b'), (1003, 3, 'c')")
			expect(false, "UPDATE t SET k = 9 WHERE id = 1001")
			expect(true, "INSERT INTO u SELECT * FROM t WHERE id <= 200")
			expect(true, "UPDATE u SET c = CONCAT(c, '!')")
			r.ExpectRows("SELECT COUNT(*), SUM(k) FROM t", fmt.Sprintf("303\t%d", sum+9+2+3))
			r.ExpectRows("SELECT c FROM u WHERE id = 150", "row-150!")
		})
	}
}
