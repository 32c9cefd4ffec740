package planner

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dolthub/vitess/go/vt/sqlparser"
	"github.com/shopspring/decimal"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden files in testdata/planner with the actual output")

// TestGolden runs the datadriven-style cases of ../testdata/planner/*.txt.
//
// A file is a sequence of blocks separated by blank lines; each block is
//
//	command [args...]
//	input lines
//	----
//	expected output
//
// Commands:
//
//	table NAME (COL TYPE [FLAGS...], ...) [primary key (COL [desc], ...)] [partition key (COL, ...)]
//	    defines the table the following cases use. TYPE is int, uint,
//	    float, decimal, string, bytes, time, date, duration, json, enum,
//	    set, bit. FLAGS: ci (a non-binary collation), noprop (no property:
//	    kept only in the keys), eqonly (the store compares it for equality
//	    only), split (a value split across properties: no pushdown, no
//	    $select by name). Every column, key columns included, is otherwise
//	    a property of its own name, as the catalog stores them. The
//	    partition key defaults to the first primary-key column; the other
//	    primary-key columns form the RowKey. A trailing "layout" adds the
//	    catalog's row layout: RowKeyEnd '~' and SelectAlways [_n].
//	index NAME (COL [desc], ...) [unique] [local] [cover (COL, ...)]
//	    adds a ready secondary index to the current table (global unless
//	    local; entities in table NAME, or the base table when local, with
//	    LocalPrefix "~" + NAME + "!", carrying _pk, _rk and _p).
//	plan [rows=N] [partitions=N] [nonot=1] [reverse=1]
//	    input: one SELECT on the table (projection, WHERE, ORDER BY,
//	    LIMIT); output: the plan's EXPLAIN, then "sent:" and the requests
//	    the recorder store saw when the plan ran against the table's fixed
//	    data set in an in-memory store (trace_test.go), one line each.
//	    reverse=1 plans for a store that reads backwards (Query.Reverse).
//
// Literal conventions: 5 is an integer, 5.5 a DECIMAL, 5e0 a DOUBLE,
// 'x' a string, X'ff' bytes, ts('2024-01-02 03:04:05') a DATETIME.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("../testdata/planner/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no golden files in ../testdata/planner")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) { runGoldenFile(t, f) })
	}
}

type goldenCase struct {
	line     int
	cmd      string
	input    []string
	expected []string
}

