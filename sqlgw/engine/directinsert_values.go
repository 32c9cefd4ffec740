package engine

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// Bulk INSERT ... VALUES without parsing the rows (issue 13)
//
// sysbench's prepare sends its 100,000 rows as INSERTs of 1,000 tuples
// of literals, `INSERT INTO sbtest1(k, c, pad) VALUES (5014, '...',
// '...'),(...),...`; mysqldump writes the same shape. Parsed by
// go-mysql-server's parser and bound and analyzed as one plan
// (directinsert_bulk.go), a statement of a thousand tuples spent about a
// quarter of its CPU turning 3,000 literals into a parse tree, then into
// expressions, then into values. Here the text is split by a scan
// (scanBulkValues) into its head, everything up to and including the
// word VALUES, and its tuples, each a parenthesized list of literals:
// decimal integers (digits only), single-quoted strings with no
// backslash and no doubled quote in them, and NULL. The literals become
// values exactly as go-mysql-server's binder makes them (planbuilder
// ConvertVal and convertInt: an integer the smallest of int8, uint8,
// int16, uint16, int32, uint32, int64, uint64 that holds it, a string its
// bytes, NULL nil), and only the statement made of the head and the
// first tuple is parsed, bound and analyzed, as directinsert_bulk.go does
// with the whole text. The plan of a VALUES list of literals does not
// depend on the literals but through FirstGeneratedAutoIncRowIdx
// (analyzer wrapRowSource; computed here for all the rows as
// firstGenerated computes it for a cached plan), so that plan with the
// scanned rows as its VALUES is the plan of the whole statement, which
// directInsert executes (directinsert.go) with the rows as the evaluated
// VALUES list.
//
// The plan of the one-tuple statement checks the scan: its VALUES tuple
// must be literals with exactly the values (and Go types) the scan made
// of the first tuple, and its FirstGeneratedAutoIncRowIdx what the rule
// gives for that tuple; otherwise the text goes on as before. Statements
// this path does not take, and go on to directinsert_bulk.go or to
// go-mysql-server: any other literal (negative, hex, float, escaped or
// introduced strings, DEFAULT, expressions), a comment, quote or
// backslash in the head, tuples of different lengths (the general path
// reports the error), anything after the last tuple but a semicolon,
// IGNORE, REPLACE, ON DUPLICATE KEY UPDATE, and tables with triggers,
// foreign keys, CHECK constraints or generated columns.

// bulkValueInserts counts the INSERTs run by bulkValues (for tests:
// BulkValuesInsertCount).
var bulkValueInserts atomic.Int64

// BulkValuesInsertCount returns how many bulk INSERTs the process ran with
// only their first tuple parsed (directinsert_values.go).
func BulkValuesInsertCount() int64 { return bulkValueInserts.Load() }

