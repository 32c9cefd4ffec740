// Package storagetest is the conformance suite of the storage.Store
// contract. Every backend's tests call Run with a constructor:
//
//	func TestConformance(t *testing.T) {
//		storagetest.Run(t, func(t *testing.T) storage.Store {
//			s := open(t)
//			t.Cleanup(func() { s.Close() })
//			return s
//		})
//	}
//
// The suite follows the Table service's documented semantics, not any one
// backend's convenience: properties may be absent, keys sort by UTF-16 code
// units, every write changes the ETag, pages may be short or even empty while
// a continuation token is returned (the suite always follows tokens and
// assumes no page size beyond MaxPageSize and Top), and a failed batch names
// its failing operation.
//
// Run calls newStore once per subtest. A store may be shared with other runs
// (Azurite): the suite only touches tables it creates, whose names carry a
// random suffix, and deletes them when a subtest ends. The constructor
// should register the store's Close with t.Cleanup.
package storagetest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/storage"
)

// Run runs the whole conformance suite against the stores newStore returns.
func Run(t *testing.T, newStore func(t *testing.T) storage.Store) {
	r := &runner{newStore: newStore, suffix: randomSuffix()}
	t.Run("Tables", r.testTables)
	t.Run("TableIsolation", r.testTableIsolation)
	t.Run("InsertGet", r.testInsertGet)
	t.Run("ValuesRoundTrip", r.testValuesRoundTrip)
	t.Run("Upsert", r.testUpsert)
	t.Run("Update", r.testUpdate)
	t.Run("Delete", r.testDelete)
	t.Run("ETagsChange", r.testETagsChange)
	t.Run("MissingTable", r.testMissingTable)
	t.Run("Projection", r.testProjection)
	t.Run("Batch", r.testBatch)
	t.Run("BatchFailureIsAtomic", r.testBatchFailure)
	t.Run("BatchRules", r.testBatchRules)
	t.Run("KeyRules", r.testKeyRules)
	t.Run("PropertyRules", r.testPropertyRules)
	t.Run("SizeLimits", r.testSizeLimits)
	t.Run("EntitySizeMeasure", r.testEntitySizeMeasure)
	t.Run("Order", r.testOrder)
	t.Run("Ranges", r.testRanges)
	t.Run("Reverse", r.testReverse)
	t.Run("FilterOperators", r.testFilterOperators)
	t.Run("FilterSemantics", r.testFilterSemantics)
	t.Run("FilterPseudoProperties", r.testFilterPseudo)
	t.Run("Paging", r.testPaging)
	t.Run("PagingAcrossPartitions", r.testPagingPartitions)
	t.Run("PagingEmptyPartitionKey", r.testPagingEmptyPartition)
	t.Run("Top", r.testTop)
	t.Run("BadQueries", r.testBadQueries)
	t.Run("ConcurrentConditionalUpdates", r.testConcurrentUpdates)
	t.Run("ConcurrentInserts", r.testConcurrentInserts)
	t.Run("ConcurrentBatches", r.testConcurrentBatches)
	t.Run("Cancellation", r.testCancellation)
}

type runner struct {
	newStore func(t *testing.T) storage.Store
	suffix   string
}

func randomSuffix() string {
	const alnum = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 6)
	for i := range b {
		b[i] = alnum[rand.IntN(len(alnum))]
	}
	return string(b)
}

// env is one subtest's store and table.
type env struct {
	t     *testing.T
	s     storage.Store
	ctx   context.Context
	table string
	r     *runner
}

// setup returns a store and a fresh table named after the subtest.
func (r *runner) setup(t *testing.T) *env {
	t.Helper()
	e := &env{t: t, s: r.newStore(t), ctx: context.Background(), r: r}
	e.table = e.newTable("")
	return e
}

// tableName returns a valid, unique table name for the subtest plus tag.
func (e *env) tableName(tag string) string {
	var b strings.Builder
	b.WriteString("st")
	for _, c := range e.t.Name() + tag {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		}
	}
	name := b.String()
	if len(name) > 63-len(e.r.suffix) {
		name = name[:63-len(e.r.suffix)]
	}
	return name + e.r.suffix
}

