package recorder

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/pebble"
	"github.com/sqlgw/sqlgw/storage/storagetest"
)

var rewrite = flag.Bool("rewrite", false, "rewrite testdata/*.golden from the actual output")

func newStore(t *testing.T) *Store {
	t.Helper()
	inner, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	s := New(inner)
	t.Cleanup(func() { s.Close() })
	return s
}

// The recorder is transparent: the wrapped store still conforms.
func TestConformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store { return newStore(t) })
}

func ent(pk, rk string, props storage.Properties) *storage.Entity {
	return &storage.Entity{PartitionKey: pk, RowKey: rk, Properties: props}
}

func TestTraceGolden(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	var trace bytes.Buffer
	s.SetTrace(&trace)

	s.CreateTable(ctx, "tab1")
	s.CreateTable(ctx, "TAB1")
	s.TableExists(ctx, "tab1")
	s.ListTables(ctx)
	etag, _ := s.Insert(ctx, "tab1", ent("p1", "a", storage.Properties{"x": storage.Int32(1)}))
	s.Insert(ctx, "tab1", ent("p1", "a", nil))
	s.Upsert(ctx, "tab1", ent("p1", "b", storage.Properties{"x": storage.Int32(7)}), storage.Merge)
	s.Update(ctx, "tab1", ent("p1", "a", storage.Properties{"x": storage.Int32(6)}), storage.Replace, etag)
	s.Update(ctx, "tab1", ent("p1", "a", storage.Properties{"x": storage.Int32(6)}), storage.Replace, etag)
	s.Update(ctx, "tab1", ent("p1", "zz", nil), storage.Merge, storage.ETagAny)
	s.Get(ctx, "tab1", "p1", "a", nil)
	s.Get(ctx, "tab1", "p1", "a", &storage.GetOptions{Select: []string{"x"}})
	s.Get(ctx, "tab1", "p1", "nope", nil)
	s.Get(ctx, "tab1", "p 1", "it's/bad", nil)
	s.Batch(ctx, "tab1", []storage.Operation{
		{Kind: storage.OpInsert, Entity: ent("p1", "c", storage.Properties{"x": storage.Int32(9)})},
		{Kind: storage.OpUpsert, Mode: storage.Replace, Entity: ent("p1", "d", nil)},
		{Kind: storage.OpUpdate, Mode: storage.Merge, Entity: ent("p1", "b", nil), IfMatch: storage.ETagAny},
		{Kind: storage.OpDelete, Entity: ent("p1", "a", nil)},
	})
	var many []storage.Operation
	for i := range 12 {
		kind := storage.OpInsert
		if i%4 == 3 {
			kind = storage.OpUpsert
		}
		many = append(many, storage.Operation{Kind: kind, Entity: ent("p2", fmt.Sprintf("r%02d", i), storage.Properties{"x": storage.Int32(int32(i))})})
	}
	s.Batch(ctx, "tab1", many)
	s.Batch(ctx, "tab1", append(many[:2:2], storage.Operation{Kind: storage.OpInsert, Entity: ent("p3", "x", nil)}))
	s.Query(ctx, "tab1", &storage.Query{
		Partition: storage.Exactly("p1"),
		Row:       &storage.KeyRange{Low: &storage.Bound{Key: "a"}, High: &storage.Bound{Key: "c", Exclusive: true}},
		Filter:    storage.Gt("x", storage.Int32(5)),
		Select:    []string{"x", "y"},
		Top:       10,
	})
	page, err := s.Query(ctx, "tab1", &storage.Query{Partition: &storage.KeyRange{Low: &storage.Bound{Key: "p1", Exclusive: true}}, Top: 5})
	if err != nil {
		t.Fatalf("%v\n%s", err, trace.String())
	}
	s.Query(ctx, "tab1", &storage.Query{Partition: &storage.KeyRange{Low: &storage.Bound{Key: "p1", Exclusive: true}}, Top: 5, Continuation: page.Continuation})
	s.Query(ctx, "tab1", &storage.Query{Filter: storage.Or{
		storage.And{storage.Eq("s", storage.String("it's")), storage.Ne(storage.PropRowKey, storage.String("r01"))},
		&storage.Not{X: storage.Le("x", storage.Int32(2))}}, Row: &storage.KeyRange{High: &storage.Bound{Key: "r05"}}})
	s.Query(ctx, "tab1", &storage.Query{Continuation: "garbage!"})
	s.Delete(ctx, "tab1", "p1", "d", "")
	s.Delete(ctx, "tab1", "p1", "d", storage.ETagAny)
	s.Query(ctx, "nosuch", &storage.Query{})
	s.DeleteTable(ctx, "tab1")

	checkGolden(t, "testdata/trace.golden", trace.String())

	got := s.Totals().Snapshot()
	// 26 lines; read: 2 Gets + 1 + 5 + 5 + 6 from queries; written: insert,
	// upsert, update, batches of 4 and 12, delete.
	want := Snapshot{Requests: 26, EntitiesRead: 2 + 1 + 5 + 5 + 6, EntitiesWritten: 1 + 1 + 1 + 4 + 12 + 1, Errors: 10}
	if got != want {
		t.Errorf("totals %v, want %v", got, want)
	}
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *rewrite {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -rewrite to create it)", err)
	}
	if got != string(want) {
		t.Errorf("trace differs from %s (run with -rewrite and review the diff)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

func TestPerContextCounters(t *testing.T) {
	s := newStore(t)
	base := context.Background()
	if err := s.CreateTable(base, "tab"); err != nil {
		t.Fatal(err)
	}
	var ops []storage.Operation
	for i := range 50 {
		ops = append(ops, storage.Operation{Kind: storage.OpInsert, Entity: ent("p", fmt.Sprintf("r%02d", i), nil)})
	}
	if _, err := s.Batch(base, "tab", ops); err != nil {
		t.Fatal(err)
	}

	// Two sessions, concurrently; a statement inside session a.
	var a, b, stmt Counters
	ctxA := WithCounters(base, &a)
	ctxStmt := WithCounters(ctxA, &stmt)
	ctxB := WithCounters(base, &b)
	var traceStmt bytes.Buffer
	ctxStmt = WithTrace(ctxStmt, &traceStmt)
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			if _, err := s.Get(ctxA, "tab", "p", "r01", nil); err != nil {
				t.Error(err)
			}
		})
		wg.Go(func() {
			if _, err := s.Query(ctxB, "tab", &storage.Query{Top: 20}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if _, err := s.Query(ctxStmt, "tab", &storage.Query{Partition: storage.Exactly("p"), Row: &storage.KeyRange{High: &storage.Bound{Key: "r04"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctxStmt, "tab", "p", "missing", nil); !errors.Is(err, storage.ErrNotFound) {
		t.Fatal(err)
	}

	checks := []struct {
		name string
		got  Snapshot
		want Snapshot
	}{
		{"session a", a.Snapshot(), Snapshot{Requests: 12, EntitiesRead: 10 + 5, Errors: 1}},
		{"statement", stmt.Snapshot(), Snapshot{Requests: 2, EntitiesRead: 5, Errors: 1}},
		{"session b", b.Snapshot(), Snapshot{Requests: 10, EntitiesRead: 200}},
		{"totals", s.Totals().Snapshot(), Snapshot{Requests: 24, EntitiesRead: 215, EntitiesWritten: 50, Errors: 1}},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
	wantTrace := "Query tab partition=[p] rows=(,r04] -> 5 entities\nGet tab pk=p rk=missing -> not found\n"
	if traceStmt.String() != wantTrace {
		t.Errorf("statement trace:\n%s\nwant:\n%s", traceStmt.String(), wantTrace)
	}
	before := s.Totals().Snapshot()
	s.TableExists(base, "tab")
	if d := s.Totals().Snapshot().Sub(before); d != (Snapshot{Requests: 1}) {
		t.Errorf("one TableExists counted as %v", d)
	}
	a.Reset()
	if a.Snapshot() != (Snapshot{}) {
		t.Error("Reset")
	}
	if !strings.Contains(s.Totals().Snapshot().String(), "requests=25") {
		t.Errorf("Snapshot.String() = %s", s.Totals().Snapshot())
	}
}

// A request sent for several callers through storage.OnBehalfOf (one batch
// of several commit points) counts in each caller's counters and in a
// counter they share once, and takes no other value of theirs.
func TestMergedAttachments(t *testing.T) {
	s := newStore(t)
	type otherKey struct{}
	base := context.Background()
	if err := s.CreateTable(base, "tab"); err != nil {
		t.Fatal(err)
	}
	var session, stmt1, stmt2 Counters
	var trace1, trace2 bytes.Buffer
	shared := WithCounters(base, &session)
	c1 := WithTrace(WithCounters(shared, &stmt1), &trace1)
	c2 := WithTrace(WithCounters(context.WithValue(shared, otherKey{}, "caller's"), &stmt2), &trace2)
	cancelled, cancel := context.WithCancel(c1)
	cancel()

	ctx := storage.OnBehalfOf(base, c1, c2, cancelled, context.Background())
	if ctx.Value(otherKey{}) != nil || ctx.Err() != nil {
		t.Fatal("OnBehalfOf carried a caller's other value or its cancellation")
	}
	if _, err := s.Batch(ctx, "tab", []storage.Operation{{Kind: storage.OpInsert, Entity: ent("p", "a", nil)}, {Kind: storage.OpInsert, Entity: ent("p", "b", nil)}}); err != nil {
		t.Fatal(err)
	}
	one := Snapshot{Requests: 1, EntitiesWritten: 2}
	for name, c := range map[string]*Counters{"session": &session, "statement 1": &stmt1, "statement 2": &stmt2} {
		if got := c.Snapshot(); got != one {
			t.Errorf("%s: %v, want %v", name, got, one)
		}
	}
	if trace1.String() != trace2.String() || strings.Count(trace1.String(), "\n") != 1 {
		t.Errorf("traces: %q and %q, want one line each", trace1.String(), trace2.String())
	}
	if storage.OnBehalfOf(base, context.Background()) != base {
		t.Error("no attachments: want ctx itself")
	}
	s.TableExists(storage.OnBehalfOf(base), "tab")
	if session.Snapshot() != one {
		t.Error("a request for no caller counted in a caller's counters")
	}
}

// TestBackgroundNotInOwnTrace: a request of a Background context (a
// recovery sweep) counts in the totals and in the counters and traces its
// context carries, but the recorder's own trace, which follows the
// statements a test runs, leaves it out; a request made for a Background
// caller and another (storage.OnBehalfOf) is traced.
func TestBackgroundNotInOwnTrace(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	s.CreateTable(ctx, "tab1")
	var own, attachedTrace bytes.Buffer
	var c Counters
	s.SetTrace(&own)
	before := s.Totals().Snapshot().Requests
	bg := Background(WithTrace(WithCounters(ctx, &c), &attachedTrace))
	s.Get(bg, "tab1", "sweep", "a", nil)
	s.Get(ctx, "tab1", "stmt", "a", nil)
	s.Get(storage.OnBehalfOf(context.Background(), bg, ctx), "tab1", "shared", "a", nil)
	s.SetTrace(nil)
	if got, want := own.String(), "Get tab1 pk=stmt rk=a -> not found\nGet tab1 pk=shared rk=a -> not found\n"; got != want {
		t.Errorf("own trace:\n%s\nwant:\n%s", got, want)
	}
	if got, want := attachedTrace.String(), "Get tab1 pk=sweep rk=a -> not found\nGet tab1 pk=shared rk=a -> not found\n"; got != want {
		t.Errorf("the context's trace:\n%s\nwant:\n%s", got, want)
	}
	if n := s.Totals().Snapshot().Requests - before; n != 3 {
		t.Errorf("totals: %d requests, want 3", n)
	}
	if n := c.Snapshot().Requests; n != 2 {
		t.Errorf("the context's counters: %d requests, want 2", n)
	}
}

// TestFrame: a context made in a Frame (WithCountersIn) is WithCounters':
// requests through it count in its counters and in those and the traces
// of the context it was made over, whose other values, cancellation and
// attributions (storage.OnBehalfOf) it keeps; making one allocates
// nothing, and making it again over another context forgets the first's.
func TestFrame(t *testing.T) {
	s := newStore(t)
	type otherKey struct{}
	base := context.Background()
	if err := s.CreateTable(base, "tab"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Insert(base, "tab", ent("p", "a", nil)); err != nil {
		t.Fatal(err)
	}
	var session, read, other Counters
	var trace bytes.Buffer
	outer, cancel := context.WithCancel(context.WithValue(WithTrace(WithCounters(base, &session), &trace), otherKey{}, "v"))
	var f Frame
	ctx := WithCountersIn(&f, outer, &read)
	if _, err := s.Get(ctx, "tab", "p", "a", nil); err != nil {
		t.Fatal(err)
	}
	one := Snapshot{Requests: 1, EntitiesRead: 1}
	if session.Snapshot() != one || read.Snapshot() != one {
		t.Errorf("session %v, read %v; want %v each", session.Snapshot(), read.Snapshot(), one)
	}
	if want := "Get tab pk=p rk=a -> 1 entity\n"; trace.String() != want {
		t.Errorf("trace %q, want %q", trace.String(), want)
	}
	if ctx.Value(otherKey{}) != "v" {
		t.Error("the outer context's value is lost")
	}
	merged := storage.OnBehalfOf(base, ctx)
	if _, err := s.Get(merged, "tab", "p", "a", nil); err != nil {
		t.Fatal(err)
	}
	if two := (Snapshot{Requests: 2, EntitiesRead: 2}); session.Snapshot() != two || read.Snapshot() != two {
		t.Errorf("on behalf of the frame: session %v, read %v; want %v each", session.Snapshot(), read.Snapshot(), two)
	}
	if ctx.Err() != nil {
		t.Fatal("cancelled early")
	}
	cancel()
	if ctx.Err() == nil {
		t.Error("the outer context's cancellation is lost")
	}
	// Made again over another context: only that one's counters.
	ctx = WithCountersIn(&f, base, &other)
	if _, err := s.Get(ctx, "tab", "p", "a", nil); err != nil {
		t.Fatal(err)
	}
	if other.Snapshot() != one || session.Snapshot().Requests != 2 || read.Snapshot().Requests != 2 {
		t.Errorf("made again: other %v, session %v, read %v", other.Snapshot(), session.Snapshot(), read.Snapshot())
	}
	if strings.Count(trace.String(), "\n") != 2 {
		t.Errorf("made again over an untraced context, still traced: %q", trace.String())
	}
	counted := WithCounters(base, &session)
	if n := testing.AllocsPerRun(100, func() { WithCountersIn(&f, counted, &read) }); n != 0 {
		t.Errorf("WithCountersIn allocates %v times", n)
	}
}