func parseGolden(t *testing.T, path string) (cases []*goldenCase, comments map[int][]string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	comments = map[int][]string{}
	var cur *goldenCase
	inOutput := false
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case cur == nil && (line == "" || strings.HasPrefix(line, "#")):
			comments[len(cases)] = append(comments[len(cases)], line)
		case cur == nil:
			cur = &goldenCase{line: n, cmd: line}
			inOutput = false
		case line == "" && (inOutput || len(cur.input) > 0 || cur.cmd != ""):
			if !inOutput {
				t.Fatalf("%s:%d: case without ---- separator", path, cur.line)
			}
			cases = append(cases, cur)
			cur = nil
		case line == "----" && !inOutput:
			inOutput = true
		case inOutput:
			cur.expected = append(cur.expected, line)
		default:
			cur.input = append(cur.input, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur != nil {
		if !inOutput {
			t.Fatalf("%s:%d: case without ---- separator", path, cur.line)
		}
		cases = append(cases, cur)
	}
	return cases, comments
}

func runGoldenFile(t *testing.T, path string) {
	cases, comments := parseGolden(t, path)
	var table *fakeTable
	store := newTraceStore(t)
	var out strings.Builder
	for i, c := range cases {
		for _, cm := range comments[i] {
			out.WriteString(cm + "\n")
		}
		var actual string
		fields := strings.Fields(c.cmd)
		switch fields[0] {
		case "table":
			tb, err := parseTable(c.cmd)
			if err != nil {
				t.Fatalf("%s:%d: %v", path, c.line, err)
			}
			table = tb
			store.use(tb)
			actual = describeTable(tb)
		case "index":
			if table == nil {
				t.Fatalf("%s:%d: index before table", path, c.line)
			}
			if err := parseIndex(table, c.cmd); err != nil {
				t.Fatalf("%s:%d: %v", path, c.line, err)
			}
			store.use(table)
			actual = "ok"
		case "plan":
			if table == nil {
				t.Fatalf("%s:%d: plan before table", path, c.line)
			}
			actual = runPlan(t, table, store, fields[1:], strings.Join(c.input, "\n"))
		default:
			t.Fatalf("%s:%d: unknown command %q", path, c.line, fields[0])
		}
		out.WriteString(c.cmd + "\n")
		for _, in := range c.input {
			out.WriteString(in + "\n")
		}
		out.WriteString("----\n" + actual + "\n\n")
		if !*rewrite && actual != strings.Join(c.expected, "\n") {
			t.Errorf("%s:%d: %s\n%s\ngot:\n%s\nwant:\n%s", path, c.line, c.cmd, strings.Join(c.input, "\n"),
				actual, strings.Join(c.expected, "\n"))
		}
	}
	for _, cm := range comments[len(cases)] {
		out.WriteString(cm + "\n")
	}
	if *rewrite {
		s := strings.TrimRight(out.String(), "\n") + "\n"
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func describeTable(tb *fakeTable) string {
	name := func(kcs []KeyColumn) string {
		var s []string
		for _, k := range kcs {
			n := tb.cols[k.Col].Name
			if k.Desc {
				n += " desc"
			}
			s = append(s, n)
		}
		return "(" + strings.Join(s, ", ") + ")"
	}
	return fmt.Sprintf("partition key %s, row key %s", name(tb.part), name(tb.row))
}

// parseTable parses the table DSL (see TestGolden).
func parseTable(s string) (*fakeTable, error) {
	s = strings.TrimSpace(strings.TrimPrefix(s, "table"))
	open := strings.IndexByte(s, '(')
	if open < 0 {
		return nil, fmt.Errorf("table: missing column list")
	}
	tb := &fakeTable{name: strings.TrimSpace(s[:open])}
	body, rest, err := paren(s[open:])
	if err != nil {
		return nil, err
	}
	byName := map[string]int{}
	for _, def := range strings.Split(body, ",") {
		f := strings.Fields(def)
		if len(f) < 2 {
			return nil, fmt.Errorf("table: bad column %q", def)
		}
		c := Column{Name: f[0], Prop: f[0], Stored: []string{f[0]}}
		kinds := map[string]Kind{"int": KindInt, "uint": KindUint, "float": KindFloat, "decimal": KindDecimal,
			"string": KindString, "bytes": KindBytes, "time": KindTime, "date": KindDate, "json": KindJSON,
			"enum": KindEnum, "set": KindSet, "bit": KindBit, "duration": KindDuration}
		k, ok := kinds[f[1]]
		if !ok {
			return nil, fmt.Errorf("table: unknown type %q", f[1])
		}
		c.Kind = k
		c.Pushdown = PushOrdered
		switch k {
		case KindDecimal, KindJSON:
			c.Pushdown = PushNone
		case KindEnum, KindSet:
			c.Pushdown = PushEquality
		}
		for _, flag := range f[2:] {
			switch flag {
			case "ci":
				c.Collated = true
				c.Pushdown = PushNone
			case "keyci": // keyed by a case-insensitive collation key (collate.go)
				c.Collated, c.Pushdown, c.Collation = true, PushNone, fakeCollation{}
			case "keypad": // keyed without trailing spaces: exact for equality, inexact for order
				c.Collated, c.Pushdown, c.Collation = true, PushNone, fakeCollation{pad: true}
			case "keylegacy": // keyed with trailing spaces a padded comparison ignores: inexact
				c.Collated, c.Pushdown, c.Collation = true, PushNone, fakeCollation{legacy: true}
			case "noprop":
				c.Prop, c.Stored, c.Pushdown = "", []string{}, PushNone
			case "eqonly":
				c.Pushdown = PushEquality
			case "split":
				c.Stored, c.Pushdown = nil, PushNone
			default:
				return nil, fmt.Errorf("table: unknown flag %q", flag)
			}
		}
		byName[c.Name] = len(tb.cols)
		tb.cols = append(tb.cols, c)
	}
	keyList := func(s string) ([]KeyColumn, string, error) {
		body, rest, err := paren(s)
		if err != nil {
			return nil, "", err
		}
		var kcs []KeyColumn
		for _, item := range strings.Split(body, ",") {
			f := strings.Fields(item)
			i, ok := byName[f[0]]
			if !ok {
				return nil, "", fmt.Errorf("table: unknown key column %q", f[0])
			}
			kcs = append(kcs, KeyColumn{Col: i, Desc: len(f) > 1 && f[1] == "desc"})
		}
		return kcs, rest, nil
	}
	var pk, part []KeyColumn
	partSet := false
	for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimSpace(rest) {
		switch {
		case strings.HasPrefix(rest, "layout"):
			// layout: rows end below '~' (local index entities) and every
			// projection carries the continuation count _n, as in the catalog.
			tb.rowEnd, tb.always = "~", []string{"_n"}
			rest = strings.TrimPrefix(rest, "layout")
			continue
		case strings.HasPrefix(rest, "primary key"):
			pk, rest, err = keyList(strings.TrimSpace(strings.TrimPrefix(rest, "primary key")))
		case strings.HasPrefix(rest, "partition key"):
			part, rest, err = keyList(strings.TrimSpace(strings.TrimPrefix(rest, "partition key")))
			partSet = true
		default:
			return nil, fmt.Errorf("table: unexpected %q", rest)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(pk) > 0 {
		if !partSet {
			part = pk[:1]
		}
		tb.part = part
	next:
		for _, k := range pk {
			for _, p := range part {
				if p.Col == k.Col {
					continue next
				}
			}
			tb.row = append(tb.row, k)
		}
	}
	return tb, nil
}

// parseIndex parses the index DSL (see TestGolden).
func parseIndex(tb *fakeTable, s string) error {
	s = strings.TrimSpace(strings.TrimPrefix(s, "index"))
	open := strings.IndexByte(s, '(')
	if open < 0 {
		return fmt.Errorf("index: missing column list")
	}
	ix := Index{Name: strings.TrimSpace(s[:open]), BaseKeys: []string{"_pk", "_rk", "_p"}}
	byName := func(n string) (int, error) {
		for i, c := range tb.cols {
			if c.Name == n {
				return i, nil
			}
		}
		return 0, fmt.Errorf("index: unknown column %q", n)
	}
	body, rest, err := paren(s[open:])
	if err != nil {
		return err
	}
	for _, item := range strings.Split(body, ",") {
		f := strings.Fields(item)
		i, err := byName(f[0])
		if err != nil {
			return err
		}
		ix.Columns = append(ix.Columns, KeyColumn{Col: i, Desc: len(f) > 1 && f[1] == "desc"})
		ix.Carried = append(ix.Carried, i)
	}
	for rest = strings.TrimSpace(rest); rest != ""; rest = strings.TrimSpace(rest) {
		switch {
		case strings.HasPrefix(rest, "unique"):
			ix.Unique, rest = true, strings.TrimPrefix(rest, "unique")
		case strings.HasPrefix(rest, "local"):
			ix.Local, rest = true, strings.TrimPrefix(rest, "local")
		case strings.HasPrefix(rest, "cover"):
			var body string
			body, rest, err = paren(strings.TrimSpace(strings.TrimPrefix(rest, "cover")))
			if err != nil {
				return err
			}
			for _, n := range strings.Split(body, ",") {
				i, err := byName(strings.TrimSpace(n))
				if err != nil {
					return err
				}
				ix.Carried = append(ix.Carried, i)
			}
		default:
			return fmt.Errorf("index: unexpected %q", rest)
		}
	}
	ix.Table = ix.Name
	if ix.Local {
		ix.Table, ix.LocalPrefix = tb.name, "~"+ix.Name+"!"
	}
	tb.indexes = append(tb.indexes, ix)
	return nil
}

// paren splits "(body) rest".
func paren(s string) (body, rest string, err error) {
	if !strings.HasPrefix(s, "(") {
		return "", "", fmt.Errorf("expected ( in %q", s)
	}
	depth := 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return s[1:i], s[i+1:], nil
			}
		}
	}
	return "", "", fmt.Errorf("unbalanced parentheses in %q", s)
}

func runPlan(t *testing.T, tb *fakeTable, store *traceStore, args []string, sql string) string {
	q := &Query{}
	for _, a := range args {
		k, v, _ := strings.Cut(a, "=")
		n, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("plan: bad argument %q", a)
		}
		if q.Stats == nil {
			q.Stats = &Stats{}
		}
		switch k {
		case "nonot":
			q.NoNot = n != 0
		case "reverse":
			q.Reverse = n != 0
		case "rows":
			q.Stats.Rows = n
		case "partitions":
			q.Stats.Partitions = n
		default:
			t.Fatalf("plan: unknown argument %q", a)
		}
	}
	stmt, err := sqlparser.Parse(sql)
	if err != nil {
		t.Errorf("%s: %v", sql, err)
		return "parse error: " + err.Error()
	}
	sel, ok := stmt.(*sqlparser.Select)
	if !ok {
		return "not a SELECT"
	}
	cv := &converter{tb: tb}
	for _, se := range sel.SelectExprs {
		switch se := se.(type) {
		case *sqlparser.StarExpr:
			q.Columns = nil
			cv.star = true
		case *sqlparser.AliasedExpr:
			q.Columns = append(q.Columns, cv.columns(se.Expr)...)
		}
	}
	if cv.star {
		q.Columns = nil
	}
	if sel.Where != nil {
		q.Where = cv.conjuncts(sel.Where.Expr)
	}
	for _, o := range sel.OrderBy {
		col, ok := o.Expr.(*sqlparser.ColName)
		if !ok {
			return "ORDER BY supports columns only"
		}
		q.OrderBy = append(q.OrderBy, OrderColumn{Col: cv.col(col), Desc: o.Direction == sqlparser.DescScr})
	}
	if sel.Limit != nil && sel.Limit.Rowcount != nil {
		v, ok := sel.Limit.Rowcount.(*sqlparser.SQLVal)
		if !ok {
			return "LIMIT must be a number"
		}
		n, err := strconv.ParseInt(string(v.Val), 10, 64)
		if err != nil {
			return "LIMIT must be a number"
		}
		q.Limit = n
	}
	if cv.err != nil {
		t.Errorf("%s: %v", sql, cv.err)
		return "convert error: " + cv.err.Error()
	}
	p, err := Build(tb, q)
	if err != nil {
		return "error: " + err.Error()
	}
	if err := checkPlan(tb, q, p); err != nil {
		t.Errorf("inconsistent plan for %s: %v\n%s", sql, err, p)
	}
	if first, _, _ := strings.Cut(p.Summary(), ":"); first != p.Path.String()+" "+p.Table {
		t.Errorf("Summary %q does not start with the path and table", p.Summary())
	}
	return p.String() + "\n" + store.trace(t, p)
}

// converter turns vitess expressions into the predicate IR, as sqlgw does
// with go-mysql-server's.
type converter struct {
	tb   *fakeTable
	star bool
	err  error
}

func (cv *converter) col(c *sqlparser.ColName) int {
	for i, col := range cv.tb.cols {
		if strings.EqualFold(col.Name, c.Name.String()) {
			return i
		}
	}
	if cv.err == nil {
		cv.err = fmt.Errorf("unknown column %q", c.Name.String())
	}
	return 0
}

func (cv *converter) columns(e sqlparser.Expr) []int {
	var out []int
	_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
		if c, ok := n.(*sqlparser.ColName); ok {
			out = append(out, cv.col(c))
		}
		return true, nil
	}, e)
	return out
}

