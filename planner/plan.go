package planner

import (
	"fmt"

	"github.com/sqlgw/sqlgw/storage"
)

// AccessPath names how a table is read. The names are docs/architecture.md's and are
// what EXPLAIN prints.
type AccessPath uint8

const (
	// PointGet: the whole primary key bound by equality; one Get.
	PointGet AccessPath = iota + 1
	// MultiGet: IN-lists or ORs of equalities on the whole key; one Get per
	// key, issued in parallel, never an "or" filter.
	MultiGet
	// RowRange: partition key bound, RowKey prefix or range; one query per
	// (partition, RowKey range).
	RowRange
	// PartitionScan: partition key bound (one or several partitions), no
	// RowKey constraint; one query per partition, filter pushed.
	PartitionScan
	// PartitionRange: a range on the partition key; filter pushed.
	PartitionRange
	// IndexLookup: every column of a secondary index bound by equality;
	// the index read (Plan.Index), then MultiGet of base rows (none if
	// covering).
	IndexLookup
	// IndexRange: a range or prefix of a secondary index, then MultiGet of
	// base rows (none if covering).
	IndexRange
	// TableScan: nothing better; all pages, filter pushed.
	TableScan
	// Empty: the predicate is a contradiction (a=1 AND a=2); no request is sent.
	Empty
)

var pathNames = [...]string{"", "PointGet", "MultiGet", "RowRange", "PartitionScan",
	"PartitionRange", "IndexLookup", "IndexRange", "TableScan", "Empty"}

func (p AccessPath) String() string {
	if p > 0 && int(p) < len(pathNames) {
		return pathNames[p]
	}
	return fmt.Sprintf("AccessPath(%d)", uint8(p))
}

// OrderColumn is one column of an ordering.
type OrderColumn struct {
	Col  int
	Desc bool
}

// Query is what the planner is asked: the WHERE clause as top-level
// conjuncts, the columns the caller needs, and optional LIMIT, ORDER BY and
// statistics.
type Query struct {
	// Where holds the top-level conjuncts of the filter; Plan.Residual
	// refers to them by index. Nil: no filter.
	Where []Expr
	// Columns are the ordinals of the columns the caller reads from each row
	// (the engine's projection). Nil: all columns. The planner adds the
	// columns the residual conjuncts read.
	Columns []int
	// Limit is the number of rows the caller will consume after the residual
	// filter (0: no limit). It never changes the result, only how much is
	// fetched: it becomes the store's Top where that is exact.
	Limit int64
	// OrderBy is the order the caller wants; Plan.OrderSatisfied says
	// whether the access path delivers it.
	OrderBy []OrderColumn
	// Stats feeds the cost estimate; nil uses defaults.
	Stats *Stats
	// Cost is the backend's cost model (storage.Capabilities.Cost), which
	// weighs requests, entities and bytes when plans are compared; the
	// zero value is storage.AzureCost.
	Cost storage.CostModel
	// NoNot keeps storage.Not out of filters. The planner uses Not only
	// for its documented meaning on absent properties (true: IS NULL,
	// NOT (x <=> v)); set NoNot for a service that does not honour it (the
	// Cosmos DB Table API's query engine treats a missing property as
	// undefined, which Not does not turn into true): those predicates then
	// stay with the engine.
	NoNot bool
	// NoIndex keeps secondary indexes out of the plan (e.g. while a
	// transaction's buffered writes to the table must be merged in key
	// order).
	NoIndex bool

	// inexact marks the conjuncts whose collation rewrite the keys do not
	// answer exactly (collate.go): they stay residual.
	inexact map[int]bool
}

// Key addresses one entity.
type Key struct {
	PK, RK string
}

// Cost is the estimated work of a plan.
type Cost struct {
	// Requests is the number of store round trips (gets and query pages).
	Requests float64
	// Entities is the number of entities the store reads.
	Entities float64
	// Bytes is the number of bytes the store reads (Entities times the
	// table's average entity size, Stats.EntityBytes).
	Bytes float64
}

// Score weighs a cost in one number with the Table service's weights
// (storage.AzureCost): one request is worth ten entities read.
func (c Cost) Score() float64 { return c.ScoreFor(storage.CostModel{}) }

