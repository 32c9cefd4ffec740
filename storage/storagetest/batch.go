package storagetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/storage"
)

func (r *runner) testBatch(t *testing.T) {
	e := r.setup(t)
	etag1 := e.insert("p", "r1", storage.Properties{"a": storage.Int32(1), "b": storage.Int32(1)})
	e.insert("p", "r2", storage.Properties{"a": storage.Int32(2)})
	e.insert("p", "r3", storage.Properties{"a": storage.Int32(3), "b": storage.Int32(3)})
	e.insert("p", "r4", storage.Properties{"a": storage.Int32(4), "b": storage.Int32(4)})
	e.insert("other", "r0", nil) // same RowKey as below, other partition

	ops := []storage.Operation{
		{Kind: storage.OpInsert, Entity: ent("p", "r0", storage.Properties{"n": storage.String("new")})},
		{Kind: storage.OpUpdate, Mode: storage.Replace, Entity: ent("p", "r1", storage.Properties{"c": storage.Int32(10)}), IfMatch: etag1},
		{Kind: storage.OpDelete, Entity: ent("p", "r2", nil)},
		{Kind: storage.OpUpdate, Mode: storage.Merge, Entity: ent("p", "r3", storage.Properties{"b": storage.Int32(30)}), IfMatch: storage.ETagAny},
		{Kind: storage.OpUpsert, Mode: storage.Replace, Entity: ent("p", "r4", storage.Properties{"z": storage.Bool(true)})},
		{Kind: storage.OpUpsert, Mode: storage.Merge, Entity: ent("p", "r5", storage.Properties{"m": storage.Int64(5)})},
	}
	etags, err := e.s.Batch(e.ctx, e.table, ops)
	if err != nil {
		t.Fatalf("Batch: %v", err)
	}
	if len(etags) != len(ops) {
		t.Fatalf("Batch returned %d ETags for %d operations", len(etags), len(ops))
	}
	want := map[string]storage.Properties{
		"r0": {"n": storage.String("new")},
		"r1": {"c": storage.Int32(10)},
		"r3": {"a": storage.Int32(3), "b": storage.Int32(30)},
		"r4": {"z": storage.Bool(true)},
		"r5": {"m": storage.Int64(5)},
	}
	for i, op := range ops {
		rk := op.Entity.RowKey
		if op.Kind == storage.OpDelete {
			if etags[i] != "" {
				t.Errorf("delete's ETag = %q, want \"\"", etags[i])
			}
			e.mustNotExist("p", rk)
			continue
		}
		got := e.get("p", rk)
		checkProps(t, "after Batch, "+rk, got.Properties, want[rk])
		if got.ETag != etags[i] || etags[i] == "" {
			t.Errorf("%s: ETag %q, Batch returned %q", rk, got.ETag, etags[i])
		}
	}
	if got := e.get("other", "r0"); len(got.Properties) != 0 {
		t.Errorf("Batch touched another partition: %v", got.Properties)
	}
	// The entities written together share one Timestamp on the Table
	// service; at least none is zero.
	all := e.queryAll(e.table, storage.Query{Partition: storage.Exactly("p")})
	expectKeys(t, "partition after Batch", e.resultKeys(all), []string{"p/r0", "p/r1", "p/r3", "p/r4", "p/r5"})
}