// bulkValues returns the plan of the large text INSERT query if it is of
// the shape above (ok false if not): the INSERT node, and the write plan
// that carries the rows, and the statement's context.
func (f *FastLane) bulkValues(ctx context.Context, c *mysql.Conn, query string) (sqlCtx *sql.Context, ii *plan.InsertInto, p *cachedPlan, ok bool) {
	head, first, rows, ok := scanBulkValues(query)
	if !ok || len(rows) < 2 {
		return nil, nil, nil, false
	}
	sqlCtx, err := f.SessionManager.NewContextWithQuery(ctx, c, query)
	if err != nil {
		return nil, nil, nil, false
	}
	if !strictMode(sqlCtx) { // lenientwrite.go
		// directInsert leaves non-strict writes to the general path
		// (lenientwrite.go), which must see every row.
		return nil, nil, nil, false
	}
	short := head + " " + first
	stmt, _, rest, err := f.Engine.Parser.Parse(sqlCtx, short, true)
	if err != nil || strings.TrimSpace(rest) != "" {
		return nil, nil, nil, false
	}
	ins, isInsert := stmt.(*sqlparser.Insert)
	if !isInsert {
		return nil, nil, nil, false
	}
	_, auth, nparams, counter, shaped := writeShape(ins)
	if !shaped || nparams != 0 || counter != "Com_insert" || !f.authorized(sqlCtx, &cachedPlan{auth: auth}) {
		return nil, nil, nil, false
	}
	analyzed, qFlags := f.bulkPlan(sqlCtx, ins, short, counter)
	if analyzed == nil {
		return nil, nil, nil, false
	}
	ii, isInsertInto := analyzed.(*plan.InsertInto)
	if !isInsertInto || ii.IsReplace || ii.Ignore || ii.OnDupExprs.HasUpdates() || len(ii.Returning) > 0 || ii.HasAfterTrigger || len(ii.Checks()) > 0 || len(ii.ColumnNames) == 0 {
		return nil, nil, nil, false
	}
	values, isValues := ii.Source.(*plan.Values)
	if pr, isProj := ii.Source.(*plan.Project); isProj {
		values, isValues = pr.Child.(*plan.Values)
	}
	if !isValues || len(values.ExpressionTuples) != 1 || len(values.ExpressionTuples[0]) != len(rows[0]) {
		return nil, nil, nil, false
	}
	for i, e := range values.ExpressionTuples[0] {
		lit, isLit := e.(*expression.Literal)
		if !isLit || lit.Value() != rows[0][i] {
			return nil, nil, nil, false
		}
	}
	t := insertTarget(ii.Destination)
	if t == nil {
		return nil, nil, nil, false
	}
	if fks, err := t.GetDeclaredForeignKeys(sqlCtx); err != nil || len(fks) > 0 {
		return nil, nil, nil, false
	}
	if fks, err := t.GetReferencedForeignKeys(sqlCtx); err != nil || len(fks) > 0 {
		return nil, nil, nil, false
	}
	// FirstGeneratedAutoIncRowIdx of the whole list (firstGenerated's
	// rule over the values): the first row that leaves the
	// AUTO_INCREMENT column to the sequence, 0 if the column is not
	// listed, -1 if the table has none.
	aiCol, hasAI := -1, false
	for _, col := range ii.Destination.Schema(sqlCtx) {
		if col.Generated != nil {
			return nil, nil, nil, false
		}
		if !col.AutoIncrement {
			continue
		}
		hasAI = true
		for i, name := range ii.ColumnNames {
			if strings.EqualFold(name, col.Name) {
				aiCol = i
			}
		}
	}
	generated := func(rows []sql.Row) int {
		switch {
		case !hasAI:
			return -1
		case aiCol < 0:
			return 0
		}
		onZero := !sql.LoadSqlMode(sqlCtx).ModeEnabled(sql.NoAutoValueOnZero)
		for i, r := range rows {
			if v := r[aiCol]; v == nil || onZero && zeroInt(v) {
				return i
			}
		}
		return -1
	}
	if ii.FirstGeneratedAutoIncRowIdx != generated(rows[:1]) {
		return nil, nil, nil, false
	}
	ii = ii.WithAutoIncrementIdx(generated(rows))
	p = &cachedPlan{write: &writePlan{counter: counter, qFlags: *qFlags, rows: rows}}
	return sqlCtx, ii, p, true
}

// zeroInt reports whether v, a value scanBulkValues made of an integer
// or a string, is an integer 0 (the analyzer's isZero: strings are not
// numbers).
func zeroInt(v any) bool {
	switch n := v.(type) {
	case int8:
		return n == 0
	case uint8:
		return n == 0
	}
	return false // a larger type holds no 0 (convertInt)
}

