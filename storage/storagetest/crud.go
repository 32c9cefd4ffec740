package storagetest

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/storage"
)

func (r *runner) testTables(t *testing.T) {
	e := &env{t: t, s: r.newStore(t), ctx: t.Context(), r: r}
	// Created with mixed case; looked up in any case.
	names := []string{"Zz" + r.suffix + "tables", "aA" + r.suffix + "tables", "MixedCase" + r.suffix}
	for _, n := range names {
		ok, err := e.s.TableExists(e.ctx, n)
		if err != nil || ok {
			t.Fatalf("TableExists(%q) before CreateTable = %v, %v; want false, nil", n, ok, err)
		}
		if err := e.s.CreateTable(e.ctx, n); err != nil {
			t.Fatalf("CreateTable(%q): %v", n, err)
		}
		t.Cleanup(func() { e.s.DeleteTable(t.Context(), n) })
	}
	for _, n := range names {
		for _, v := range []string{n, strings.ToUpper(n), strings.ToLower(n)} {
			ok, err := e.s.TableExists(e.ctx, v)
			if err != nil || !ok {
				t.Fatalf("TableExists(%q) = %v, %v; want true (tables are case-insensitive)", v, ok, err)
			}
		}
		err := e.s.CreateTable(e.ctx, strings.ToUpper(n))
		expectErr(t, "CreateTable of an existing table in other case", err, storage.ErrAlreadyExists)
	}

	// Entities written through one spelling are read through another.
	if _, err := e.s.Insert(e.ctx, strings.ToUpper(names[2]), ent("p", "r", storage.Properties{"x": storage.Int32(1)})); err != nil {
		t.Fatalf("Insert via upper-case name: %v", err)
	}
	got, err := e.s.Get(e.ctx, strings.ToLower(names[2]), "p", "r", nil)
	if err != nil || !got.Properties["x"].Equal(storage.Int32(1)) {
		t.Fatalf("Get via lower-case name = %v, %v", got, err)
	}

	// ListTables: our tables, spelled as created, in case-insensitive order.
	list, err := e.s.ListTables(e.ctx)
	if err != nil {
		t.Fatalf("ListTables: %v", err)
	}
	var ours []string
	for _, n := range list {
		if slices.Contains(names, n) {
			ours = append(ours, n)
		}
		for _, m := range names {
			if n != m && strings.EqualFold(n, m) {
				t.Errorf("ListTables returned %q, want the created spelling %q", n, m)
			}
		}
	}
	want := slices.Clone(names)
	slices.SortFunc(want, func(x, y string) int { return strings.Compare(strings.ToLower(x), strings.ToLower(y)) })
	expectKeys(t, "ListTables (our tables)", ours, want)
	for i := 1; i < len(list); i++ {
		if strings.ToLower(list[i-1]) >= strings.ToLower(list[i]) {
			t.Errorf("ListTables not in case-insensitive order: %q before %q", list[i-1], list[i])
		}
	}

	// Invalid names.
	for _, bad := range []string{"", "ab", "1abc", "a-bc", "abc_d", "tables", "Tables", "a\u00e9bc", strings.Repeat("a", 64)} {
		err := e.s.CreateTable(e.ctx, bad)
		expectErr(t, "CreateTable("+bad+")", err, storage.ErrInvalid)
	}
	long := "a" + strings.Repeat("b", 62)[:62-len(r.suffix)] + r.suffix
	if err := e.s.CreateTable(e.ctx, long); err != nil {
		t.Fatalf("CreateTable of a 63-character name: %v", err)
	}
	if err := e.s.DeleteTable(e.ctx, long); err != nil {
		t.Fatalf("DeleteTable(%q): %v", long, err)
	}

	// DeleteTable removes the table and its entities, in any case.
	if err := e.s.DeleteTable(e.ctx, strings.ToLower(names[2])); err != nil {
		t.Fatalf("DeleteTable: %v", err)
	}
	ok, err := e.s.TableExists(e.ctx, names[2])
	if err != nil || ok {
		t.Fatalf("TableExists after DeleteTable = %v, %v", ok, err)
	}
	list, err = e.s.ListTables(e.ctx)
	if err != nil || slices.Contains(list, names[2]) {
		t.Fatalf("ListTables after DeleteTable = %q, %v", list, err)
	}
	err = e.s.DeleteTable(e.ctx, names[2])
	expectErr(t, "DeleteTable of a deleted table", err, storage.ErrNotFound)
	_, err = e.s.Get(e.ctx, names[2], "p", "r", nil)
	expectErr(t, "Get in a deleted table", err, storage.ErrNotFound)

	// A table recreated under the old name starts empty.
	if err := e.s.CreateTable(e.ctx, names[2]); err != nil {
		t.Fatalf("CreateTable again: %v", err)
	}
	_, err = e.s.Get(e.ctx, names[2], "p", "r", nil)
	expectErr(t, "Get in a recreated table", err, storage.ErrNotFound)
	if got := e.queryAll(names[2], storage.Query{}); len(got) != 0 {
		t.Fatalf("recreated table holds %d entities, want 0", len(got))
	}
}