func (cv *converter) conjuncts(e sqlparser.Expr) []Expr {
	switch x := e.(type) {
	case *sqlparser.AndExpr:
		return append(cv.conjuncts(x.Left), cv.conjuncts(x.Right)...)
	}
	return []Expr{cv.expr(e)}
}

func (cv *converter) opaque(e sqlparser.Expr) Expr {
	return &Opaque{Text: sqlparser.String(e), Cols: cv.columns(e)}
}

func (cv *converter) expr(e sqlparser.Expr) Expr {
	switch x := e.(type) {
	case *sqlparser.ParenExpr:
		return cv.expr(x.Expr)
	case *sqlparser.AndExpr:
		return And{cv.expr(x.Left), cv.expr(x.Right)}
	case *sqlparser.OrExpr:
		l, r := cv.expr(x.Left), cv.expr(x.Right)
		var out Or
		for _, y := range []Expr{l, r} {
			if o, ok := y.(Or); ok {
				out = append(out, o...)
			} else {
				out = append(out, y)
			}
		}
		return out
	case *sqlparser.NotExpr:
		return &Not{X: cv.expr(x.Expr)}
	case *sqlparser.IsExpr:
		c, ok := x.Expr.(*sqlparser.ColName)
		if !ok {
			return cv.opaque(e)
		}
		switch x.Operator {
		case sqlparser.IsNullStr:
			return &IsNull{Col: cv.col(c)}
		case sqlparser.IsNotNullStr:
			return &IsNull{Col: cv.col(c), Not: true}
		}
		return cv.opaque(e)
	case *sqlparser.RangeCond:
		c, ok := x.Left.(*sqlparser.ColName)
		from, ok1 := cv.literal(x.From)
		to, ok2 := cv.literal(x.To)
		if !ok || !ok1 || !ok2 {
			return cv.opaque(e)
		}
		col := cv.col(c)
		if x.Operator == sqlparser.NotBetweenStr {
			return Or{&Cmp{Col: col, Op: Lt, Value: from}, &Cmp{Col: col, Op: Gt, Value: to}}
		}
		return And{&Cmp{Col: col, Op: Ge, Value: from}, &Cmp{Col: col, Op: Le, Value: to}}
	case *sqlparser.ComparisonExpr:
		ops := map[string]CmpOp{"=": Eq, "!=": Ne, "<>": Ne, "<": Lt, "<=": Le, ">": Gt, ">=": Ge, "<=>": NullSafeEq}
		switch x.Operator {
		case sqlparser.InStr, sqlparser.NotInStr:
			if cols, ok := x.Left.(sqlparser.ValTuple); ok && x.Operator == sqlparser.InStr {
				// (a, b) IN ((1, 2), (3, 4)) is an OR of ANDs of equalities.
				if out, ok := cv.tupleIn(cols, x.Right); ok {
					return out
				}
				return cv.opaque(e)
			}
			c, ok := x.Left.(*sqlparser.ColName)
			tuple, ok2 := x.Right.(sqlparser.ValTuple)
			if !ok || !ok2 {
				return cv.opaque(e)
			}
			in := &In{Col: cv.col(c), Not: x.Operator == sqlparser.NotInStr}
			for _, v := range tuple {
				d, ok := cv.literal(v)
				if !ok {
					return cv.opaque(e)
				}
				in.Values = append(in.Values, d)
			}
			return in
		}
		if x.Operator == sqlparser.LikeStr && x.Escape == nil {
			if p, ok := cv.likePrefix(x); ok {
				return p
			}
		}
		op, ok := ops[x.Operator]
		if !ok {
			return cv.opaque(e)
		}
		if c, ok := x.Left.(*sqlparser.ColName); ok {
			if d, ok := cv.literal(x.Right); ok {
				return &Cmp{Col: cv.col(c), Op: op, Value: d}
			}
		}
		if c, ok := x.Right.(*sqlparser.ColName); ok {
			if d, ok := cv.literal(x.Left); ok {
				return &Cmp{Col: cv.col(c), Op: op.Commute(), Value: d}
			}
		}
		return cv.opaque(e)
	case sqlparser.BoolVal:
		return &Const{Value: bool(x)}
	case *sqlparser.NullVal:
		return &Const{Value: nil}
	}
	if d, ok := cv.literal(e); ok {
		return &Const{Value: d}
	}
	return cv.opaque(e)
}

