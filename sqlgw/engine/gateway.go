package engine

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/catalog/ixmaint"
	"github.com/sqlgw/sqlgw/catalog/keys"
	txnrec "github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/planner"
	"github.com/sqlgw/sqlgw/sqlgw/engine/ddldecl"
	"github.com/sqlgw/sqlgw/sqlgw/engine/statistics"
	"github.com/sqlgw/sqlgw/sqlgw/engine/typedstore"
	"github.com/sqlgw/sqlgw/sqlgw/engine/views"
	"github.com/sqlgw/sqlgw/sqlgw/metrics"
	"github.com/sqlgw/sqlgw/storage"
)

// gateway is the state shared by every session of one server: the store,
// the catalog, and caches derived from catalog records.
type Gateway struct {
	store storage.Store // txs, in front of the recorder in front of the backend
	// txs resolves the locks of multi-partition transactions for every
	// read and commits them (txnatomic.go).
	txs     *txnrec.Store
	Catalog *catalog.Catalog

	// commits tracks the commits in flight (commitgate.go); alone, if
	// set, reports that no other gateway uses the store (engine.New,
	// storage.Claimer): CREATE INDEX then waits for commits, not for
	// other gateways' catalog refresh (buildIndex).
	commits commitGate
	alone   func() bool

	mu      sync.Mutex
	schemas map[schemaKey]*tableInfo
	rows    map[string]*rowEstimate      // by physical table
	stats   map[string]*statistics.Table // by physical table (stats.go)
	Parts   ddldecl.Decls
	Views   *views.Store
	// sessions by connection ID, for the handler's error translation.
	// A sync.Map: every command looks its session up (the plan cache, the
	// handler's autocommit check), from every connection at once; its
	// reads take no lock (issue 13, seventh round).
	sessions sync.Map // uint32 → *Session
	// unsorted: the backend returns query results in any order (Cosmos
	// DB Table API), so no plan may claim key order.
	unsorted bool
	// reverse: the backend reads key ranges backwards
	// (storage.Capabilities.Reverse; Pebble, not Azure), so the planner
	// may read ORDER BY ... DESC backwards (planner.Query.Reverse).
	reverse bool
	// serial: the backend serves requests in this process
	// (storage.Capabilities.InProcess): a statement's independent reads
	// run one after another instead of in parallel (Gateway.each).
	serial bool
	// ignoreIndexes: see Engine.IgnoreSecondaryIndexes.
	ignoreIndexes bool

	// Secondary indexes (secondary.go).
	maintOnce  sync.Once
	maintainer *ixmaint.Maintainer
	Log        *slog.Logger

	// metrics are exported by Server.MetricsHandler (metrics.go).
	Metrics *metrics.Metrics

	// attach configures attached tables (attached.go); attachSynced is
	// when the store's table list was last looked at (Unix ns).
	attach       AttachConfig
	attachSynced atomic.Int64

	// accounts: the server's shared accounts (accounts.go); nil in an
	// Engine without a server.
	Accounts Accounts
}

// Accounts is the server's account store as the engine sees it: the
// privileges that decide which tables and views an account sees
// (accounts_visible.go) and the client host of a connection. The server
// (sqlgw/accounts/accounts.go) implements it.
type Accounts interface {
	// Privileges is go-mysql-server's user and grant database.
	Privileges() *mysql_db.MySQLDb
	// HostOf is the client host of connection id ("localhost" if unknown).
	HostOf(id uint32) string
}

type schemaKey struct {
	id      uint64
	version uint64
	phys    string
}

// rowEstimate is a cheap row-count estimate for the coster: exact after
// a full scan of the table by this gateway, then adjusted by the writes
// this gateway commits. Other gateways' writes make it drift; it is only
// an estimate (RowCount reports exact=false).
type rowEstimate struct {
	n     int64
	known bool
}

// defaultRowEstimate is what the coster sees for a table this gateway has
// not scanned yet.
const defaultRowEstimate = 1000

func newGateway(store storage.Store, cat *catalog.Catalog) *Gateway {
	txs := wrapTxn(store, cat)
	store = txs
	g := &Gateway{
		txs:      txs,
		unsorted: store.Capabilities().Unsorted,
		reverse:  store.Capabilities().Reverse && !store.Capabilities().Unsorted,
		serial:   store.Capabilities().InProcess,
		store:    newGroupStore(typedstore.New(store)), // tablegroup.go, sqlgw/engine/typedstore
		Catalog:  cat,
		schemas:  map[schemaKey]*tableInfo{},
		rows:     map[string]*rowEstimate{},
		stats:    map[string]*statistics.Table{},
	}
	g.Views = views.New(g.store, strings.TrimSuffix(cat.CatalogTable(), "catalog")+"views", MetaCtx)
	return g
}