func (r *runner) testTableIsolation(t *testing.T) {
	e := r.setup(t)
	other := e.newTable("other")
	e.insert("p", "r", storage.Properties{"v": storage.Int32(1)})
	if _, err := e.s.Insert(e.ctx, other, ent("p", "r", storage.Properties{"v": storage.Int32(2)})); err != nil {
		t.Fatalf("Insert of the same keys in another table: %v", err)
	}
	// Tables whose names share a prefix do not see each other either.
	prefixed := e.newTable("otherx")
	for _, tc := range []struct {
		table string
		want  int
	}{{e.table, 1}, {other, 2}} {
		got, err := e.s.Get(e.ctx, tc.table, "p", "r", nil)
		if err != nil || got.Properties["v"].Int() != int64(tc.want) {
			t.Fatalf("Get in %s = %v, %v; want v=%d", tc.table, got, err, tc.want)
		}
		if n := len(e.queryAll(tc.table, storage.Query{})); n != 1 {
			t.Fatalf("Query of %s returned %d entities, want 1", tc.table, n)
		}
	}
	if n := len(e.queryAll(prefixed, storage.Query{})); n != 0 {
		t.Fatalf("Query of %s returned %d entities, want 0", prefixed, n)
	}
	if err := e.s.DeleteTable(e.ctx, other); err != nil {
		t.Fatal(err)
	}
	if got := e.get("p", "r"); got.Properties["v"].Int() != 1 {
		t.Fatalf("deleting another table changed this one: %v", got.Properties)
	}
}

func (r *runner) testInsertGet(t *testing.T) {
	e := r.setup(t)
	before := time.Now()
	props := storage.Properties{"name": storage.String("x"), "n": storage.Int64(7)}
	in := ent("p1", "r1", props)
	in.ETag = "ignored-on-write"
	in.Timestamp = time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	etag, err := e.s.Insert(e.ctx, e.table, in)
	if err != nil || etag == "" || etag == "ignored-on-write" {
		t.Fatalf("Insert = %q, %v", etag, err)
	}
	// The caller's map is not retained.
	props["name"] = storage.String("changed")
	props["extra"] = storage.Bool(true)

	got := e.get("p1", "r1")
	checkProps(t, "Get after Insert", got.Properties, storage.Properties{"name": storage.String("x"), "n": storage.Int64(7)})
	if got.ETag != etag {
		t.Errorf("Get ETag %q, Insert returned %q", got.ETag, etag)
	}
	if !nearNow(got.Timestamp) || got.Timestamp.Before(before.Add(-5*time.Minute)) {
		t.Errorf("Timestamp %v is not the time of the write (%v)", got.Timestamp, before)
	}

	_, err = e.s.Insert(e.ctx, e.table, ent("p1", "r1", storage.Properties{"other": storage.Int32(1)}))
	expectErr(t, "Insert of an existing entity", err, storage.ErrAlreadyExists)
	checkProps(t, "after failed Insert", e.get("p1", "r1").Properties, storage.Properties{"name": storage.String("x"), "n": storage.Int64(7)})

	e.mustNotExist("p1", "r2")
	e.mustNotExist("p2", "r1")
	e.mustNotExist("p", "1r1")
	e.mustNotExist("p1r", "1")

	// An entity without properties, and empty keys.
	e.insert("p1", "r2", nil)
	if got := e.get("p1", "r2"); len(got.Properties) != 0 {
		t.Errorf("entity without properties has %v", got.Properties)
	}
	e.insert("", "", storage.Properties{"k": storage.String("empty keys")})
	e.insert("", "r", storage.Properties{"k": storage.String("empty pk")})
	e.insert("p1", "", storage.Properties{"k": storage.String("empty rk")})
	checkProps(t, "empty keys", e.get("", "").Properties, storage.Properties{"k": storage.String("empty keys")})
	checkProps(t, "empty pk", e.get("", "r").Properties, storage.Properties{"k": storage.String("empty pk")})
	checkProps(t, "empty rk", e.get("p1", "").Properties, storage.Properties{"k": storage.String("empty rk")})
	all := e.queryAll(e.table, storage.Query{})
	expectKeys(t, "all entities", e.resultKeys(all), []string{"/", "/r", "p1/", "p1/r1", "p1/r2"})
}

