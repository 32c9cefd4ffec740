package planner

import (
	"cmp"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/sqlgw/sqlgw/storage"
)

var (
	soundIters = flag.Int("sound.iters", 400, "random predicates per schema in TestSoundness")
	soundSeed  = flag.Uint64("sound.seed", 42, "seed of TestSoundness")
)

// TestSoundness checks plans against a reference: random tables, random
// predicates, and an in-memory store that evaluates key ranges and filters
// exactly as the contract says (storage.Eval). For every plan, reading the
// requests and applying the residual conjuncts must give exactly the rows
// where SQL's three-valued WHERE is TRUE; rows from several requests must
// arrive in strictly increasing key order (no overlap); and with a LIMIT the
// rows must be the first ones of that order.
func TestSoundness(t *testing.T) {
	schemas := []string{
		"table t1 (k int, x int, s string, f float) primary key (k)",
		"table t2 (p string, r int, q int, x int, s string) primary key (p, r desc, q)",
		"table t3 (a int, b int, c int, x int) primary key (a, b, c) partition key (a, b)",
		"table t4 (a int, b string, x int, s string) primary key (a, b) layout",
		"table t5 (x int, s string)",
		// Secondary indexes (index.go): global, unique, covering, local.
		"table t6 (k int, x int, s string, f float) primary key (k) layout; index gx (x, s); index us (s) unique; index cf (f desc) cover (x)",
		"table t7 (p string, r int, x int, s string) primary key (p, r) layout; index lx (x) local; index ls (s, x desc) local cover (r); index ux (p, x) unique local",
	}
	iters := *soundIters
	if testing.Short() {
		iters /= 4
	}
	for si, schema := range schemas {
		parts := strings.Split(schema, ";")
		tb, err := parseTable(parts[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, ix := range parts[1:] {
			if err := parseIndex(tb, strings.TrimSpace(ix)); err != nil {
				t.Fatal(err)
			}
		}
		rng := rand.New(rand.NewPCG(uint64(si), *soundSeed))
		db := newMemDB(t, tb, rng, 150)
		indexPlans := 0
		defer func() {
			t.Logf("%s: %d index plans", tb.name, indexPlans)
			if len(tb.indexes) > 0 && indexPlans == 0 && !t.Failed() {
				t.Errorf("%s: no index plan exercised", tb.name)
			}
		}()
		for i := 0; i < iters; i++ {
			g := &predGen{tb: tb, rng: rng, opaque: map[*Opaque]func(row []Datum) Datum{}}
			q := &Query{}
			for n := rng.IntN(4); n >= 0; n-- {
				q.Where = append(q.Where, g.expr(3))
			}
			if rng.IntN(3) == 0 {
				q.Limit = int64(1 + rng.IntN(20))
			}
			q.NoNot = rng.IntN(4) == 0
			if rng.IntN(3) == 0 {
				// ORDER BY a prefix of the key in the key's directions,
				// sometimes with any column before or after it.
				keys := append(slices.Clone(tb.part), tb.row...)
				any := func() OrderColumn { return OrderColumn{Col: rng.IntN(len(tb.cols)), Desc: rng.IntN(2) == 0} }
				if rng.IntN(4) == 0 {
					q.OrderBy = append(q.OrderBy, any())
				}
				if len(keys) > 0 {
					for _, k := range keys[:1+rng.IntN(len(keys))] {
						q.OrderBy = append(q.OrderBy, OrderColumn(k))
					}
				}
				if rng.IntN(3) == 0 {
					q.OrderBy = append(q.OrderBy, any())
				}
				if rng.IntN(2) == 0 {
					// The reverse order: read backwards where the store can.
					for i := range q.OrderBy {
						q.OrderBy[i].Desc = !q.OrderBy[i].Desc
					}
				}
			}
			q.Reverse = rng.IntN(2) == 0
			p, err := Build(tb, q)
			if err != nil {
				t.Fatalf("%s: %v", schema, err)
			}
			if p.Index != nil {
				indexPlans++
			}
			if err := checkPlan(tb, q, p); err != nil {
				t.Fatalf("%s\nWHERE %s\n%v\n%s", schema, g.format(q), err, p)
			}
			got, err := db.run(p, q, g)
			if err != nil {
				t.Fatalf("%s\nWHERE %s\n%v\n%s", schema, g.format(q), err, p)
			}
			want := db.reference(q, g)
			if p.OrderSatisfied {
				// Rows must arrive in ORDER BY order, and be its first rows.
				byOrder := func(a, b int) int { return db.cmpOrder(q.OrderBy, a, b) }
				want = db.inKeyOrder(want)
				slices.SortStableFunc(want, byOrder)
				if q.Limit > 0 && int64(len(want)) > q.Limit {
					want = want[:q.Limit]
				}
				ok := len(got) == len(want) && slices.IsSortedFunc(got, byOrder)
				for i := 0; ok && i < len(got); i++ {
					ok = byOrder(got[i], want[i]) == 0
				}
				if !ok {
					t.Fatalf("%s\nWHERE %s ORDER BY %v LIMIT %d\ngot rows %v\nwant %v\n%s", schema, g.format(q), q.OrderBy, q.Limit, got, want, p)
				}
				continue
			}
			if !resultOK(got, want, q.Limit, p) {
				t.Fatalf("%s\nWHERE %s LIMIT %d\ngot rows %v\nwant %v\n%s", schema, g.format(q), q.Limit, got, want, p)
			}
		}
	}
}

// inKeyOrder sorts row indexes by their entities' key order.
func (db *memDB) inKeyOrder(rows []int) []int {
	pos := map[int]int{}
	for i, me := range db.entities {
		pos[me.row] = i
	}
	out := slices.Clone(rows)
	slices.SortFunc(out, func(a, b int) int { return cmp.Compare(pos[a], pos[b]) })
	return out
}

// cmpOrder compares two rows by ORDER BY: NULL first ascending, last
// descending, as MySQL.
func (db *memDB) cmpOrder(order []OrderColumn, a, b int) int {
	for _, o := range order {
		x, y := db.rows[a][o.Col], db.rows[b][o.Col]
		var c int
		switch {
		case x == nil && y == nil:
		case x == nil:
			c = -1
		case y == nil:
			c = 1
		default:
			c = compareDatums(db.tb.cols[o.Col].Kind, x, y)
		}
		if o.Desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// resultOK compares row indexes read through the plan with the reference.
func resultOK(got, want []int, limit int64, p *Plan) bool {
	if limit == 0 || int64(len(want)) <= limit {
		return slices.Equal(sortedCopy(got), want)
	}
	if int64(len(got)) != limit {
		return false
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			return false
		}
	}
	return true
}

func sortedCopy(x []int) []int {
	y := slices.Clone(x)
	slices.Sort(y)
	return y
}

type memEntity struct {
	e     *storage.Entity
	row   int
	index string // the index whose entity this is ("" for a row)
}

type memDB struct {
	tb       *fakeTable
	rows     [][]Datum
	entities []memEntity // in (PartitionKey, RowKey) order
	// indexes holds each global index's entities, in key order.
	indexes map[string][]memEntity
}

func newMemDB(t *testing.T, tb *fakeTable, rng *rand.Rand, n int) *memDB {
	db := &memDB{tb: tb, indexes: map[string][]memEntity{}}
	seen := map[string]bool{}
	keyless := len(tb.part) == 0
	for attempt := 0; len(db.rows) < n && attempt < 20*n; attempt++ {
		row := make([]Datum, len(tb.cols))
		isKey := map[int]bool{}
		for _, k := range append(slices.Clone(tb.part), tb.row...) {
			isKey[k.Col] = true
		}
		for i, c := range tb.cols {
			if !isKey[i] && rng.IntN(5) == 0 {
				continue // NULL
			}
			row[i] = randValue(rng, c.Kind)
		}
		var pk, rk string
		var err error
		if keyless {
			rk = fmt.Sprintf("g%04d", len(db.rows))
		} else {
			pk, err = tb.EncodeKey(PartitionKey, pick(row, tb.part))
			if err != nil {
				t.Fatal(err)
			}
			rk, err = tb.EncodeKey(RowKey, pick(row, tb.row))
			if err != nil {
				t.Fatal(err)
			}
		}
		ixEnts, ok := db.claim(t, row, pk, rk, seen)
		if !ok {
			continue
		}
		for _, ie := range ixEnts {
			ie.row = len(db.rows)
			if tb.indexes[ixOrdinal(tb, ie.index)].Local {
				db.entities = append(db.entities, ie)
			} else {
				db.indexes[ie.index] = append(db.indexes[ie.index], ie)
			}
		}
		db.entities = append(db.entities, memEntity{e: &storage.Entity{PartitionKey: pk, RowKey: rk, Properties: rowProperties(t, tb, row)}, row: len(db.rows)})
		db.rows = append(db.rows, row)
	}
	if tb.rowEnd != "" {
		// An index entity sharing a partition: never part of a result.
		for _, me := range slices.Clone(db.entities[:5]) {
			e := &storage.Entity{PartitionKey: me.e.PartitionKey, RowKey: tb.rowEnd + "idx", Properties: storage.Properties{}}
			db.entities = append(db.entities, memEntity{e: e, row: -1})
		}
	}
	byKey := func(a, b memEntity) int {
		return cmp.Or(storage.CompareKeys(a.e.PartitionKey, b.e.PartitionKey), storage.CompareKeys(a.e.RowKey, b.e.RowKey))
	}
	slices.SortFunc(db.entities, byKey)
	for _, ents := range db.indexes {
		slices.SortFunc(ents, byKey)
	}
	return db
}

func ixOrdinal(tb *fakeTable, name string) int {
	return slices.IndexFunc(tb.indexes, func(ix Index) bool { return ix.Name == name })
}

// claim returns the index entities of a row to be added (indexEntities),
// and marks its key and theirs seen; ok is false (the row is skipped)
// when its key is taken or a unique index already holds its values.
func (db *memDB) claim(t *testing.T, row []Datum, pk, rk string, seen map[string]bool) ([]memEntity, bool) {
	if seen[pk+"\x00"+rk] {
		return nil, false
	}
	ixEnts, ok := db.indexEntities(t, row, pk, rk, seen)
	if !ok {
		return nil, false
	}
	seen[pk+"\x00"+rk] = true
	for _, ie := range ixEnts {
		seen[ie.index+"\x00"+ie.e.PartitionKey+"\x00"+ie.e.RowKey] = true
	}
	return ixEnts, true
}

// rowProperties are a row's stored properties (NULLs left out).
func rowProperties(t *testing.T, tb *fakeTable, row []Datum) storage.Properties {
	t.Helper()
	props := storage.Properties{}
	for i, c := range tb.cols {
		if row[i] == nil || c.Prop == "" {
			continue
		}
		v, err := tb.PropertyValue(i, row[i])
		if err != nil {
			t.Fatal(err)
		}
		props[c.Prop] = v
	}
	return props
}

// indexEntities builds a row's index entities as the catalog lays them
// out (catalog/index.go); ok is false if a unique index already holds the
// row's values.
func (db *memDB) indexEntities(t *testing.T, row []Datum, pk, rk string, seen map[string]bool) ([]memEntity, bool) {
	tb := db.tb
	var out []memEntity
	for n, ix := range tb.indexes {
		vals := make([]Datum, len(ix.Columns))
		hasNull := false
		for i, c := range ix.Columns {
			vals[i] = row[c.Col]
			hasNull = hasNull || vals[i] == nil
		}
		e := &storage.Entity{Properties: storage.Properties{}}
		var err error
		if ix.Local {
			e.PartitionKey = pk
			e.RowKey, err = tb.EncodeIndexKey(n, 0, vals)
			e.RowKey = ix.LocalPrefix + e.RowKey
		} else {
			if e.PartitionKey, err = tb.EncodeIndexKey(n, 0, vals[:1]); err == nil {
				e.RowKey, err = tb.EncodeIndexKey(n, 1, vals[1:])
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		if !ix.Unique || hasNull {
			if !ix.Local {
				e.RowKey += pk
			}
			e.RowKey += rk
		} else if seen[ix.Name+"\x00"+e.PartitionKey+"\x00"+e.RowKey] {
			return nil, false
		}
		for _, c := range ix.Carried {
			if row[c] == nil || tb.cols[c].Prop == "" {
				continue
			}
			v, err := tb.PropertyValue(c, row[c])
			if err != nil {
				t.Fatal(err)
			}
			e.Properties[tb.cols[c].Prop] = v
		}
		out = append(out, memEntity{e: e, index: ix.Name})
	}
	return out, true
}

func pick(row []Datum, kcs []KeyColumn) []Datum {
	out := make([]Datum, len(kcs))
	for i, k := range kcs {
		out[i] = row[k.Col]
	}
	return out
}

func randValue(rng *rand.Rand, k Kind) Datum {
	switch k {
	case KindInt:
		return int64(rng.IntN(9) - 4)
	case KindFloat:
		return float64(rng.IntN(9)-4) / 2
	case KindString:
		return []string{"a", "b", "ab", "b!", "c", ""}[rng.IntN(6)]
	}
	panic(k)
}

// run executes the plan against the in-memory store, as sqlgw does.
func (db *memDB) run(p *Plan, q *Query, g *predGen) ([]int, error) {
	type hit struct {
		pk, rk string
		row    int
	}
	var hits []hit
	if ix := p.Index; ix != nil {
		ents := db.indexes[ix.Name]
		if ix.Local {
			ents = db.entities
		}
		for _, k := range ix.Gets {
			for _, me := range ents {
				if me.e.PartitionKey == k.PK && me.e.RowKey == k.RK {
					if me.index != ix.Name {
						return nil, fmt.Errorf("index get %q read a foreign entity", k.RK)
					}
					hits = append(hits, hit{k.PK, k.RK, me.row})
				}
			}
		}
		for _, qq := range ix.Queries {
			before := len(hits)
			for _, me := range ents {
				if !qq.Partition.Contains(me.e.PartitionKey) || !qq.Row.Contains(me.e.RowKey) || !storage.Eval(qq.Filter, me.e) {
					continue
				}
				if me.index != ix.Name {
					return nil, fmt.Errorf("index query %s returned a foreign entity %q", FormatQuery(qq), me.e.RowKey)
				}
				hits = append(hits, hit{me.e.PartitionKey, me.e.RowKey, me.row})
			}
			if qq.Reverse {
				slices.Reverse(hits[before:])
			}
		}
	}
	for _, k := range p.Gets {
		for _, me := range db.entities {
			if me.e.PartitionKey == k.PK && me.e.RowKey == k.RK {
				hits = append(hits, hit{k.PK, k.RK, me.row})
			}
		}
	}
	for _, qq := range p.Queries {
		n := 0
		before := len(hits)
		for _, me := range db.entities {
			if !qq.Partition.Contains(me.e.PartitionKey) || !qq.Row.Contains(me.e.RowKey) || !storage.Eval(qq.Filter, me.e) {
				continue
			}
			if me.row < 0 || me.index != "" {
				return nil, fmt.Errorf("query %s returned a non-row entity %q", FormatQuery(qq), me.e.RowKey)
			}
			hits = append(hits, hit{me.e.PartitionKey, me.e.RowKey, me.row})
			n++
		}
		_ = n
		if qq.Reverse {
			slices.Reverse(hits[before:])
		}
	}
	if p.Ordered && (len(p.Gets)+len(p.Queries) > 0 || p.Index != nil) {
		for i := 1; i < len(hits); i++ {
			c := cmp.Or(storage.CompareKeys(hits[i-1].pk, hits[i].pk), storage.CompareKeys(hits[i-1].rk, hits[i].rk))
			if p.Reverse {
				c = -c
			}
			if c >= 0 {
				return nil, fmt.Errorf("rows out of key order or duplicated at %d", i)
			}
		}
	}
	var out []int
	for _, h := range hits {
		keep := true
		for _, r := range p.Residual {
			if g.eval(q.Where[r], db.rows[h.row]) != true {
				keep = false
			}
		}
		if keep {
			out = append(out, h.row)
			if p.Limit > 0 && int64(len(out)) == p.Limit {
				break
			}
		}
	}
	if q.Limit > 0 && int64(len(out)) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

// reference returns the rows where every conjunct is TRUE, ascending.
func (db *memDB) reference(q *Query, g *predGen) []int {
	var out []int
	for i, row := range db.rows {
		keep := true
		for _, w := range q.Where {
			if g.eval(w, row) != true {
				keep = false
			}
		}
		if keep {
			out = append(out, i)
		}
	}
	return out
}

// predGen generates random predicates and evaluates them with SQL's
// three-valued logic (nil is NULL/unknown).
type predGen struct {
	tb     *fakeTable
	rng    *rand.Rand
	opaque map[*Opaque]func(row []Datum) Datum
}

func (g *predGen) literal(k Kind) Datum {
	r := g.rng.IntN(20)
	switch {
	case r == 0:
		return nil
	case r == 1 && k == KindInt:
		return decimal.NewFromFloat(float64(g.rng.IntN(9)-4) + 0.5)
	case r == 2 && k == KindInt:
		return float64(g.rng.IntN(9) - 4)
	case r == 3 && k == KindInt:
		return []string{"1", "-2.5", "x1"}[g.rng.IntN(3)] // compared as doubles
	case r == 4 && k == KindFloat:
		return int64(g.rng.IntN(5) - 2)
	case r == 5 && k == KindFloat:
		return decimal.NewFromFloat(float64(g.rng.IntN(9)-4) / 2)
	case r == 6 && k == KindString:
		return "a b" // the fake cannot encode a space in a key
	}
	return randValue(g.rng, k)
}

func (g *predGen) expr(depth int) Expr {
	col := g.rng.IntN(len(g.tb.cols))
	k := g.tb.cols[col].Kind
	r := g.rng.IntN(10)
	if depth == 0 && r >= 6 {
		r = g.rng.IntN(6)
	}
	switch r {
	case 0, 1, 2:
		return &Cmp{Col: col, Op: CmpOp(1 + g.rng.IntN(7)), Value: g.literal(k)}
	case 3:
		in := &In{Col: col, Not: g.rng.IntN(3) == 0}
		for n := 1 + g.rng.IntN(4); n > 0; n-- {
			in.Values = append(in.Values, g.literal(k))
		}
		return in
	case 4:
		if k == KindString && g.rng.IntN(2) == 0 {
			return &Prefix{Col: col, Prefix: []string{"", "a", "b", "b!", "ab", "c"}[g.rng.IntN(6)]}
		}
		return &IsNull{Col: col, Not: g.rng.IntN(2) == 0}
	case 5:
		if g.rng.IntN(3) == 0 {
			return &Const{Value: []Datum{true, false, nil}[g.rng.IntN(3)]}
		}
		// An opaque predicate: "col is odd" / "col has length > 1".
		o := &Opaque{Text: fmt.Sprintf("opaque(%s)", g.tb.cols[col].Name), Cols: []int{col}}
		g.opaque[o] = func(row []Datum) Datum {
			switch v := row[col].(type) {
			case int64:
				return v%2 != 0
			case string:
				return len(v) > 1
			case float64:
				return v > 0
			}
			return nil
		}
		return o
	case 6, 7:
		n := 2 + g.rng.IntN(2)
		var xs []Expr
		for ; n > 0; n-- {
			xs = append(xs, g.expr(depth-1))
		}
		if r == 6 {
			return And(xs)
		}
		return Or(xs)
	case 8:
		return &Not{X: g.expr(depth - 1)}
	default:
		// Several equalities on the key columns, possibly in an OR.
		var br Or
		for n := 1 + g.rng.IntN(3); n > 0; n-- {
			var a And
			for _, kc := range append(slices.Clone(g.tb.part), g.tb.row...) {
				if g.rng.IntN(5) == 0 {
					break
				}
				v := randValue(g.rng, g.tb.cols[kc.Col].Kind)
				if _, ok := v.(string); ok && g.rng.IntN(10) == 0 {
					v = "a b"
				}
				a = append(a, &Cmp{Col: kc.Col, Op: Eq, Value: v})
			}
			if len(a) == 0 {
				a = append(a, g.expr(0))
			}
			br = append(br, a)
		}
		return br
	}
}

func (g *predGen) format(q *Query) string {
	var s []string
	for _, w := range q.Where {
		s = append(s, FormatExpr(w, func(i int) string { return g.tb.cols[i].Name }))
	}
	return strings.Join(s, " AND ")
}

// eval returns true, false or nil (unknown).
func (g *predGen) eval(x Expr, row []Datum) Datum {
	switch x := x.(type) {
	case *Cmp:
		v := row[x.Col]
		if x.Op == NullSafeEq {
			if v == nil || x.Value == nil {
				return v == nil && x.Value == nil
			}
			c, ok := sqlCompare(v, x.Value)
			if !ok {
				return nil
			}
			return c == 0
		}
		if v == nil || x.Value == nil {
			return nil
		}
		c, ok := sqlCompare(v, x.Value)
		if !ok {
			return nil
		}
		switch x.Op {
		case Eq:
			return c == 0
		case Ne:
			return c != 0
		case Lt:
			return c < 0
		case Le:
			return c <= 0
		case Gt:
			return c > 0
		case Ge:
			return c >= 0
		}
	case *In:
		v := row[x.Col]
		if v == nil {
			return nil
		}
		var res Datum = false
		for _, lit := range x.Values {
			if lit == nil {
				res = nil
				continue
			}
			if c, ok := sqlCompare(v, lit); ok && c == 0 {
				res = true
				break
			}
		}
		if x.Not {
			return not3(res)
		}
		return res
	case *IsNull:
		return (row[x.Col] == nil) != x.Not
	case *Prefix:
		v, ok := row[x.Col].(string)
		if !ok {
			return nil
		}
		return strings.HasPrefix(v, x.Prefix)
	case And:
		var res Datum = true
		for _, y := range x {
			switch g.eval(y, row) {
			case false:
				return false
			case nil:
				res = nil
			}
		}
		return res
	case Or:
		var res Datum = false
		for _, y := range x {
			switch g.eval(y, row) {
			case true:
				return true
			case nil:
				res = nil
			}
		}
		return res
	case *Not:
		return not3(g.eval(x.X, row))
	case *Const:
		return x.Value
	case *Opaque:
		return g.opaque[x](row)
	}
	panic(fmt.Sprintf("eval %T", x))
}

func not3(v Datum) Datum {
	if v == nil {
		return nil
	}
	return !v.(bool)
}

// sqlCompare compares a column value with a literal as MySQL does for the
// kinds the generator produces; ok is false for pairs it does not model
// (which the planner must leave residual; the reference then treats them as
// unknown, and so does the residual evaluation).
func sqlCompare(v, lit Datum) (int, bool) {
	num := func(d Datum) (decimal.Decimal, bool) {
		switch x := d.(type) {
		case int64:
			return decimal.NewFromInt(x), true
		case float64:
			return decimal.NewFromFloat(x), true
		case decimal.Decimal:
			return x, true
		}
		return decimal.Decimal{}, false
	}
	if a, ok := num(v); ok {
		if s, isStr := lit.(string); isStr {
			// A number and a string compare as doubles; the generator
			// only makes strings that are plain numbers or not numbers.
			f, ok := plainNumber(s)
			if !ok {
				return 0, false
			}
			lit = f
		}
		b, ok := num(lit)
		if !ok {
			return 0, false
		}
		return a.Cmp(b), true
	}
	if a, ok := v.(string); ok {
		b, ok := lit.(string)
		if !ok {
			return 0, false
		}
		return strings.Compare(a, b), true
	}
	return 0, false
}