// ScoreFor weighs a cost with a backend's weights (the zero model is
// storage.AzureCost).
func (c Cost) ScoreFor(m storage.CostModel) float64 {
	if m == (storage.CostModel{}) {
		m = storage.AzureCost
	}
	s := c.Requests
	if m.EntitiesPerRequest > 0 {
		s += c.Entities / m.EntitiesPerRequest
	}
	if m.BytesPerRequest > 0 {
		s += c.Bytes / m.BytesPerRequest
	}
	return s
}

// Plan is the planner's answer: how to read the table, and what the engine
// must still do.
//
// Execution: for PointGet and MultiGet, Get each of Gets with
// storage.GetOptions{Select: Select} (storage.ErrNotFound means no row);
// for Empty, return no row; otherwise run each of Queries (following
// continuations), in order. The concatenated results, in the order of
// Gets/Queries, are in Order (on a backend whose Capabilities().Unsorted is
// false, else the caller sorts; MultiGet results must be emitted in the
// order of Gets, whatever order the parallel Gets complete in). Evaluate the
// Residual conjuncts on each row, and stop once Limit rows have passed
// them. Top in a query is the page cap for the first page; a caller that
// follows continuations passes the remainder (storage.Query.Top).
//
// The planner reasons about rows. Where the catalog stores a row as several
// entities (wide rows: continuation entities after the main one, holding
// none of the filtered properties), a query with a Filter may drop a row's
// continuation entities, or return them without their main entity (a filter
// true on absent properties, such as IS NULL): the executor assembles rows
// from main entities and Gets missing continuations itself. Top counts
// entities, so it is only a lower bound on the rows a page holds.
// The store never reads backwards, so a plan never has a reverse order.
type Plan struct {
	Path  AccessPath
	Table string // physical table name

	// Gets are the entities to read, for PointGet and MultiGet, sorted by
	// key (the logical key on a salted table: salt.go).
	Gets []Key
	// Queries are the queries to run, for every other path except Empty,
	// sorted by key. Each carries Select, Filter and, where exact, Top.
	Queries []*storage.Query
	// Groups, set only for a salted table (salt.go) whose plan reads
	// PartitionKey ranges, splits Queries into consecutive groups of the
	// given sizes: the queries of a group (one per salt bucket) are run
	// together and their entities merged in logical key order (the
	// PartitionKey without its bucket prefix, then the RowKey). Nil: every
	// query is its own group.
	Groups []int
	// Index is set for IndexLookup and IndexRange: the index read. Gets
	// and Queries are then empty (the base keys come from the index hits),
	// Select is the projection of the base Gets, and Filter, Order and
	// Residual are those of the index read.
	Index *IndexAccess

	// Select is the projection sent to the store (also in each query).
	Select []string
	// Filter is the filter pushed with each query (also in each query), nil
	// if none.
	Filter storage.Expr
	// Limit is the caller's limit (0: none). Queries carry it as Top when
	// every entity the store returns is a result row.
	Limit int64

	// Ordered reports that rows arrive in Order.
	Ordered bool
	// Order is the SQL order of the rows as they arrive: the key columns,
	// descending where the key column is Desc.
	Order []OrderColumn
	// OrderSatisfied reports that Query.OrderBy needs no sort.
	OrderSatisfied bool

	// Residual lists the indexes of Query.Where the engine must still
	// evaluate, ascending. The others are answered exactly by the requests.
	Residual []int

	// Cost is the estimated work.
	Cost Cost

	// columns names columns for EXPLAIN.
	columns []Column
	where   []Expr
}

// The weights (storage.AzureCost, storage.PebbleCost)
//
// On the Table service, ten entities read cost as much as one request.
// Two budgets meet there. Latency: a round trip to the Table service costs
// about as much time as receiving a hundred entities of a query page (on
// the embedded store, a point get about as much as decoding a hundred
// scanned entities). Throughput: the Table service's scalability targets
// are in entities read server-side (about 2,000 entities/s per partition,
// 20,000/s per account, each Get one entity), so a scan whose filter keeps
// ten rows spends the whole table's worth of a budget shared by every
// client, and grows with the table. Ten entities per request weighs both:
// a full page of 1,000 entities costs 101 requests' worth, so a 10-value
// IN on an indexed column (10 index queries and the base Gets) beats
// scanning a table of more than a few thousand rows, while a scan of a
// small table still beats hundreds of Gets. Pebble's 2,560 bytes per
// seek give the same ratio for entities of defaultEntityBytes, and count
// larger entities as more.

// defaultEntityBytes is the entity size assumed without statistics.
const defaultEntityBytes = 256