// valueSamples are values of every type, including edge cases, keyed by
// property name.
func valueSamples() storage.Properties {
	return storage.Properties{
		"sEmpty":   storage.String(""),
		"sAscii":   storage.String("hello, world"),
		"sQuote":   storage.String("it's \"quoted\" 'twice'"),
		"sUnicode": storage.String("\u00e9\u4e2d\U0001F600\uE000 \t\nend"),
		"sSlash":   storage.String("a/b\\c#d?e"),
		"i32Min":   storage.Int32(math.MinInt32),
		"i32Max":   storage.Int32(math.MaxInt32),
		"i32Zero":  storage.Int32(0),
		"i64Min":   storage.Int64(math.MinInt64),
		"i64Max":   storage.Int64(math.MaxInt64),
		"i64Small": storage.Int64(-3),
		"dFrac":    storage.Double(-1.25),
		"dWhole":   storage.Double(3),
		"dZero":    storage.Double(0),
		"dBig":     storage.Double(1.7976931348623157e308),
		"dTiny":    storage.Double(5e-324),
		"dPi":      storage.Double(math.Pi),
		"bTrue":    storage.Bool(true),
		"bFalse":   storage.Bool(false),
		"tMin":     storage.DateTime(time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC)),
		"tMax":     storage.DateTime(time.Date(9999, 12, 31, 23, 59, 59, 999_999_900, time.UTC)),
		"tTicks":   storage.DateTime(time.Date(2024, 2, 29, 13, 14, 15, 123_456_700, time.UTC)),
		"binEmpty": storage.Binary([]byte{}),
		"binBytes": storage.Binary([]byte{0, 1, 2, 0xfe, 0xff}),
		"gZero":    storage.GUID([16]byte{}),
		"gSome":    storage.GUID([16]byte{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 1, 2, 3, 4, 5, 6, 7, 8}),
	}
}

func (r *runner) testValuesRoundTrip(t *testing.T) {
	e := r.setup(t)
	want := valueSamples()
	etag := e.insert("p", "r", want)
	got := e.get("p", "r")
	checkProps(t, "Get", got.Properties, want)
	if got.ETag != etag {
		t.Errorf("ETag %q, want %q", got.ETag, etag)
	}
	q := e.queryAll(e.table, storage.Query{Partition: storage.Exactly("p")})
	if len(q) != 1 {
		t.Fatalf("Query returned %d entities", len(q))
	}
	checkProps(t, "Query", q[0].Properties, want)
	if q[0].ETag != etag {
		t.Errorf("Query ETag %q, want %q", q[0].ETag, etag)
	}
	// Sub-microsecond DateTime precision survives (100 ns ticks).
	if g := got.Properties["tTicks"].Time(); g.Nanosecond() != 123_456_700 {
		t.Errorf("DateTime lost precision: %v", g)
	}
}

