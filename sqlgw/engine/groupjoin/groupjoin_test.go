package groupjoin

import (
	"context"
	"testing"

	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// TestRule: o.cust = 7 and l.cust = o.cust give l.cust = 7 when orders and
// lines are members of one group joined by an inner join; not across
// groups, not through an outer join, not for columns of other types.
func TestRule(t *testing.T) {
	ctx := sql.NewContext(context.Background())
	db := memory.NewDatabase("d")
	table := func(name string, typ sql.Type) *plan.ResolvedTable {
		sch := sql.NewPrimaryKeySchema(sql.Schema{{Name: "cust", Type: typ, Source: name}})
		return plan.NewResolvedTable(memory.NewTable(ctx, db.BaseDatabase, name, sch, nil), db, nil)
	}
	col := func(table string, typ sql.Type) *expression.GetField {
		return expression.NewGetFieldWithTable(0, 0, typ, "d", table, "cust", false)
	}
	seven := expression.NewLiteral(int64(7), types.Int64)
	query := func(lineType sql.Type, join func(l, r sql.Node, c sql.Expression) *plan.JoinNode) sql.Node {
		o := plan.NewTableAlias("o", table("orders", types.Int64))
		l := table("lines", lineType)
		on := expression.NewEquals(col("lines", lineType), col("o", types.Int64))
		return plan.NewFilter(expression.NewEquals(col("o", types.Int64), seven), join(o, l, on))
	}
	grouped := func(t sql.Table) string { return map[string]string{"orders": "Sales", "lines": "sales"}[t.Name()] }
	apart := func(t sql.Table) string { return map[string]string{"orders": "a", "lines": "b"}[t.Name()] }
	for _, c := range []struct {
		name    string
		n       sql.Node
		groupOf func(sql.Table) string
		want    string // the filter after the rule
	}{
		{"members of one group", query(types.Int64, plan.NewInnerJoin), grouped, "((o.cust = 7) AND (lines.cust = 7))"},
		{"two groups", query(types.Int64, plan.NewInnerJoin), apart, ""},
		{"left join", query(types.Int64, plan.NewLeftOuterJoin), grouped, ""},
		{"other types", query(types.Int32, plan.NewInnerJoin), grouped, ""},
	} {
		out, same, err := Rule(c.groupOf)(ctx, nil, c.n, nil, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := ""
		if !same {
			got = out.(*plan.Filter).Expression.String()
		}
		if got != c.want {
			t.Errorf("%s: filter %q, want %q", c.name, got, c.want)
		}
	}
}