func (r *runner) testBatchFailure(t *testing.T) {
	e := r.setup(t)
	etagA := e.insert("p", "a", storage.Properties{"v": storage.Int32(1)})
	etagB := e.insert("p", "b", storage.Properties{"v": storage.Int32(2)})
	etagA2, err := e.s.Update(e.ctx, e.table, ent("p", "a", storage.Properties{"v": storage.Int32(10)}), storage.Replace, etagA)
	if err != nil {
		t.Fatal(err)
	}
	unchanged := func(what string) {
		t.Helper()
		if got := e.get("p", "a"); got.ETag != etagA2 || !got.Properties["v"].Equal(storage.Int32(10)) {
			t.Fatalf("%s: failed batch changed a: %v %v", what, got.ETag, got.Properties)
		}
		if got := e.get("p", "b"); got.ETag != etagB || !got.Properties["v"].Equal(storage.Int32(2)) {
			t.Fatalf("%s: failed batch changed b: %v %v", what, got.ETag, got.Properties)
		}
		for _, rk := range []string{"x", "y", "z"} {
			e.mustNotExist("p", rk)
		}
		if n := len(e.queryAll(e.table, storage.Query{})); n != 2 {
			t.Fatalf("%s: table holds %d entities after a failed batch, want 2", what, n)
		}
	}
	x := func(rk string) *storage.Entity { return ent("p", rk, storage.Properties{"v": storage.Int32(99)}) }
	cases := []struct {
		name  string
		ops   []storage.Operation
		index int
		want  error
	}{
		{"insert existing last", []storage.Operation{
			{Kind: storage.OpInsert, Entity: x("x")},
			{Kind: storage.OpUpdate, Entity: x("a"), IfMatch: etagA2},
			{Kind: storage.OpInsert, Entity: x("b")},
		}, 2, storage.ErrAlreadyExists},
		{"delete missing", []storage.Operation{
			{Kind: storage.OpUpsert, Entity: x("x")},
			{Kind: storage.OpDelete, Entity: x("y")},
			{Kind: storage.OpDelete, Entity: x("b"), IfMatch: etagB},
		}, 1, storage.ErrNotFound},
		{"update with stale ETag", []storage.Operation{
			{Kind: storage.OpInsert, Entity: x("x")},
			{Kind: storage.OpDelete, Entity: x("b")},
			{Kind: storage.OpUpsert, Mode: storage.Merge, Entity: x("z")},
			{Kind: storage.OpUpdate, Mode: storage.Merge, Entity: x("a"), IfMatch: etagA},
		}, 3, storage.ErrPreconditionFailed},
		{"update missing first", []storage.Operation{
			{Kind: storage.OpUpdate, Entity: x("y")},
			{Kind: storage.OpInsert, Entity: x("x")},
		}, 0, storage.ErrNotFound},
		{"update missing with *", []storage.Operation{
			{Kind: storage.OpInsert, Entity: x("x")},
			{Kind: storage.OpUpdate, Mode: storage.Merge, Entity: x("y"), IfMatch: storage.ETagAny},
		}, 1, storage.ErrNotFound},
		{"delete with stale ETag", []storage.Operation{
			{Kind: storage.OpInsert, Entity: x("x")},
			{Kind: storage.OpInsert, Entity: x("y")},
			{Kind: storage.OpUpdate, Entity: x("b"), IfMatch: etagB},
			{Kind: storage.OpInsert, Entity: x("z")},
			{Kind: storage.OpDelete, Entity: x("a"), IfMatch: etagA},
		}, 4, storage.ErrPreconditionFailed},
	}
	for _, tc := range cases {
		etags, err := e.s.Batch(e.ctx, e.table, tc.ops)
		if etags != nil {
			t.Errorf("%s: failed Batch returned ETags %q", tc.name, etags)
		}
		expectBatchErr(t, tc.name, err, tc.index, tc.want)
		unchanged(tc.name)
	}
	// The same operations minus the failing one succeed.
	ops := cases[2].ops[:3]
	if _, err := e.s.Batch(e.ctx, e.table, ops); err != nil {
		t.Fatalf("Batch without the failing operation: %v", err)
	}
	e.get("p", "x")
	e.get("p", "z")
	e.mustNotExist("p", "b")
}