func (r *runner) testUpsert(t *testing.T) {
	e := r.setup(t)
	// Upsert of a new entity inserts it, in either mode.
	for _, mode := range []storage.UpdateMode{storage.Replace, storage.Merge} {
		rk := "new-" + mode.String()
		etag, err := e.s.Upsert(e.ctx, e.table, ent("p", rk, storage.Properties{"a": storage.Int32(1)}), mode)
		if err != nil || etag == "" {
			t.Fatalf("Upsert(%v) of a new entity = %q, %v", mode, etag, err)
		}
		got := e.get("p", rk)
		checkProps(t, "Upsert insert", got.Properties, storage.Properties{"a": storage.Int32(1)})
		if got.ETag != etag {
			t.Errorf("ETag %q, want %q", got.ETag, etag)
		}
	}
	base := storage.Properties{"a": storage.Int32(1), "b": storage.String("two")}
	e.insert("p", "replace", base)
	e.insert("p", "merge", base)
	if _, err := e.s.Upsert(e.ctx, e.table, ent("p", "replace", storage.Properties{"b": storage.String("new"), "c": storage.Bool(true)}), storage.Replace); err != nil {
		t.Fatal(err)
	}
	checkProps(t, "Upsert replace", e.get("p", "replace").Properties, storage.Properties{"b": storage.String("new"), "c": storage.Bool(true)})
	if _, err := e.s.Upsert(e.ctx, e.table, ent("p", "merge", storage.Properties{"b": storage.String("new"), "c": storage.Bool(true)}), storage.Merge); err != nil {
		t.Fatal(err)
	}
	checkProps(t, "Upsert merge", e.get("p", "merge").Properties, storage.Properties{"a": storage.Int32(1), "b": storage.String("new"), "c": storage.Bool(true)})
	// A merge may change a property's type.
	if _, err := e.s.Upsert(e.ctx, e.table, ent("p", "merge", storage.Properties{"a": storage.String("now a string")}), storage.Merge); err != nil {
		t.Fatal(err)
	}
	checkProps(t, "Upsert merge type change", e.get("p", "merge").Properties, storage.Properties{"a": storage.String("now a string"), "b": storage.String("new"), "c": storage.Bool(true)})
	// Replace with no properties clears them.
	if _, err := e.s.Upsert(e.ctx, e.table, ent("p", "replace", nil), storage.Replace); err != nil {
		t.Fatal(err)
	}
	checkProps(t, "Upsert replace with nothing", e.get("p", "replace").Properties, storage.Properties{})
}

func (r *runner) testUpdate(t *testing.T) {
	e := r.setup(t)
	etag := e.insert("p", "r", storage.Properties{"a": storage.Int32(1), "b": storage.Int32(2)})

	// Merge with the current ETag.
	etag2, err := e.s.Update(e.ctx, e.table, ent("p", "r", storage.Properties{"b": storage.Int32(20), "c": storage.Int32(30)}), storage.Merge, etag)
	if err != nil || etag2 == "" || etag2 == etag {
		t.Fatalf("Update merge = %q, %v (old ETag %q)", etag2, err, etag)
	}
	got := e.get("p", "r")
	checkProps(t, "Update merge", got.Properties, storage.Properties{"a": storage.Int32(1), "b": storage.Int32(20), "c": storage.Int32(30)})
	if got.ETag != etag2 {
		t.Errorf("ETag after Update %q, Update returned %q", got.ETag, etag2)
	}

	// A stale ETag fails and changes nothing.
	_, err = e.s.Update(e.ctx, e.table, ent("p", "r", storage.Properties{"z": storage.Int32(0)}), storage.Replace, etag)
	expectErr(t, "Update with a stale ETag", err, storage.ErrPreconditionFailed)
	if got := e.get("p", "r"); got.ETag != etag2 || len(got.Properties) != 3 {
		t.Fatalf("failed Update changed the entity: %v %v", got.ETag, got.Properties)
	}
	_, err = e.s.Update(e.ctx, e.table, ent("p", "r", nil), storage.Merge, storage.ETag(`W/"datetime'2000-01-01T00%3A00%3A00.0000000Z'"`))
	expectErr(t, "Update with a made-up ETag", err, storage.ErrPreconditionFailed)

	// Replace, unconditional ("" and "*").
	etag3, err := e.s.Update(e.ctx, e.table, ent("p", "r", storage.Properties{"d": storage.Int32(4)}), storage.Replace, "")
	if err != nil || etag3 == etag2 {
		t.Fatalf("Update replace with no If-Match = %q, %v", etag3, err)
	}
	checkProps(t, "Update replace", e.get("p", "r").Properties, storage.Properties{"d": storage.Int32(4)})
	etag4, err := e.s.Update(e.ctx, e.table, ent("p", "r", storage.Properties{"d": storage.Int32(5)}), storage.Replace, storage.ETagAny)
	if err != nil || etag4 == etag3 {
		t.Fatalf("Update replace with * = %q, %v", etag4, err)
	}
	checkProps(t, "Update replace *", e.get("p", "r").Properties, storage.Properties{"d": storage.Int32(5)})

	// Update never creates an entity.
	for _, ifMatch := range []storage.ETag{"", storage.ETagAny, etag4} {
		for _, mode := range []storage.UpdateMode{storage.Replace, storage.Merge} {
			_, err := e.s.Update(e.ctx, e.table, ent("p", "missing", storage.Properties{"a": storage.Int32(1)}), mode, ifMatch)
			expectErr(t, "Update of a missing entity (If-Match "+string(ifMatch)+")", err, storage.ErrNotFound)
		}
	}
	e.mustNotExist("p", "missing")
}