// newTable creates a table that is deleted when the test ends.
func (e *env) newTable(tag string) string {
	e.t.Helper()
	name := e.tableName(tag)
	if err := e.s.CreateTable(e.ctx, name); err != nil {
		e.t.Fatalf("CreateTable(%q): %v", name, err)
	}
	e.t.Cleanup(func() {
		if err := e.s.DeleteTable(context.Background(), name); err != nil && !errors.Is(err, storage.ErrNotFound) {
			e.t.Errorf("cleanup: DeleteTable(%q): %v", name, err)
		}
	})
	return name
}

func ent(pk, rk string, props storage.Properties) *storage.Entity {
	return &storage.Entity{PartitionKey: pk, RowKey: rk, Properties: props}
}

func (e *env) insert(pk, rk string, props storage.Properties) storage.ETag {
	e.t.Helper()
	etag, err := e.s.Insert(e.ctx, e.table, ent(pk, rk, props))
	if err != nil {
		e.t.Fatalf("Insert(%q, %q): %v", pk, rk, err)
	}
	if etag == "" {
		e.t.Fatalf("Insert(%q, %q) returned an empty ETag", pk, rk)
	}
	return etag
}

func (e *env) get(pk, rk string) *storage.Entity {
	e.t.Helper()
	got, err := e.s.Get(e.ctx, e.table, pk, rk, nil)
	if err != nil {
		e.t.Fatalf("Get(%q, %q): %v", pk, rk, err)
	}
	if got.PartitionKey != pk || got.RowKey != rk {
		e.t.Fatalf("Get(%q, %q) returned keys (%q, %q)", pk, rk, got.PartitionKey, got.RowKey)
	}
	return got
}

func (e *env) mustNotExist(pk, rk string) {
	e.t.Helper()
	_, err := e.s.Get(e.ctx, e.table, pk, rk, nil)
	if !errors.Is(err, storage.ErrNotFound) {
		e.t.Fatalf("Get(%q, %q) = %v, want ErrNotFound", pk, rk, err)
	}
}

// batchInsert writes entities (all of one partition) in batches of 100.
func (e *env) batchInsert(ents []*storage.Entity) {
	e.t.Helper()
	for len(ents) > 0 {
		n := min(len(ents), storage.MaxBatchOps)
		ops := make([]storage.Operation, n)
		for i, x := range ents[:n] {
			ops[i] = storage.Operation{Kind: storage.OpInsert, Entity: x}
		}
		if _, err := e.s.Batch(e.ctx, e.table, ops); err != nil {
			e.t.Fatalf("Batch insert: %v", err)
		}
		ents = ents[n:]
	}
}

// maxPages bounds the pages one query may take, so a backend that never
// ends a query fails instead of hanging.
const maxPages = 20_000

// queryAll runs q to completion, following continuation tokens, and checks
// every page against the contract.
func (e *env) queryAll(table string, q storage.Query) []*storage.Entity {
	e.t.Helper()
	var all []*storage.Entity
	for pages := 0; ; pages++ {
		if pages == maxPages {
			e.t.Fatalf("query %s did not end after %d pages", storage.FormatOData(q.Filter), maxPages)
		}
		page := e.queryPage(table, &q)
		all = append(all, page.Entities...)
		if page.Continuation == "" {
			return all
		}
		q.Continuation = page.Continuation
	}
}

// queryPage runs one page and checks its size, order and token.
func (e *env) queryPage(table string, q *storage.Query) *storage.Page {
	e.t.Helper()
	page, err := e.s.Query(e.ctx, table, q)
	if err != nil {
		e.t.Fatalf("Query(%s): %v", describe(q), err)
	}
	limit := storage.MaxPageSize
	if q.Top > 0 {
		limit = min(limit, q.Top)
	}
	if len(page.Entities) > limit {
		e.t.Fatalf("Query(%s) returned %d entities, more than %d", describe(q), len(page.Entities), limit)
	}
	checkToken(e.t, page.Continuation)
	if !e.s.Capabilities().Unsorted {
		for i := 1; i < len(page.Entities); i++ {
			c := compareEntityKeys(page.Entities[i-1], page.Entities[i])
			if q.Reverse {
				c = -c
			}
			if c >= 0 {
				e.t.Fatalf("Query(%s): entity %d %s is not after %s", describe(q), i, keyOf(page.Entities[i]), keyOf(page.Entities[i-1]))
			}
		}
	}
	for _, x := range page.Entities {
		if x.ETag == "" || x.Timestamp.IsZero() {
			e.t.Fatalf("Query(%s): entity %s without ETag or Timestamp", describe(q), keyOf(x))
		}
	}
	return page
}