func (r *runner) testBatchRules(t *testing.T) {
	e := r.setup(t)
	small := func(pk, rk string) *storage.Entity { return ent(pk, rk, storage.Properties{"v": storage.Int32(1)}) }
	inserts := func(n int) []storage.Operation {
		ops := make([]storage.Operation, n)
		for i := range ops {
			ops[i] = storage.Operation{Kind: storage.OpInsert, Entity: small("p", fmt.Sprintf("r%03d", i))}
		}
		return ops
	}
	empty := func(what string) {
		t.Helper()
		if got := e.queryAll(e.table, storage.Query{}); len(got) != 0 {
			t.Fatalf("%s: rejected batch wrote %d entities", what, len(got))
		}
	}

	_, err := e.s.Batch(e.ctx, e.table, nil)
	expectBatchErr(t, "empty batch", err, -1, storage.ErrInvalid)

	_, err = e.s.Batch(e.ctx, e.table, inserts(storage.MaxBatchOps+1))
	expectBatchErr(t, "101 operations", err, -1, storage.ErrTooLarge)
	empty("101 operations")

	ops := inserts(5)
	ops[3].Entity = small("q", "r003")
	_, err = e.s.Batch(e.ctx, e.table, ops)
	expectBatchErr(t, "two partitions", err, 3, storage.ErrInvalid)
	empty("two partitions")

	ops = inserts(5)
	ops[4] = storage.Operation{Kind: storage.OpDelete, Entity: small("p", "r001")}
	_, err = e.s.Batch(e.ctx, e.table, ops)
	expectBatchErr(t, "two operations on one entity", err, 4, storage.ErrInvalid)
	empty("two operations on one entity")

	ops = inserts(5)
	ops[2].Entity = small("p", "bad/key")
	_, err = e.s.Batch(e.ctx, e.table, ops)
	expectBatchErr(t, "invalid RowKey", err, 2, storage.ErrInvalidKey)
	empty("invalid RowKey")

	ops = inserts(5)
	ops[1].Entity = ent("p", "r001", manyProps(storage.MaxProperties+1))
	_, err = e.s.Batch(e.ctx, e.table, ops)
	expectBatchErr(t, "too many properties", err, 1, storage.ErrTooLarge)
	empty("too many properties")

	ops = inserts(5)
	ops[3].Entity = ent("p", "r003", storage.Properties{"bad name": storage.Int32(1)})
	_, err = e.s.Batch(e.ctx, e.table, ops)
	expectBatchErr(t, "invalid property name", err, 3, storage.ErrInvalid)

	ops = inserts(5)
	ops[2].Entity = nil
	_, err = e.s.Batch(e.ctx, e.table, ops)
	expectBatchErr(t, "nil entity", err, 2, storage.ErrInvalid)

	ops = inserts(5)
	ops[1].Kind = 0
	_, err = e.s.Batch(e.ctx, e.table, ops)
	expectBatchErr(t, "unknown operation kind", err, 1, storage.ErrInvalid)
	empty("invalid operations")

	// Over 4 MiB in all, though every entity is within 1 MiB.
	big := make([]storage.Operation, 5)
	for i := range big {
		big[i] = storage.Operation{Kind: storage.OpUpsert, Entity: ent("p", fmt.Sprintf("big%d", i), nearMaxEntityProps())}
	}
	_, err = e.s.Batch(e.ctx, e.table, big)
	expectBatchErr(t, "batch over 4 MiB", err, -1, storage.ErrTooLarge)
	empty("batch over 4 MiB")

	// 100 operations are allowed.
	etags, err := e.s.Batch(e.ctx, e.table, inserts(storage.MaxBatchOps))
	if err != nil || len(etags) != storage.MaxBatchOps {
		t.Fatalf("Batch of 100 inserts: %d ETags, %v", len(etags), err)
	}
	if n := len(e.queryAll(e.table, storage.Query{})); n != storage.MaxBatchOps {
		t.Fatalf("after a batch of 100: %d entities", n)
	}
}

// manyProps returns n Int32 properties.
func manyProps(n int) storage.Properties {
	p := make(storage.Properties, n)
	for i := range n {
		p[fmt.Sprintf("p%03d", i)] = storage.Int32(int32(i))
	}
	return p
}

// nearMaxEntityProps returns properties of an entity just under
// MaxEntityBytes: 15 strings of 32 Ki UTF-16 units, 64 KiB each.
func nearMaxEntityProps() storage.Properties {
	p := make(storage.Properties, 15)
	for i := range 15 {
		p[fmt.Sprintf("s%02d", i)] = storage.String(strings.Repeat(string(rune('a'+i)), storage.MaxStringUTF16))
	}
	return p
}