func (r *runner) testDelete(t *testing.T) {
	e := r.setup(t)
	etag := e.insert("p", "r", storage.Properties{"a": storage.Int32(1)})
	etag2, err := e.s.Update(e.ctx, e.table, ent("p", "r", storage.Properties{"a": storage.Int32(2)}), storage.Replace, "")
	if err != nil {
		t.Fatal(err)
	}
	err = e.s.Delete(e.ctx, e.table, "p", "r", etag)
	expectErr(t, "Delete with a stale ETag", err, storage.ErrPreconditionFailed)
	e.get("p", "r")
	if err := e.s.Delete(e.ctx, e.table, "p", "r", etag2); err != nil {
		t.Fatalf("Delete with the current ETag: %v", err)
	}
	e.mustNotExist("p", "r")
	for _, ifMatch := range []storage.ETag{"", storage.ETagAny, etag2} {
		err = e.s.Delete(e.ctx, e.table, "p", "r", ifMatch)
		expectErr(t, "Delete of a missing entity (If-Match "+string(ifMatch)+")", err, storage.ErrNotFound)
	}
	if got := e.queryAll(e.table, storage.Query{}); len(got) != 0 {
		t.Fatalf("Query after Delete returned %q", keys(got))
	}

	// Unconditional deletes.
	e.insert("p", "a", nil)
	e.insert("p", "b", nil)
	if err := e.s.Delete(e.ctx, e.table, "p", "a", ""); err != nil {
		t.Fatal(err)
	}
	if err := e.s.Delete(e.ctx, e.table, "p", "b", storage.ETagAny); err != nil {
		t.Fatal(err)
	}
	e.mustNotExist("p", "a")
	e.mustNotExist("p", "b")

	// A reinserted entity has a new ETag: the old one no longer matches.
	etag5 := e.insert("p", "r", storage.Properties{"a": storage.Int32(3)})
	if etag5 == etag || etag5 == etag2 {
		t.Fatalf("reinserted entity reuses an old ETag %q", etag5)
	}
	_, err = e.s.Update(e.ctx, e.table, ent("p", "r", nil), storage.Replace, etag2)
	expectErr(t, "Update with the ETag of a deleted incarnation", err, storage.ErrPreconditionFailed)
}

func (r *runner) testETagsChange(t *testing.T) {
	e := r.setup(t)
	seen := map[storage.ETag]bool{}
	add := func(what string, etag storage.ETag, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if etag == "" || seen[etag] {
			t.Fatalf("%s returned ETag %q, empty or seen before", what, etag)
		}
		seen[etag] = true
		if got := e.get("p", "r"); got.ETag != etag {
			t.Fatalf("%s: Get ETag %q, want %q", what, got.ETag, etag)
		}
	}
	props := storage.Properties{"a": storage.Int32(1)}
	etag, err := e.s.Insert(e.ctx, e.table, ent("p", "r", props))
	add("Insert", etag, err)
	ts := e.get("p", "r").Timestamp
	// Writes that change nothing still produce a new ETag.
	for i := range 3 {
		etag, err = e.s.Upsert(e.ctx, e.table, ent("p", "r", props), storage.Replace)
		add("Upsert replace", etag, err)
		etag, err = e.s.Upsert(e.ctx, e.table, ent("p", "r", props), storage.Merge)
		add("Upsert merge", etag, err)
		etag, err = e.s.Update(e.ctx, e.table, ent("p", "r", props), storage.Merge, etag)
		add("Update merge", etag, err)
		etag, err = e.s.Update(e.ctx, e.table, ent("p", "r", props), storage.Replace, etag)
		add("Update replace", etag, err)
		etags, err := e.s.Batch(e.ctx, e.table, []storage.Operation{{Kind: storage.OpUpdate, Entity: ent("p", "r", props), IfMatch: etag}})
		if err != nil || len(etags) != 1 {
			t.Fatalf("Batch update %d = %q, %v; want 1 ETag", i, etags, err)
		}
		add("Batch update", etags[0], err)
	}
	got := e.get("p", "r")
	if got.Timestamp.Before(ts) {
		t.Errorf("Timestamp went back from %v to %v", ts, got.Timestamp)
	}
}