// likePrefix converts "col LIKE 'abc%'" on a binary-collation or
// collation-keyed column, as sqlgw does: only a trailing %, no other
// wildcard; \ escapes.
func (cv *converter) likePrefix(x *sqlparser.ComparisonExpr) (Expr, bool) {
	c, ok := x.Left.(*sqlparser.ColName)
	if !ok {
		return nil, false
	}
	v, ok := x.Right.(*sqlparser.SQLVal)
	if !ok || v.Type != sqlparser.StrVal {
		return nil, false
	}
	col := cv.col(c)
	if cv.tb.cols[col].Collated && cv.tb.cols[col].Collation == nil {
		return nil, false
	}
	pat := string(v.Val)
	if !strings.HasSuffix(pat, "%") {
		return nil, false
	}
	var prefix []byte
	for i := 0; i < len(pat)-1; i++ {
		switch pat[i] {
		case '%', '_':
			return nil, false
		case '\\':
			i++
			if i >= len(pat)-1 {
				return nil, false
			}
		}
		prefix = append(prefix, pat[i])
	}
	return &Prefix{Col: col, Prefix: string(prefix)}, true
}

func (cv *converter) tupleIn(cols sqlparser.ValTuple, right sqlparser.Expr) (Expr, bool) {
	rows, ok := right.(sqlparser.ValTuple)
	if !ok {
		return nil, false
	}
	var out Or
	for _, r := range rows {
		vals, ok := r.(sqlparser.ValTuple)
		if !ok || len(vals) != len(cols) {
			return nil, false
		}
		var and And
		for i, c := range cols {
			cn, ok := c.(*sqlparser.ColName)
			d, ok2 := cv.literal(vals[i])
			if !ok || !ok2 {
				return nil, false
			}
			and = append(and, &Cmp{Col: cv.col(cn), Op: Eq, Value: d})
		}
		out = append(out, and)
	}
	return out, true
}