func checkToken(t *testing.T, tok string) {
	t.Helper()
	for i := 0; i < len(tok); i++ {
		if tok[i] < 0x20 || tok[i] > 0x7e {
			t.Fatalf("continuation token %q is not printable ASCII", tok)
		}
	}
}

func describe(q *storage.Query) string {
	return fmt.Sprintf("partition=%v row=%v filter=%q select=%v top=%d reverse=%v", rangeString(q.Partition), rangeString(q.Row), storage.FormatOData(q.Filter), q.Select, q.Top, q.Reverse)
}

func rangeString(r *storage.KeyRange) string {
	if r == nil {
		return "all"
	}
	var b strings.Builder
	if r.Low == nil {
		b.WriteString("(-")
	} else if r.Low.Exclusive {
		fmt.Fprintf(&b, "(%q", r.Low.Key)
	} else {
		fmt.Fprintf(&b, "[%q", r.Low.Key)
	}
	b.WriteByte(',')
	if r.High == nil {
		b.WriteString("+)")
	} else if r.High.Exclusive {
		fmt.Fprintf(&b, "%q)", r.High.Key)
	} else {
		fmt.Fprintf(&b, "%q]", r.High.Key)
	}
	return b.String()
}

func compareEntityKeys(a, b *storage.Entity) int {
	if c := storage.CompareKeys(a.PartitionKey, b.PartitionKey); c != 0 {
		return c
	}
	return storage.CompareKeys(a.RowKey, b.RowKey)
}

func keyOf(x *storage.Entity) string { return fmt.Sprintf("(%q, %q)", x.PartitionKey, x.RowKey) }

// keys lists the (pk, rk) of entities as "pk/rk" strings.
func keys(xs []*storage.Entity) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = x.PartitionKey + "/" + x.RowKey
	}
	return out
}

// sortedKeys returns keys(xs) in contract order (for unsorted backends the
// results are sorted before comparing).
func (e *env) resultKeys(xs []*storage.Entity) []string {
	if e.s.Capabilities().Unsorted {
		xs = slices.Clone(xs)
		slices.SortFunc(xs, compareEntityKeys)
	}
	return keys(xs)
}

func expectKeys(t *testing.T, what string, got, want []string) {
	t.Helper()
	if slices.Equal(got, want) {
		return
	}
	t.Fatalf("%s:\n got  %d keys %q\n want %d keys %q", what, len(got), abbreviate(got), len(want), abbreviate(want))
}

func abbreviate(s []string) []string {
	if len(s) <= 40 {
		return s
	}
	return append(slices.Clip(s[:20]), append([]string{"..."}, s[len(s)-20:]...)...)
}

// checkProps compares properties exactly (types and values).
func checkProps(t *testing.T, what string, got, want storage.Properties) {
	t.Helper()
	for name, w := range want {
		g, ok := got[name]
		if !ok {
			t.Errorf("%s: property %s missing, want %#v", what, name, w)
			continue
		}
		if !g.Equal(w) {
			t.Errorf("%s: property %s = %#v, want %#v", what, name, g, w)
		}
	}
	for name, g := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: unexpected property %s = %#v", what, name, g)
		}
	}
}

func expectErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("%s: error %v, want %v", what, err, want)
	}
}

// expectBatchErr checks that err is a *BatchError at index wrapping want.
func expectBatchErr(t *testing.T, what string, err error, index int, want error) {
	t.Helper()
	var be *storage.BatchError
	if !errors.As(err, &be) {
		t.Fatalf("%s: error %v (%T), want *storage.BatchError", what, err, err)
	}
	if be.Index != index {
		t.Fatalf("%s: BatchError.Index = %d, want %d (%v)", what, be.Index, index, err)
	}
	if !errors.Is(err, want) {
		t.Fatalf("%s: error %v, want %v", what, err, want)
	}
}

// within reports whether ts is near now (clocks of a remote service may be
// a little off).
func nearNow(ts time.Time) bool {
	d := time.Since(ts)
	return d > -5*time.Minute && d < 5*time.Minute
}