func (r *runner) testMissingTable(t *testing.T) {
	e := r.setup(t)
	missing := e.tableName("nosuch")
	ctx := e.ctx
	x := ent("p", "r", storage.Properties{"a": storage.Int32(1)})
	checks := map[string]error{}
	_, checks["Get"] = e.s.Get(ctx, missing, "p", "r", nil)
	_, checks["Insert"] = e.s.Insert(ctx, missing, x)
	_, checks["Upsert"] = e.s.Upsert(ctx, missing, x, storage.Merge)
	_, checks["Update"] = e.s.Update(ctx, missing, x, storage.Merge, "")
	checks["Delete"] = e.s.Delete(ctx, missing, "p", "r", "")
	_, checks["Batch"] = e.s.Batch(ctx, missing, []storage.Operation{{Kind: storage.OpInsert, Entity: x}})
	_, checks["Query"] = e.s.Query(ctx, missing, &storage.Query{})
	checks["DeleteTable"] = e.s.DeleteTable(ctx, missing)
	for what, err := range checks {
		expectErr(t, what+" on a missing table", err, storage.ErrNotFound)
	}
	if ok, err := e.s.TableExists(ctx, missing); ok || err != nil {
		t.Fatalf("TableExists = %v, %v", ok, err)
	}
	// Nothing above created the table.
	if ok, err := e.s.TableExists(ctx, missing); ok || err != nil {
		t.Fatalf("a write on a missing table created it: %v, %v", ok, err)
	}
}

func (r *runner) testProjection(t *testing.T) {
	e := r.setup(t)
	props := storage.Properties{"a": storage.Int32(1), "b": storage.String("bee"), "c": storage.Double(2.5), "d": storage.Bool(false)}
	etag := e.insert("p", "r1", props)
	e.insert("p", "r2", storage.Properties{"b": storage.String("only b")})

	cases := []struct {
		sel  []string
		want [2]storage.Properties
	}{
		{nil, [2]storage.Properties{props, {"b": storage.String("only b")}}},
		{[]string{"a", "c"}, [2]storage.Properties{{"a": storage.Int32(1), "c": storage.Double(2.5)}, {}}},
		{[]string{"b", "nosuch"}, [2]storage.Properties{{"b": storage.String("bee")}, {"b": storage.String("only b")}}},
		{[]string{"d"}, [2]storage.Properties{{"d": storage.Bool(false)}, {}}},
		{[]string{"PartitionKey", "RowKey", "Timestamp"}, [2]storage.Properties{{}, {}}},
	}
	for _, tc := range cases {
		got := e.queryAll(e.table, storage.Query{Partition: storage.Exactly("p"), Select: tc.sel})
		if len(got) != 2 {
			t.Fatalf("select %v: %d entities", tc.sel, len(got))
		}
		for i, x := range got {
			checkProps(t, "Query select "+strings.Join(tc.sel, ","), x.Properties, tc.want[i])
		}
		if got[0].ETag != etag || got[0].RowKey != "r1" || got[0].PartitionKey != "p" || got[0].Timestamp.IsZero() {
			t.Fatalf("select %v: keys, ETag or Timestamp missing: %+v", tc.sel, got[0])
		}
		g, err := e.s.Get(e.ctx, e.table, "p", "r1", &storage.GetOptions{Select: tc.sel})
		if err != nil {
			t.Fatal(err)
		}
		checkProps(t, "Get select "+strings.Join(tc.sel, ","), g.Properties, tc.want[0])
		if g.ETag != etag || g.Timestamp.IsZero() {
			t.Fatalf("Get select %v: ETag %q, Timestamp %v", tc.sel, g.ETag, g.Timestamp)
		}
	}
	// Projection combines with a filter on a property it does not return.
	got := e.queryAll(e.table, storage.Query{Filter: storage.Eq("a", storage.Int32(1)), Select: []string{"b"}})
	if len(got) != 1 || got[0].RowKey != "r1" {
		t.Fatalf("filter on a, select b: %q", keys(got))
	}
	checkProps(t, "filter a select b", got[0].Properties, storage.Properties{"b": storage.String("bee")})
	_, err := e.s.Query(e.ctx, e.table, &storage.Query{Select: []string{"bad-name"}})
	expectErr(t, "select of an invalid name", err, storage.ErrInvalid)
	if errors.Is(err, storage.ErrNotFound) {
		t.Fatal("invalid select reported as not found")
	}
}
