package catalog

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// countingStore counts the requests sent to the store.
type countingStore struct {
	storage.Store
	n atomic.Int64
}

func (s *countingStore) Get(ctx context.Context, table, pk, rk string, o *storage.GetOptions) (*storage.Entity, error) {
	s.n.Add(1)
	return s.Store.Get(ctx, table, pk, rk, o)
}

func (s *countingStore) Query(ctx context.Context, table string, q *storage.Query) (*storage.Page, error) {
	s.n.Add(1)
	return s.Store.Query(ctx, table, q)
}

func (s *countingStore) Batch(ctx context.Context, table string, ops []storage.Operation) ([]storage.ETag, error) {
	s.n.Add(1)
	return s.Store.Batch(ctx, table, ops)
}

func newStore(t testing.TB) storage.Store {
	t.Helper()
	s, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func open(t testing.TB, s storage.Store, opts Options) *Catalog {
	t.Helper()
	c, err := Open(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// openDB opens a catalog on s and creates database db in it.
func openDB(t testing.TB, s storage.Store, db string) *Catalog {
	t.Helper()
	c := open(t, s, Options{})
	if err := c.CreateDatabase(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	return c
}

func intCol(name string) Column { return Column{Name: name, Type: Type{Kind: KindInt64}} }

func simpleDef(name string) *TableDef {
	return &TableDef{Name: name, Columns: []Column{intCol("id"), {Name: "v", Type: Type{Kind: KindVarchar, Length: 20}, Nullable: true}},
		PrimaryKey: []KeyPart{{Column: "id"}}}
}

func TestPersistenceAcrossCatalogs(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	a := openDB(t, s, "Shop")
	if err := a.CreateDatabase(ctx, "shop"); !errors.Is(err, ErrDatabaseExists) {
		t.Fatalf("duplicate database: %v", err)
	}
	tbl, err := a.CreateTable(ctx, "shop", simpleDef("Orders"))
	if err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.TableExists(ctx, tbl.Physical); !ok {
		t.Fatalf("physical table %q not created", tbl.Physical)
	}
	if err := storage.ValidateTableName(tbl.Physical); err != nil || !strings.HasPrefix(tbl.Physical, "sqlgwt") {
		t.Fatalf("physical name %q: %v", tbl.Physical, err)
	}
	if _, err := a.CreateTable(ctx, "shop", simpleDef("orders")); !errors.Is(err, ErrTableExists) {
		t.Fatalf("duplicate table: %v", err)
	}
	if _, err := a.CreateTable(ctx, "nope", simpleDef("x")); !errors.Is(err, ErrNoDatabase) {
		t.Fatalf("table in unknown database: %v", err)
	}

	b := open(t, s, Options{})
	dbs, err := b.Databases(ctx)
	if err != nil || fmt.Sprint(dbs) != "[Shop]" {
		t.Fatalf("databases %v %v", dbs, err)
	}
	got, err := b.Table(ctx, "SHOP", "ORDERS")
	if err != nil {
		t.Fatal(err)
	}
	if got.Physical != tbl.Physical || got.ID != tbl.ID || got.Name != "Orders" || got.Columns[1].Property != "v" {
		t.Fatalf("reopened table %+v, created %+v", got, tbl)
	}
	if len(got.PartitionColumns()) != 1 || got.PartitionColumns()[0].Index != 0 || len(got.RowColumns()) != 0 {
		t.Fatalf("default partition rule: %+v %+v", got.PartitionColumns(), got.RowColumns())
	}

	// Rename, truncate and drop, seen from the other catalog.
	if _, err := b.RenameTable(ctx, "shop", "orders", "shop", "orders2"); err != nil {
		t.Fatal(err)
	}
	tr, err := b.TruncateTable(ctx, "shop", "orders2")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Physical == tbl.Physical || tr.Generation != 2 {
		t.Fatalf("truncate kept physical %q gen %d", tr.Physical, tr.Generation)
	}
	if ok, _ := s.TableExists(ctx, tbl.Physical); ok {
		t.Fatalf("old physical table %q not deleted", tbl.Physical)
	}
	if err := a.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Table(ctx, "shop", "orders"); !errors.Is(err, ErrNoTable) {
		t.Fatalf("renamed table still visible: %v", err)
	}
	if got, err := a.Table(ctx, "shop", "orders2"); err != nil || got.Physical != tr.Physical {
		t.Fatalf("renamed table: %v %v", got, err)
	}
	if err := a.DropDatabase(ctx, "shop"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.TableExists(ctx, tr.Physical); ok {
		t.Fatalf("physical table %q survived DROP DATABASE", tr.Physical)
	}
	if err := b.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, _ := b.DatabaseExists(ctx, "shop"); ok {
		t.Fatal("dropped database still visible")
	}
}

// TestConcurrentDDL races DDL from two catalogs over one store: both must
// end with every change. Run with -race.
func TestConcurrentDDL(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	cats := []*Catalog{open(t, s, Options{}), open(t, s, Options{})}
	if err := cats[0].CreateDatabase(ctx, "db"); err != nil {
		t.Fatal(err)
	}
	if _, err := cats[0].CreateTable(ctx, "db", simpleDef("shared")); err != nil {
		t.Fatal(err)
	}
	const perWorker = 8
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for w := range 4 {
		c := cats[w%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				if _, err := c.CreateTable(ctx, "db", simpleDef(fmt.Sprintf("t%d_%d", w, i))); err != nil {
					errs <- err
					return
				}
				// Every worker also alters the one shared table.
				col := Column{Name: fmt.Sprintf("c%d_%d", w, i), Type: Type{Kind: KindInt32}, Nullable: true}
				if _, err := c.AddColumn(ctx, "db", "shared", col, ColumnPosition{}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for i, c := range cats {
		if err := c.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		ts, err := c.Tables(ctx, "db")
		if err != nil {
			t.Fatal(err)
		}
		if len(ts) != 1+4*perWorker {
			t.Fatalf("catalog %d sees %d tables, want %d", i, len(ts), 1+4*perWorker)
		}
		sh, err := c.Table(ctx, "db", "shared")
		if err != nil {
			t.Fatal(err)
		}
		if len(sh.Columns) != 2+4*perWorker {
			t.Fatalf("catalog %d: shared has %d columns, want %d", i, len(sh.Columns), 2+4*perWorker)
		}
		props := map[string]bool{}
		for _, col := range sh.Columns {
			if props[col.Property] {
				t.Fatalf("property %q assigned twice", col.Property)
			}
			props[col.Property] = true
		}
	}
	// Every physical table exists and belongs to exactly one table: no
	// orphan was left by a retried CreateTable.
	names, err := s.ListTables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 1+1+4*perWorker { // catalog + tables
		t.Fatalf("%d physical tables: %v", len(names), names)
	}
}

func TestCacheRefresh(t *testing.T) {
	ctx := context.Background()
	cs := &countingStore{Store: newStore(t)}
	var now atomic.Int64
	now.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	a := open(t, cs, Options{Now: clock})
	b := open(t, cs, Options{Now: clock})
	if err := a.CreateDatabase(ctx, "db"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.CreateTable(ctx, "db", simpleDef("t1")); err != nil {
		t.Fatal(err)
	}
	// b checked at open; within the interval it serves from cache at no cost.
	before := cs.n.Load()
	for range 100 {
		if _, err := b.Table(ctx, "db", "t1"); !errors.Is(err, ErrNoDatabase) {
			t.Fatalf("stale cache should not know db yet: %v", err)
		}
	}
	if n := cs.n.Load() - before; n != 0 {
		t.Fatalf("cached reads sent %d requests", n)
	}
	now.Add(int64(300 * time.Millisecond))
	if _, err := b.Table(ctx, "db", "t1"); err != nil {
		t.Fatalf("after the refresh interval: %v", err)
	}
	// Unchanged catalog: one version check per interval.
	now.Add(int64(300 * time.Millisecond))
	before = cs.n.Load()
	for range 100 {
		if _, err := b.Table(ctx, "db", "t1"); err != nil {
			t.Fatal(err)
		}
	}
	if n := cs.n.Load() - before; n != 1 {
		t.Fatalf("reads after the interval sent %d requests, want 1", n)
	}
	// Refresh sees a change at once.
	if _, err := a.CreateTable(ctx, "db", simpleDef("t2")); err != nil {
		t.Fatal(err)
	}
	if err := b.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Table(ctx, "db", "t2"); err != nil {
		t.Fatal(err)
	}
}

func TestTableDefValidation(t *testing.T) {
	ctx := context.Background()
	c := openDB(t, newStore(t), "db")
	ci := Column{Name: "name", Type: Type{Kind: KindVarchar, Length: 10, Collation: "utf8mb4_0900_ai_ci"}}
	cases := []struct {
		def  *TableDef
		want error
	}{
		{&TableDef{Name: "a", Columns: []Column{ci}, PrimaryKey: []KeyPart{{Column: "name"}}}, ErrUnsupported},
		{&TableDef{Name: "b", Columns: []Column{intCol("x"), intCol("y")}, PrimaryKey: []KeyPart{{Column: "x"}}, PartitionKey: []string{"y"}}, ErrInvalidDef},
		{&TableDef{Name: "c", Columns: []Column{intCol("x"), intCol("X")}}, ErrColumnExists},
		{&TableDef{Name: "d", Columns: []Column{intCol("x")}, PrimaryKey: []KeyPart{{Column: "z"}}}, ErrNoColumn},
		{&TableDef{Name: "e", Columns: []Column{{Name: "t", Type: Type{Kind: KindText}}}, PrimaryKey: []KeyPart{{Column: "t"}}}, ErrUnsupported},
		{&TableDef{Name: "f", Columns: []Column{intCol("x")}, PartitionKey: []string{"x"}}, ErrInvalidDef},
		{&TableDef{Name: "g", Columns: []Column{{Name: "d", Type: Type{Kind: KindDecimal, Precision: 66}}}}, ErrInvalidDef},
		{&TableDef{Name: "h", Columns: []Column{intCol("x")}, Indexes: []Index{{Name: "i", Columns: []KeyPart{{Column: "nope"}}}}}, ErrNoColumn},
	}
	for i, tc := range cases {
		if _, err := c.CreateTable(ctx, "db", tc.def); !errors.Is(err, tc.want) {
			t.Errorf("case %d (%s): err %v, want %v", i, tc.def.Name, err, tc.want)
		}
	}
	// None of the failures left a physical table behind.
	names, _ := c.Store().ListTables(ctx)
	if len(names) != 1 {
		t.Fatalf("physical tables left: %v", names)
	}
	// An explicit partition key over two columns, with a DESC RowKey column.
	tbl, err := c.CreateTable(ctx, "db", &TableDef{Name: "log",
		Columns:      []Column{intCol("tenant"), intCol("region"), {Name: "ts", Type: Type{Kind: KindDatetime, FSP: 6}}, intCol("seq")},
		PrimaryKey:   []KeyPart{{Column: "tenant"}, {Column: "region"}, {Column: "ts", Desc: true}, {Column: "seq"}},
		PartitionKey: []string{"region", "tenant"}})
	if err != nil {
		t.Fatal(err)
	}
	pc, rc := tbl.PartitionColumns(), tbl.RowColumns()
	if len(pc) != 2 || pc[0].Index != 1 || pc[1].Index != 0 || len(rc) != 2 || rc[0].Index != 2 || !rc[0].Desc || rc[1].Index != 3 {
		t.Fatalf("key columns %+v %+v", pc, rc)
	}
}

func TestParseTableOptions(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		err  bool
	}{
		{"", nil, false},
		{"just a comment", nil, false},
		{"sqlgw: partition_key=(a,b)", []string{"a", "b"}, false},
		{"orders table. SQLGW: partition_key = ( tenant , `order id` )", []string{"tenant", "order id"}, false},
		{"sqlgw: partition_key=(`a``b`)", []string{"a`b"}, false},
		{"sqlgw: partition_key=tenant;", []string{"tenant"}, false},
		{"sqlgw: partition_key=(a,", nil, true},
		{"sqlgw: partition_key=()", nil, true},
		{"sqlgw: partition_key=(a) partition_key=(b)", nil, true},
		{"sqlgw: shard=(a)", nil, true},
		{"sqlgw: partition_key", nil, true},
		{"sqlgw: partition_key=(`a)", nil, true},
	}
	for _, c := range cases {
		got, err := ParseTableOptions(c.in)
		if c.err {
			if !errors.Is(err, ErrInvalidDef) {
				t.Errorf("%q: err %v, want ErrInvalidDef", c.in, err)
			}
			continue
		}
		if err != nil || fmt.Sprintf("%q", got.PartitionKey) != fmt.Sprintf("%q", c.want) {
			t.Errorf("%q: %q %v, want %q", c.in, got.PartitionKey, err, c.want)
		}
	}
}

func TestPropertyNames(t *testing.T) {
	ctx := context.Background()
	c := openDB(t, newStore(t), "db")
	long := strings.Repeat("x", 300)
	names := []string{"id", "a b", "a_b", "A_B2", "ünïcode", "PartitionKey", "rowkey", "Timestamp", "ETag", "_hidden",
		"1st", "select", long, long + "y", "", "日本"}
	var cols []Column
	for _, n := range names {
		if n == "" {
			continue
		}
		cols = append(cols, Column{Name: n, Type: Type{Kind: KindInt32}, Nullable: true})
	}
	cols[0].Nullable = false
	tbl, err := c.CreateTable(ctx, "db", &TableDef{Name: "weird", Columns: cols, PrimaryKey: []KeyPart{{Column: "id"}}})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, col := range tbl.Columns {
		p := col.Property
		if err := storage.ValidatePropertyName(p); err != nil {
			t.Errorf("column %q: property %q: %v", col.Name, p, err)
		}
		if p[0] == '_' || len(p) > maxPropBase+4 {
			t.Errorf("column %q: property %q is in the internal namespace or too long", col.Name, p)
		}
		for _, r := range []string{"partitionkey", "rowkey", "timestamp", "etag"} {
			if strings.EqualFold(p, r) {
				t.Errorf("column %q got reserved property %q", col.Name, p)
			}
		}
		if other, dup := seen[strings.ToLower(p)]; dup {
			t.Errorf("columns %q and %q share property %q", other, col.Name, p)
		}
		seen[strings.ToLower(p)] = col.Name
	}
	// Renames keep the property; dropped properties are never reused.
	abProp := tbl.Columns[tbl.ColumnIndex("a b")].Property
	tbl, err = c.ModifyColumn(ctx, "db", "weird", "a b", Column{Name: "renamed", Type: Type{Kind: KindInt32}, Nullable: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := tbl.Columns[tbl.ColumnIndex("renamed")].Property; p != abProp {
		t.Fatalf("rename changed property %q -> %q", abProp, p)
	}
	if _, err = c.DropColumn(ctx, "db", "weird", "renamed"); err != nil {
		t.Fatal(err)
	}
	tbl, err = c.AddColumn(ctx, "db", "weird", Column{Name: "a b", Type: Type{Kind: KindInt32}, Nullable: true}, ColumnPosition{First: true})
	if err != nil {
		t.Fatal(err)
	}
	if tbl.Columns[0].Name != "a b" || tbl.Columns[0].Property == abProp {
		t.Fatalf("re-added column: %+v (old property %q)", tbl.Columns[0], abProp)
	}
}

func TestAlterRules(t *testing.T) {
	ctx := context.Background()
	c := openDB(t, newStore(t), "db")
	def := &TableDef{Name: "t", Columns: []Column{
		{Name: "id", Type: Type{Kind: KindInt32}},
		{Name: "s", Type: Type{Kind: KindVarchar, Length: 10}, Nullable: true},
		{Name: "d", Type: Type{Kind: KindDecimal, Precision: 10, Scale: 2}, Nullable: true},
		{Name: "e", Type: Type{Kind: KindEnum, Values: []string{"a", "b"}}, Nullable: true},
		{Name: "big", Type: Type{Kind: KindInt64}, Nullable: true},
		{Name: "note", Type: Type{Kind: KindVarchar, Length: 10}, Nullable: true},
	}, PrimaryKey: []KeyPart{{Column: "id"}}, Indexes: []Index{{Name: "by_s", Columns: []KeyPart{{Column: "s"}}}}}
	if _, err := c.CreateTable(ctx, "db", def); err != nil {
		t.Fatal(err)
	}
	ok := []struct {
		name string
		col  Column
	}{
		{"s", Column{Name: "s", Type: Type{Kind: KindVarchar, Length: 100}, Nullable: true}},
		{"note", Column{Name: "note", Type: Type{Kind: KindText}, Nullable: true}},
		{"d", Column{Name: "d", Type: Type{Kind: KindDecimal, Precision: 20, Scale: 4}, Nullable: true}},
		{"e", Column{Name: "e", Type: Type{Kind: KindEnum, Values: []string{"a", "b", "c"}}, Nullable: true}},
		{"id", Column{Name: "ident", Type: Type{Kind: KindInt32}}},
	}
	for _, m := range ok {
		if _, err := c.ModifyColumn(ctx, "db", "t", m.name, m.col, nil); err != nil {
			t.Errorf("modify %s to %s: %v", m.name, m.col.Type, err)
		}
	}
	tbl, _ := c.Table(ctx, "db", "t")
	if tbl.PrimaryKey[0].Column != "ident" || tbl.PartitionKey[0] != "ident" || tbl.Indexes[0].Columns[0].Column != "s" {
		t.Fatalf("rename did not follow into keys: %+v %+v", tbl.PrimaryKey, tbl.PartitionKey)
	}
	bad := []struct {
		name string
		col  Column
	}{
		{"note", Column{Name: "note", Type: Type{Kind: KindVarchar, Length: 5}, Nullable: true}}, // text -> varchar
		{"s", Column{Name: "s", Type: Type{Kind: KindText}, Nullable: true}},                     // indexed: text is not keyable
		{"s", Column{Name: "s", Type: Type{Kind: KindVarchar, Length: 5}, Nullable: true}},       // shorter
		{"d", Column{Name: "d", Type: Type{Kind: KindDecimal, Precision: 20, Scale: 2}}},         // scale narrowed
		{"e", Column{Name: "e", Type: Type{Kind: KindEnum, Values: []string{"b", "a", "c"}}}},    // reordered
		{"big", Column{Name: "big", Type: Type{Kind: KindInt32}}},                                // narrowed
		{"ident", Column{Name: "ident", Type: Type{Kind: KindInt64}}},                            // Int32 -> Int64 property
		{"ident", Column{Name: "ident", Type: Type{Kind: KindVarchar, Length: 5}}},
	}
	for _, m := range bad {
		if _, err := c.ModifyColumn(ctx, "db", "t", m.name, m.col, nil); !errors.Is(err, ErrUnsupported) {
			t.Errorf("modify %s to %s: err %v, want ErrUnsupported", m.name, m.col.Type, err)
		}
	}
	if _, err := c.DropColumn(ctx, "db", "t", "ident"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("dropping a key column: %v", err)
	}
	if _, err := c.DropColumn(ctx, "db", "t", "s"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("dropping an indexed column: %v", err)
	}
	// Indexes.
	tbl, err := c.AddIndex(ctx, "db", "t", Index{Name: "g", Columns: []KeyPart{{Column: "d"}}, Global: true, Covering: []string{"e"}})
	if err != nil {
		t.Fatal(err)
	}
	g := tbl.Index("g")
	if g == nil || g.State != IndexBuilding || g.Physical == "" || g.ID != 2 {
		t.Fatalf("global index %+v", g)
	}
	if _, err := c.AddIndex(ctx, "db", "t", Index{Name: "G", Columns: []KeyPart{{Column: "d"}}}); !errors.Is(err, ErrIndexExists) {
		t.Fatalf("duplicate index: %v", err)
	}
	if tbl, err = c.SetIndexState(ctx, "db", "t", "g", IndexReady); err != nil || tbl.Index("g").State != IndexReady {
		t.Fatalf("set state: %v", err)
	}
	if _, err := c.DropIndex(ctx, "db", "t", "g"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := c.Store().TableExists(ctx, g.Physical); ok {
		t.Fatal("dropped global index kept its physical table")
	}
}

func TestAutoIncrement(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	a := open(t, s, Options{AutoIncrementBlock: 10})
	b := open(t, s, Options{AutoIncrementBlock: 7})
	if err := a.CreateDatabase(ctx, "db"); err != nil {
		t.Fatal(err)
	}
	def := simpleDef("t")
	def.AutoIncrement = 5
	tbl, err := a.CreateTable(ctx, "db", def)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[uint64]bool{}
	var wg sync.WaitGroup
	for w := range 4 {
		c := []*Catalog{a, b}[w%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				v, err := c.NextAutoIncrement(ctx, tbl, 1)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if seen[v] || v < 5 {
					t.Errorf("value %d handed out twice or below the start", v)
				}
				seen[v] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := a.ObserveAutoIncrement(ctx, tbl, 1000); err != nil {
		t.Fatal(err)
	}
	// The observing catalog continues above it. (Another catalog first
	// uses up the block it already reserved: values stay unique, but may be
	// below an explicitly inserted one, as documented.)
	v, err := a.NextAutoIncrement(ctx, tbl, 3)
	if err != nil || v <= 1000 {
		t.Fatalf("after observing 1000: %d %v", v, err)
	}
	tr, err := a.TruncateTable(ctx, "db", "t")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := a.NextAutoIncrement(ctx, tr, 1); err != nil || v != 1 {
		t.Fatalf("after truncate: %d %v", v, err)
	}
}

// TestDropLargeDatabase drops a database with more tables than one catalog
// batch can delete.
func TestDropLargeDatabase(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	c := openDB(t, s, "big")
	for i := range 130 {
		if _, err := c.CreateTable(ctx, "big", simpleDef(fmt.Sprintf("t%03d", i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.DropDatabase(ctx, "big"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := c.DatabaseExists(ctx, "big"); ok {
		t.Fatal("database survived")
	}
	names, _ := s.ListTables(ctx)
	if len(names) != 1 {
		t.Fatalf("%d physical tables left", len(names))
	}
	other := open(t, s, Options{})
	if ok, _ := other.DatabaseExists(ctx, "big"); ok {
		t.Fatal("database visible to a new catalog")
	}
}

// TestConcurrentMixedDDL races different kinds of DDL on one table from two
// catalogs (index adds, column modifications, comment changes, renames of
// other tables); every change survives.
func TestConcurrentMixedDDL(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	a, b := open(t, s, Options{}), open(t, s, Options{})
	if err := a.CreateDatabase(ctx, "db"); err != nil {
		t.Fatal(err)
	}
	def := simpleDef("base")
	for i := range 6 {
		def.Columns = append(def.Columns, Column{Name: fmt.Sprintf("v%d", i), Type: Type{Kind: KindVarchar, Length: 10}, Nullable: true})
	}
	if _, err := a.CreateTable(ctx, "db", def); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if _, err := a.CreateTable(ctx, "db", simpleDef(fmt.Sprintf("old%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	run := func(f func() error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := f(); err != nil {
				errs <- err
			}
		}()
	}
	for i := range 6 {
		c := []*Catalog{a, b}[i%2]
		run(func() error {
			_, err := c.AddIndex(ctx, "db", "base", Index{Name: fmt.Sprintf("ix%d", i), Columns: []KeyPart{{Column: fmt.Sprintf("v%d", i)}}, Global: i%3 == 0})
			return err
		})
		run(func() error {
			_, err := c.ModifyColumn(ctx, "db", "base", fmt.Sprintf("v%d", i), Column{Name: fmt.Sprintf("v%d", i), Type: Type{Kind: KindVarchar, Length: 20 + i}, Nullable: true}, nil)
			return err
		})
	}
	for i := range 4 {
		c := []*Catalog{a, b}[i%2]
		run(func() error {
			_, err := c.RenameTable(ctx, "db", fmt.Sprintf("old%d", i), "db", fmt.Sprintf("new%d", i))
			return err
		})
	}
	run(func() error { _, err := b.SetTableComment(ctx, "db", "base", "hello"); return err })
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, c := range []*Catalog{a, b} {
		if err := c.Refresh(ctx); err != nil {
			t.Fatal(err)
		}
		tbl, err := c.Table(ctx, "db", "base")
		if err != nil {
			t.Fatal(err)
		}
		if len(tbl.Indexes) != 6 || tbl.Comment != "hello" {
			t.Fatalf("indexes %d, comment %q", len(tbl.Indexes), tbl.Comment)
		}
		ids := map[uint32]bool{}
		for i := range 6 {
			ix := tbl.Index(fmt.Sprintf("ix%d", i))
			if ix == nil || ids[ix.ID] || (i%3 == 0) != (ix.Physical != "") {
				t.Fatalf("index ix%d: %+v", i, ix)
			}
			ids[ix.ID] = true
			if l := tbl.Columns[tbl.ColumnIndex(fmt.Sprintf("v%d", i))].Type.Length; l != 20+i {
				t.Fatalf("v%d has length %d", i, l)
			}
		}
		for i := range 4 {
			if _, err := c.Table(ctx, "db", fmt.Sprintf("new%d", i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Exactly the physical tables in use exist: catalog, 5 tables, 2 global indexes.
	names, _ := s.ListTables(ctx)
	if len(names) != 1+5+2 {
		t.Fatalf("physical tables: %v", names)
	}
}

// TestWantAutoIncrement: a statement's announced values are reserved with
// one store write when the block runs out, and are the values the
// catalog hands out without the announcement.
func TestWantAutoIncrement(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	c := open(t, s, Options{AutoIncrementBlock: 10})
	if err := c.CreateDatabase(ctx, "db"); err != nil {
		t.Fatal(err)
	}
	tbl, err := c.CreateTable(ctx, "db", simpleDef("t"))
	if err != nil {
		t.Fatal(err)
	}
	want := uint64(1)
	take := func(n int) {
		t.Helper()
		for range n {
			v, err := c.NextAutoIncrement(ctx, tbl, 1)
			if err != nil || v != want {
				t.Fatalf("value %d, %v; want %d", v, err, want)
			}
			want++
		}
	}
	stored := func() uint64 {
		t.Helper()
		v, _, err := c.counter(ctx, tbl)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	take(3) // the block [1, 11)
	c.WantAutoIncrement(tbl, 5)
	if len(c.aiWant) != 0 {
		t.Fatalf("5 values fit the block: %v", c.aiWant)
	}
	c.WantAutoIncrement(tbl, 500) // 7 left: 493 more in one reservation
	take(500)
	if got := stored(); got != 504 {
		t.Fatalf("stored counter %d after 503 values, want 504 (one reservation of 493)", got)
	}
	take(1) // the next block, of the usual size
	if got := stored(); got != 514 {
		t.Fatalf("stored counter %d, want 514", got)
	}
	// Another catalog continues above the reserved values.
	b := open(t, s, Options{AutoIncrementBlock: 10})
	if v, err := b.NextAutoIncrement(ctx, tbl, 1); err != nil || v != 514 {
		t.Fatalf("other catalog: %d %v, want 514", v, err)
	}
}