// metaCtx returns the context for catalog calls: cancellation of the
// statement, but no request counters, so a catalog cache refresh is not
// billed to the session's Sqlgw_store_requests.
func MetaCtx(ctx context.Context) context.Context { return WithoutCounters(ctx) }

func (g *Gateway) rowCount(phys string) (int64, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if e, ok := g.rows[phys]; ok && e.known {
		return e.n, true
	}
	return defaultRowEstimate, false
}

func (g *Gateway) setRowCount(phys string, n int64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.rows[phys] = &rowEstimate{n: n, known: true}
}

func (g *Gateway) addRowCount(phys string, delta int64) {
	g.noteChanges(phys, delta) // stats.go
	g.mu.Lock()
	defer g.mu.Unlock()
	if e, ok := g.rows[phys]; ok && e.known {
		e.n += delta
		if e.n < 0 {
			e.n = 0
		}
	}
}

// tableInfo is everything derived from one catalog record: the engine
// schema, per-column catalog types, and the planner's view.
type tableInfo struct {
	meta   *catalog.Table
	schema sql.PrimaryKeySchema
	// pkOrder lists the primary-key column ordinals in storage order
	// (PartitionKey columns, then RowKey columns): the order rows come back
	// in, and the expression order of the PRIMARY index.
	storageOrder []int
	// ordered reports that rows come back in ascending storage order of
	// the key columns: no DESC key column.
	ordered bool
	pt      *plannerTable
	names   []string
}

// info returns the derived data of a catalog record, cached by table ID
// and version.
func (g *Gateway) info(ctx *sql.Context, t *catalog.Table) (*tableInfo, error) {
	k := schemaKey{t.ID, t.Version, t.Physical}
	g.mu.Lock()
	ti, ok := g.schemas[k]
	g.mu.Unlock()
	if ok {
		return ti, nil
	}
	ti, err := buildTableInfo(ctx, t)
	if err != nil {
		return nil, err
	}
	g.mu.Lock()
	g.schemas[k] = ti
	g.mu.Unlock()
	return ti, nil
}

func buildTableInfo(ctx *sql.Context, t *catalog.Table) (*tableInfo, error) {
	ti := &tableInfo{meta: t, ordered: true}
	pkSet := map[int]bool{}
	var pkOrdinals []int
	for _, kp := range t.PrimaryKey {
		i := t.ColumnIndex(kp.Column)
		if i < 0 {
			return nil, fmt.Errorf("sqlgw: table %s: primary key column %q is not a column", t.Name, kp.Column)
		}
		pkSet[i] = true
		pkOrdinals = append(pkOrdinals, i)
	}
	schema := make(sql.Schema, len(t.Columns))
	for i := range t.Columns {
		c := &t.Columns[i]
		typ, err := gmsType(c.Type)
		if err != nil {
			return nil, fmt.Errorf("sqlgw: table %s column %s: %w", t.Name, c.Name, err)
		}
		col := &sql.Column{
			Name:           c.Name,
			Type:           typ,
			Nullable:       c.Nullable && !pkSet[i],
			Source:         t.Name,
			DatabaseSource: t.Database,
			PrimaryKey:     pkSet[i],
			AutoIncrement:  c.AutoIncrement,
			Comment:        c.Comment,
		}
		if c.AutoIncrement {
			col.Extra = "auto_increment"
		}
		if c.HasDefault {
			def, err := parseDefault(ctx, c.Default, typ, col.Nullable)
			if err != nil {
				return nil, fmt.Errorf("sqlgw: table %s column %s: default %q: %w", t.Name, c.Name, c.Default, err)
			}
			col.Default = def
		}
		if err := engineColumnFeatures(ctx, col, c); err != nil {
			return nil, fmt.Errorf("sqlgw: table %s column %s: %w", t.Name, c.Name, err)
		}
		schema[i] = col
		ti.names = append(ti.names, c.Name)
	}
	ti.schema = sql.NewPrimaryKeySchema(schema, pkOrdinals...)
	for _, k := range t.PartitionColumns() {
		ti.storageOrder = append(ti.storageOrder, k.Index)
		if k.Desc {
			ti.ordered = false
		}
	}
	for _, k := range t.RowColumns() {
		ti.storageOrder = append(ti.storageOrder, k.Index)
		if k.Desc {
			ti.ordered = false
		}
	}
	ti.pt = newPlannerTable(t)
	return ti, nil
}

// parseDefault rebuilds a column default from the SQL text the catalog keeps
// (the engine's own rendering of the expression, written at CREATE time).
func parseDefault(ctx *sql.Context, text string, typ sql.Type, nullable bool) (*sql.ColumnDefaultValue, error) {
	return columnExpr(ctx, text, typ, nullable), nil // generated_check_onupdate.go
}

// defaultText renders a column default for the catalog.
func defaultText(d *sql.ColumnDefaultValue) string {
	s := d.String()
	if d.IsParenthesized() && !strings.HasPrefix(s, "(") {
		s = "(" + s + ")"
	}
	return s
}

