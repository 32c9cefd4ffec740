package engine

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/sqlgw/sqlgw/sqlgw/engine/compat"
)

// genValuesParser is the engine's parser (sql.BuilderOverrides.Parser)
// with one rewrite, for restoring mariadb-dump output: mariadb-dump writes
// every column of a row, generated ones included, and relies on the
// server ignoring those values, which MariaDB does when the session is not
// in strict mode (warning 1906; its dumps set SQL_MODE without STRICT_*).
// MySQL 8 refuses them in every mode (3105), and so does go-mysql-server.
// sqlgw follows MariaDB here, only outside strict mode (MySQL 8's default
// sql_mode, and sqlgw's, is strict, so ordinary sessions still get 3105):
// an INSERT/REPLACE ... VALUES into a table with generated columns has
// the values given for them replaced by DEFAULT, with warning 1906.
type genValuesParser struct {
	sql.Parser
	gw *Gateway
}

func (g *Gateway) schemaParser() sql.Parser {
	return genValuesParser{Parser: sql.NewMysqlParser(), gw: g}
}

func (p genValuesParser) Parse(ctx *sql.Context, query string, multi bool) (ast.Statement, string, string, error) {
	query, err := p.gw.prepareHints(ctx, query) // index hints (hints.go)
	if err != nil {
		return nil, "", "", err
	}
	var st ast.Statement
	var q, rest string
	st, q, rest, err = p.Parser.Parse(ctx, query, multi)
	compat.FoldStatementNames(st)   // compat/stmt_names.go
	compat.FixViewQualifier(st)     // compat/create_view_qualified.go
	compat.FixLockClauseNames(st)   // compat/lock_clause_names.go
	statementParsed(ctx, st)        // warnings.go
	numberDates(st)                 // numbercast.go
	compat.DateIntervals(st, query) // compat/date_interval.go
	if hasGroupConcat(query) {
		compat.HavingGroupConcat(st) // compat/having_group_concat.go
	}
	if err == nil {
		p.gw.ignoreGeneratedValues(ctx, st)
	}
	return st, q, rest, err
}

func (p genValuesParser) ParseWithOptions(ctx context.Context, query string, delim rune, multi bool, o ast.ParserOptions) (ast.Statement, string, string, error) {
	query, err := p.gw.prepareHintsSignal(ctx, query) // index hints (hints.go)
	if err != nil {
		return nil, "", "", err
	}
	var st ast.Statement
	var q, rest string
	st, q, rest, err = p.Parser.ParseWithOptions(ctx, query, delim, multi, o)
	compat.FoldStatementNames(st)   // compat/stmt_names.go
	compat.FixViewQualifier(st)     // compat/create_view_qualified.go
	compat.FixLockClauseNames(st)   // compat/lock_clause_names.go
	statementParsed(ctx, st)        // warnings.go
	numberDates(st)                 // numbercast.go
	compat.DateIntervals(st, query) // compat/date_interval.go
	if hasGroupConcat(query) {
		compat.HavingGroupConcat(st) // compat/having_group_concat.go
	}
	if sctx, ok := ctx.(*sql.Context); ok && err == nil {
		p.gw.ignoreGeneratedValues(sctx, st)
	}
	return st, q, rest, err
}

func (p genValuesParser) ParseOneWithOptions(ctx context.Context, query string, o ast.ParserOptions) (ast.Statement, int, error) {
	query, err := p.gw.prepareHints(ctx, query) // index hints (hints.go)
	if err != nil {
		return nil, 0, err
	}
	var st ast.Statement
	var n int
	st, n, err = p.Parser.ParseOneWithOptions(ctx, query, o)
	compat.FoldStatementNames(st)   // compat/stmt_names.go
	compat.FixViewQualifier(st)     // compat/create_view_qualified.go
	compat.FixLockClauseNames(st)   // compat/lock_clause_names.go
	statementParsed(ctx, st)        // warnings.go
	numberDates(st)                 // numbercast.go
	compat.DateIntervals(st, query) // compat/date_interval.go
	if hasGroupConcat(query) {
		compat.HavingGroupConcat(st) // compat/having_group_concat.go
	}
	if sctx, ok := ctx.(*sql.Context); ok && err == nil {
		p.gw.ignoreGeneratedValues(sctx, st)
	}
	return st, n, err
}

// hasGroupConcat reports whether s contains GROUP_CONCAT in any case,
// without allocating and looking only around the '_' bytes: the
// per-statement gate of compat.HavingGroupConcat (a bulk INSERT's text
// is scanned by IndexByte).
func hasGroupConcat(s string) bool {
	const word, at = "group_concat", 5 // at: the '_' in word
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '_')
		if j < 0 {
			return false
		}
		j += i
		if j >= at && j-at+len(word) <= len(s) && strings.EqualFold(s[j-at:j-at+len(word)], word) {
			return true
		}
		i = j + 1
	}
}

// ParseSimple is the parser's for the texts go-mysql-server parses
// itself: a column's DEFAULT, generated or ON UPDATE expression read back
// from the catalog ("SELECT " + its text), a CHECK's. They get
// numbercast.go's rewrites like a statement (twelfth session): a DEFAULT
// (CAST(20240102 AS DATE)) that CREATE TABLE computed MySQL's way was
// NULL once the table was loaded again.
func (p genValuesParser) ParseSimple(query string) (ast.Statement, error) {
	st, err := p.Parser.ParseSimple(query)
	if err == nil {
		numberDates(st) // numbercast.go
	}
	return st, err
}

// ignoreGeneratedValues applies genValuesParser's rewrite to st.
func (g *Gateway) ignoreGeneratedValues(ctx *sql.Context, st ast.Statement) {
	ins, ok := st.(*ast.Insert)
	if !ok || ctx == nil || ctx.Session == nil {
		return
	}
	vals, ok := ins.Rows.(*ast.AliasedValues)
	if !ok || len(vals.Values) == 0 {
		return
	}
	mode := sql.LoadSqlMode(ctx)
	if mode.ModeEnabled("STRICT_TRANS_TABLES") || mode.ModeEnabled("STRICT_ALL_TABLES") {
		return
	}
	db := ins.Table.DbQualifier.String()
	if db == "" {
		db = ctx.GetCurrentDatabase()
	}
	meta, err := g.Catalog.Table(MetaCtx(ctx), db, ins.Table.Name.String())
	if err != nil {
		return // the engine reports it
	}
	// Positions in the VALUES tuples of the generated columns.
	gen := map[int]string{}
	if len(ins.Columns) == 0 {
		for i, c := range meta.Columns {
			if c.Generated != "" {
				gen[i] = c.Name
			}
		}
	} else {
		for i, name := range ins.Columns {
			if j := meta.ColumnIndex(name.String()); j >= 0 && meta.Columns[j].Generated != "" {
				gen[i] = meta.Columns[j].Name
			}
		}
	}
	if len(gen) == 0 {
		return
	}
	pos := slices.Sorted(maps.Keys(gen))
	warned := map[int]bool{}
	for _, tuple := range vals.Values {
		for _, i := range pos {
			name := gen[i]
			if i >= len(tuple) {
				continue // the engine reports the column count
			}
			if _, isDefault := tuple[i].(*ast.Default); isDefault {
				continue
			}
			tuple[i] = &ast.Default{}
			if !warned[i] {
				warned[i] = true
				ctx.Warn(1906, "The value specified for generated column '%s' in table '%s' has been ignored", name, strings.TrimSpace(meta.Name))
			}
		}
	}
}