func (cv *converter) literal(e sqlparser.Expr) (Datum, bool) {
	switch x := e.(type) {
	case *sqlparser.NullVal:
		return nil, true
	case sqlparser.BoolVal:
		if x {
			return int64(1), true
		}
		return int64(0), true
	case *sqlparser.UnaryExpr:
		if x.Operator != sqlparser.UMinusStr {
			return nil, false
		}
		d, ok := cv.literal(x.Expr)
		if !ok {
			return nil, false
		}
		switch v := d.(type) {
		case int64:
			return -v, true
		case uint64:
			if v == 1<<63 {
				return int64(math.MinInt64), true
			}
		case float64:
			return -v, true
		case decimal.Decimal:
			return v.Neg(), true
		}
		return nil, false
	case *sqlparser.FuncExpr:
		if x.Name.Lowered() != "ts" || len(x.Exprs) != 1 {
			return nil, false
		}
		ae, ok := x.Exprs[0].(*sqlparser.AliasedExpr)
		if !ok {
			return nil, false
		}
		v, ok := ae.Expr.(*sqlparser.SQLVal)
		if !ok {
			return nil, false
		}
		tm, err := time.Parse("2006-01-02 15:04:05", string(v.Val))
		if err != nil {
			cv.err = err
			return nil, false
		}
		return tm, true
	case *sqlparser.SQLVal:
		s := string(x.Val)
		switch x.Type {
		case sqlparser.StrVal:
			return s, true
		case sqlparser.IntVal:
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return n, true
			}
			if n, err := strconv.ParseUint(s, 10, 64); err == nil {
				return n, true
			}
		case sqlparser.FloatVal:
			if strings.ContainsAny(s, "eE") {
				f, err := strconv.ParseFloat(s, 64)
				return f, err == nil
			}
			d, err := decimal.NewFromString(s)
			return d, err == nil
		case sqlparser.HexVal:
			b := make([]byte, len(s)/2)
			if _, err := fmt.Sscanf(s, "%x", &b); err != nil {
				return nil, false
			}
			return b, true
		}
	}
	return nil, false
}