// scanBulkValues splits the INSERT text q into its head (from the start to
// the end of the word VALUES), the text of its first tuple and the values
// of all its tuples (see above); ok is false if q is not of that shape.
func scanBulkValues(q string) (head, first string, rows []sql.Row, ok bool) {
	t := strings.TrimLeft(q, " \t\r\n")
	if len(t) < 7 || !strings.EqualFold(t[:6], "insert") || !isSpace(t[6]) {
		return "", "", nil, false
	}
	ident := func(ch byte) bool {
		return ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '_' || ch == '$' || ch >= 0x80
	}
	// The head: no quotes, comments, backslashes or semicolons; quoted
	// identifiers whole; VALUES as a word of its own.
	v := -1
	for i := 0; i < len(q) && i < 1024 && v < 0; i++ {
		switch ch := q[i]; {
		case ch == '`':
			j := strings.IndexByte(q[i+1:], '`')
			if j < 0 {
				return "", "", nil, false
			}
			i += j + 1
		case ch == '\'' || ch == '"' || ch == '\\' || ch == '#' || ch == ';' || ch == 0:
			return "", "", nil, false
		case ch == '/' && i+1 < len(q) && q[i+1] == '*', ch == '-' && i+1 < len(q) && q[i+1] == '-':
			return "", "", nil, false
		case ch == 'v' || ch == 'V':
			if i+6 <= len(q) && strings.EqualFold(q[i:i+6], "values") && (i == 0 || !ident(q[i-1])) && (i+6 == len(q) || !ident(q[i+6])) {
				v = i + 6
			}
		}
	}
	if v < 0 {
		return "", "", nil, false
	}
	skip := func(i int) int {
		for i < len(q) && isSpace(q[i]) {
			i++
		}
		return i
	}
	// A first pass counts the tuples and their values, so that the rows
	// share one array.
	ncols, ntuples := 0, 0
	var vals []any
	for pass := 0; pass < 2; pass++ {
		i := skip(v)
		for tuple := 0; ; tuple++ {
			if i >= len(q) || q[i] != '(' {
				return "", "", nil, false
			}
			start := i
			i = skip(i + 1)
			col := 0
			for {
				if i >= len(q) {
					return "", "", nil, false
				}
				j := i
				var val any
				switch ch := q[i]; {
				case ch >= '0' && ch <= '9':
					for j < len(q) && q[j] >= '0' && q[j] <= '9' {
						j++
					}
					if pass == 1 {
						var good bool
						if val, good = bulkIntValue(q[i:j]); !good {
							return "", "", nil, false
						}
					}
				case ch == '\'':
					j = i + 1
					for j < len(q) && q[j] != '\'' && q[j] != '\\' {
						j++
					}
					if j >= len(q) || q[j] != '\'' || j+1 < len(q) && q[j+1] == '\'' {
						return "", "", nil, false
					}
					val = q[i+1 : j]
					j++
				case ch == 'n' || ch == 'N':
					if j+4 > len(q) || !strings.EqualFold(q[i:i+4], "null") {
						return "", "", nil, false
					}
					j += 4
				default:
					return "", "", nil, false
				}
				if j < len(q) && (ident(q[j]) || q[j] == '.' || q[j] == '\'') {
					return "", "", nil, false
				}
				if pass == 1 {
					vals = append(vals, val)
				}
				col++
				i = skip(j)
				if i < len(q) && q[i] == ',' {
					i = skip(i + 1)
					continue
				}
				if i < len(q) && q[i] == ')' {
					i++
					break
				}
				return "", "", nil, false
			}
			if tuple == 0 {
				ncols = col
				if pass == 1 {
					first = q[start:i]
				}
			} else if col != ncols {
				return "", "", nil, false
			}
			i = skip(i)
			if i < len(q) && q[i] == ',' {
				i = skip(i + 1)
				continue
			}
			if i < len(q) && q[i] == ';' {
				i = skip(i + 1)
			}
			if i != len(q) {
				return "", "", nil, false
			}
			ntuples = tuple + 1
			break
		}
		if pass == 0 {
			vals = make([]any, 0, ncols*ntuples)
		}
	}
	rows = make([]sql.Row, ntuples)
	for r := range rows {
		rows[r] = vals[r*ncols : (r+1)*ncols : (r+1)*ncols]
	}
	return q[:v], first, rows, true
}

// bulkIntValue is go-mysql-server's binding of the decimal integer literal
// digits (planbuilder convertInt): the value in the smallest integer type
// that holds it; ok is false beyond 64 bits (a DECIMAL there).
func bulkIntValue(digits string) (v any, ok bool) {
	u, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return nil, false
	}
	switch {
	case u < 1<<7:
		return int8(u), true
	case u < 1<<8:
		return uint8(u), true
	case u < 1<<15:
		return int16(u), true
	case u < 1<<16:
		return uint16(u), true
	case u < 1<<31:
		return int32(u), true
	case u < 1<<32:
		return uint32(u), true
	case u < 1<<63:
		return int64(u), true
	}
	return u, true
}

// bulkValuesInsert runs the text INSERT query by bulkValues's plan;
// handled is false if bulkValues does not take it.
func (f *FastLane) bulkValuesInsert(ctx context.Context, c *mysql.Conn, s *Session, query string, callback func(*sqltypes.Result) error) (handled bool, err error) {
	sqlCtx, ii, p, ok := f.bulkValues(ctx, c, query)
	if !ok {
		return false, nil
	}
	bulkValueInserts.Add(1)
	s.lastFromCache.Store(false)
	return true, f.runWrite(sqlCtx, c, query, p, ii, callback)
}
