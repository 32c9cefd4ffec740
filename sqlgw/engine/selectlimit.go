package engine

import (
	"context"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// sql_select_limit for simple SELECTs (a go-mysql-server bug worked around)
//
// MySQL caps the rows of a top-level SELECT without LIMIT at
// sql_select_limit. go-mysql-server's analyzer does this in its rule
// applyDefaultSelectLimit, but a statement whose bound plan is a
// projection of one table, filtered or not (analyzer isSimpleSelect:
// Project -> [Filter] -> ResolvedTable, no subquery), is analyzed with a
// short list of batches ("simpleSelect", node_batches.go) that leaves the
// rule out, so `SELECT id FROM t` and `SELECT id FROM t WHERE id > 0`
// returned every row. The plan cache would inherit the bug: its plans are
// analyzed the same way.
//
// sqlgw therefore runs such a statement itself when the session's
// sql_select_limit is not the default (FastLane.selectLimit, before the
// plan cache, for text statements and prepared executes alike): it binds
// the statement with its parameters as go-mysql-server's handler does, puts
// the Limit above the projection where applyDefaultSelectLimit would, lets
// the analyzer take the whole plan (a root Limit is not a simple select:
// the full batches run, and the rule then finds the Limit and adds
// nothing), and runs it as the plan cache runs its plans (FastLane.run:
// process list, counters, spooling, transaction). Every other statement,
// and every statement with the default sql_select_limit, takes its usual
// path. A text holding several statements is left to go-mysql-server
// (which still ignores the setting for its simple SELECTs).
//
// Upstream: the "simpleSelect" batch list of getBatchesForNode
// (sql/analyzer/node_batches.go) should start with applyDefaultSelectLimit
// (it is in OnceBeforeDefault, which that list replaces); then this file
// can go.

// selectLimitDefault is sql_select_limit's default: the setting applies
// when the session's value differs from it (sql.HasDefaultValue, as
// applyDefaultSelectLimit decides).
var selectLimitDefault = sync.OnceValue(func() interface{} {
	if sv, _, ok := sql.SystemVariables.GetGlobal("sql_select_limit"); ok {
		return sv.GetDefault()
	}
	return nil
})

// sessionSelectLimit returns the session's sql_select_limit if it is set to
// something other than the default.
func sessionSelectLimit(ctx *sql.Context, s *Session) (int64, bool) {
	v, err := s.BaseSession.GetSessionVariable(ctx, "sql_select_limit")
	if err != nil || v == selectLimitDefault() {
		return 0, false
	}
	n, ok := v.(int64)
	return n, ok && n >= 0
}

// selectLimit runs a simple SELECT (see above) under the session's
// sql_select_limit if it is not the default; handled is false if the
// caller must run the statement its usual way. stmt, if nil, is parsed
// from the text query; bindings are a prepared execute's parameters.
func (f *FastLane) selectLimit(ctx context.Context, c *mysql.Conn, s *Session, query string, stmt sqlparser.Statement, bindings map[string]*querypb.BindVariable, callback func(*sqltypes.Result) error) (handled bool, err error) {
	if _, ok := sessionSelectLimit(nil, s); !ok || len(analyzer.AlwaysBeforeDefault) != 0 {
		return false, nil
	}
	sqlCtx, err := f.SessionManager.NewContextWithQuery(ctx, c, query)
	if err != nil {
		return false, nil
	}
	limit, _ := sessionSelectLimit(sqlCtx, s)
	if stmt == nil {
		if !strings.HasPrefix(strings.ToLower(strings.TrimLeft(query, " \t\r\n(")), "select") {
			return false, nil
		}
		var rest string
		stmt, _, rest, err = f.Engine.Parser.Parse(sqlCtx, query, true)
		if err != nil || strings.TrimSpace(rest) != "" {
			return false, nil
		}
	}
	sel, ok := stmt.(*sqlparser.Select)
	if !ok || sel.Limit != nil || sel.Into != nil || sel.QueryOpts.SQLCalcFoundRows {
		return false, nil
	}
	bexprs := make(map[string]sqlparser.Expr, len(bindings))
	for name, bv := range bindings {
		v, err := sqltypes.BindVariableToValue(bv)
		if err != nil {
			return false, nil
		}
		e, err := sqlparser.ExprFromValue(v)
		if err != nil {
			return false, nil
		}
		bexprs[name] = e
	}
	binder := planbuilder.New(sqlCtx, f.Engine.Analyzer.Catalog, f.Engine.EventScheduler)
	if len(bexprs) > 0 {
		binder.SetBindings(bexprs)
	}
	bound, qFlags, err := binder.BindOnly(stmt, query, &sql.QueryFlags{})
	if err != nil || qFlags.SubqueryIsSet() || !simpleSelect(bound) {
		// The general path reports the error, or its analyzer applies
		// sql_select_limit itself.
		return false, nil
	}
	// As go-mysql-server's QueryWithBindings (clearWarnings): warnings go
	// after binding, before analysis.
	sqlCtx.ClearWarnings()
	limited := plan.NewLimit(expression.NewLiteral(limit, types.Int64), bound)
	analyzed, err := f.Engine.Analyzer.Analyze(sqlCtx, limited, nil, qFlags)
	if err != nil {
		return false, nil
	}
	s.lastFromCache.Store(false)
	return true, f.run(sqlCtx, c, query, analyzed, qFlags.IsSet(sql.QFlagMax1Row), schemaFields(sqlCtx, analyzed.Schema(sqlCtx)), callback)
}

// simpleSelect is go-mysql-server's isSimpleSelect (analyzer,
// node_batches.go): the plans analyzed without applyDefaultSelectLimit.
func simpleSelect(n sql.Node) bool {
	p, ok := n.(*plan.Project)
	if !ok {
		return false
	}
	child := p.Child
	if f, ok := child.(*plan.Filter); ok {
		child = f.Child
	}
	_, ok = child.(*plan.ResolvedTable)
	return ok
}

// schemaFields is go-mysql-server's schemaToFields (server/handler.go,
// unexported): the result fields of schema s.
func schemaFields(ctx *sql.Context, s sql.Schema) []*querypb.Field {
	charSetResults := ctx.GetCharacterSetResults()
	fields := make([]*querypb.Field, len(s))
	for i, c := range s {
		charset := uint32(sql.Collation_Default.CharacterSet())
		if collatedType, ok := c.Type.(sql.TypeWithCollation); ok {
			charset = uint32(collatedType.Collation().CharacterSet())
		}
		// Binary types always use a binary collation; the others follow
		// character_set_results if it is set.
		if types.IsBinaryType(c.Type) {
			charset = uint32(sql.Collation_binary)
		} else if charSetResults != sql.CharacterSet_Unspecified {
			charset = uint32(charSetResults)
		}
		var flags querypb.MySqlFlag
		if !c.Nullable {
			flags |= querypb.MySqlFlag_NOT_NULL_FLAG
		}
		if c.AutoIncrement {
			flags |= querypb.MySqlFlag_AUTO_INCREMENT_FLAG
		}
		if c.PrimaryKey {
			flags |= querypb.MySqlFlag_PRI_KEY_FLAG
		}
		if types.IsUnsigned(c.Type) {
			flags |= querypb.MySqlFlag_UNSIGNED_FLAG
		}
		fields[i] = &querypb.Field{
			Name:         c.Name,
			OrgName:      c.Name,
			Table:        c.Source,
			OrgTable:     c.Source,
			Database:     c.DatabaseSource,
			Type:         c.Type.Type(),
			Charset:      charset,
			ColumnLength: c.Type.MaxTextResponseByteLength(ctx),
			Flags:        uint32(flags),
		}
		if types.IsDecimal(c.Type) {
			fields[i].Decimals = uint32(c.Type.(sql.DecimalType).Scale())
		} else if types.IsDatetimeType(c.Type) {
			fields[i].Decimals = uint32(c.Type.(sql.DatetimeType).Precision())
		}
	}
	return fields
}