// plannerTable adapts a catalog record to the planner's narrow Table view.
type plannerTable struct {
	t    *catalog.Table
	cols []planner.Column
	part []planner.KeyColumn
	row  []planner.KeyColumn
	// ixKeys are the ready indexes' key columns, found once (t is never
	// changed: the catalog publishes a new Table): EncodeIndexKey.
	ixKeys atomic.Pointer[indexKeyCols]
}

var _ planner.Table = (*plannerTable)(nil)

func newPlannerTable(t *catalog.Table) *plannerTable {
	p := &plannerTable{t: t}
	for i := range t.Columns {
		c := &t.Columns[i]
		pc := planner.Column{
			Name:     c.Name,
			Kind:     plannerKind(c.Type),
			Collated: c.Type.Kind.IsText() && !c.Type.BinaryCollation(),
			Prop:     c.Property,
		}
		if pc.Collated && plannerKind(c.Type) == planner.KindString {
			pc.Collation = plannerCollation(c.Type) // collations.go
		}
		switch {
		case c.Pushdown(storage.OpEq) && c.Pushdown(storage.OpLt) && c.Pushdown(storage.OpGe):
			pc.Pushdown = planner.PushOrdered
		case c.Pushdown(storage.OpEq) && c.Pushdown(storage.OpNe):
			pc.Pushdown = planner.PushEquality
		default:
			pc.Pushdown = planner.PushNone
		}
		if c.Virtual {
			pc.Pushdown = planner.PushNone // its stored value is not trusted (generated_check_onupdate.go)
		}
		if t.IsAttached() {
			attachedPlannerColumn(c, &pc) // attached.go
		}
		p.cols = append(p.cols, pc)
	}
	for _, k := range t.PartitionColumns() {
		p.part = append(p.part, planner.KeyColumn{Col: k.Index, Desc: k.Desc})
	}
	for _, k := range t.RowColumns() {
		p.row = append(p.row, planner.KeyColumn{Col: k.Index, Desc: k.Desc})
	}
	return p
}

func plannerKind(t catalog.Type) planner.Kind {
	switch t.Kind {
	case catalog.KindInt8, catalog.KindInt16, catalog.KindInt24, catalog.KindInt32, catalog.KindInt64:
		if t.Unsigned {
			return planner.KindUint
		}
		return planner.KindInt
	case catalog.KindYear:
		return planner.KindInt
	case catalog.KindFloat, catalog.KindDouble:
		return planner.KindFloat
	case catalog.KindDecimal:
		return planner.KindDecimal
	case catalog.KindChar, catalog.KindVarchar, catalog.KindTinyText, catalog.KindText, catalog.KindMediumText, catalog.KindLongText:
		return planner.KindString
	case catalog.KindBinary, catalog.KindVarbinary, catalog.KindTinyBlob, catalog.KindBlob, catalog.KindMediumBlob, catalog.KindLongBlob:
		return planner.KindBytes
	case catalog.KindDate:
		return planner.KindDate
	case catalog.KindDatetime, catalog.KindTimestamp:
		return planner.KindTime
	case catalog.KindTime:
		return planner.KindDuration
	case catalog.KindEnum:
		return planner.KindEnum
	case catalog.KindSet:
		return planner.KindSet
	case catalog.KindBit:
		return planner.KindBit
	case catalog.KindJSON:
		return planner.KindJSON
	}
	return planner.KindOther
}

func (p *plannerTable) PhysicalName() string                     { return p.t.Physical }
func (p *plannerTable) Columns() []planner.Column                { return p.cols }
func (p *plannerTable) PartitionKeyColumns() []planner.KeyColumn { return p.part }
func (p *plannerTable) RowKeyColumns() []planner.KeyColumn       { return p.row }

func (p *plannerTable) EncodeKey(part planner.KeyPart, vals []planner.Datum) (string, error) {
	if part == planner.PartitionKey {
		return p.t.PartitionPrefix(vals)
	}
	return p.t.RowPrefix(vals)
}

func (p *plannerTable) PrefixEnd(prefix string) string {
	if p.t.IsAttached() {
		return attachedPrefixEnd(prefix)
	}
	r := catalog.PrefixRange(prefix)
	if r == nil || r.High == nil {
		return ""
	}
	return r.High.Key
}

// RowKeyEnd implements planner.Table: local index entities sort from
// keys.LocalIndexPrefix on, after every row.
// An attached table has none: "".
func (p *plannerTable) RowKeyEnd() string {
	if p.t.IsAttached() {
		return ""
	}
	return keys.LocalIndexPrefix
}

// SelectAlways implements planner.Table.
func (p *plannerTable) SelectAlways() []string { return p.t.SelectAlways() }

func (p *plannerTable) PropertyValue(col int, d planner.Datum) (storage.Value, error) {
	return p.t.Columns[col].Literal(d)
}
