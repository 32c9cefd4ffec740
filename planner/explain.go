package planner

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sqlgw/sqlgw/storage"
)

// String renders the plan as EXPLAIN shows it: the access path and table on
// the first line, then one line per store request, then order, residual and
// cost.
//
//	PointGet t
//	  get pk='…' rk='…' select=[a,b]
//	RowRange t
//	  query partition='…' rows=['…','…') filter=(c gt 5) select=[c] top=10
func (p *Plan) String() string {
	var sb strings.Builder
	sb.WriteString(p.Path.String())
	sb.WriteByte(' ')
	sb.WriteString(p.Table)
	sb.WriteByte('\n')
	for _, k := range p.Gets {
		fmt.Fprintf(&sb, "  get pk=%s rk=%s", quoteKey(k.PK), quoteKey(k.RK))
		writeSelect(&sb, p.Select)
		sb.WriteByte('\n')
	}
	for _, q := range p.Queries {
		sb.WriteString("  query")
		sb.WriteString(FormatQuery(q))
		sb.WriteByte('\n')
	}
	for i, n := range p.Groups {
		if n > 1 {
			fmt.Fprintf(&sb, "  salted: %d bucket queries merged in key order (group %d)\n", n, i+1)
		}
	}
	if ix := p.Index; ix != nil {
		sb.WriteString("  " + ix.describe() + "\n")
		for _, k := range ix.Gets {
			fmt.Fprintf(&sb, "    index get pk=%s rk=%s", quoteKey(k.PK), quoteKey(k.RK))
			writeSelect(&sb, ix.Select)
			sb.WriteByte('\n')
		}
		for _, q := range ix.Queries {
			sb.WriteString("    index query")
			sb.WriteString(FormatQuery(q))
			sb.WriteByte('\n')
		}
		if ix.Covering {
			sb.WriteString("    covering: no base gets\n")
		} else {
			sb.WriteString("    then get base rows of the hits in parallel")
			writeSelect(&sb, p.Select)
			sb.WriteByte('\n')
		}
	}
	if p.Limit > 0 {
		fmt.Fprintf(&sb, "  limit: %d\n", p.Limit)
	}
	if p.Ordered {
		sb.WriteString("  order: ")
		if len(p.Order) == 0 {
			sb.WriteString("(single row)")
		}
		for i, o := range p.Order {
			if i > 0 {
				sb.WriteByte(',')
			}
			if o.Desc {
				sb.WriteByte('-')
			} else {
				sb.WriteByte('+')
			}
			sb.WriteString(p.colName(o.Col))
		}
		if p.OrderSatisfied {
			sb.WriteString(" (satisfies ORDER BY)")
		}
		sb.WriteByte('\n')
	}
	if len(p.Residual) > 0 {
		sb.WriteString("  residual: ")
		for i, r := range p.Residual {
			if i > 0 {
				sb.WriteString(" AND ")
			}
			if r < len(p.where) {
				sb.WriteString(FormatExpr(p.where[r], p.colName))
			} else {
				sb.WriteString("#" + strconv.Itoa(r))
			}
		}
		sb.WriteByte('\n')
	}
	fmt.Fprintf(&sb, "  cost: requests=%s entities=%s", formatEst(p.Cost.Requests), formatEst(p.Cost.Entities))
	return sb.String()
}

// Summary renders the plan on one line, for EXPLAIN trees that cannot hold
// several lines: the path, the table and the first requests.
//
//	RowRange t: query partition='…' rows=['…', '…') filter=(c gt 5L) top=10
//	MultiGet t: get pk='a1' rk=''; get pk='a2' rk=''; … (+8 more)
func (p *Plan) Summary() string {
	const shown = 3
	var parts []string
	for _, k := range p.Gets {
		parts = append(parts, fmt.Sprintf("get pk=%s rk=%s", quoteKey(k.PK), quoteKey(k.RK)))
	}
	for _, q := range p.Queries {
		parts = append(parts, "query"+FormatQuery(q))
	}
	if ix := p.Index; ix != nil {
		parts = append(parts, ix.describe())
		for _, k := range ix.Gets {
			parts = append(parts, fmt.Sprintf("index get pk=%s rk=%s", quoteKey(k.PK), quoteKey(k.RK)))
		}
		for _, q := range ix.Queries {
			parts = append(parts, "index query"+FormatQuery(q))
		}
		if !ix.Covering {
			parts = append(parts, "then base gets")
		}
	}
	n := len(parts)
	if n > shown {
		parts = append(parts[:shown], fmt.Sprintf("… (+%d more)", n-shown))
	}
	s := p.Path.String() + " " + p.Table
	if len(parts) > 0 {
		s += ": " + strings.Join(parts, "; ")
	}
	if len(p.Gets) > 0 && p.Select != nil {
		s += " select=[" + strings.Join(p.Select, ",") + "]"
	}
	return s
}

func (ix *IndexAccess) describe() string {
	kind := "global"
	if ix.Local {
		kind = "local"
	}
	if ix.Unique {
		kind = "unique " + kind
	}
	s := fmt.Sprintf("index %s (%s) table=%s", ix.Name, kind, ix.Table)
	if ix.Covering {
		s += " covering"
	}
	return s
}

func (p *Plan) colName(i int) string {
	if i >= 0 && i < len(p.columns) {
		return p.columns[i].Name
	}
	return "#" + strconv.Itoa(i)
}

func formatEst(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// FormatQuery renders the parts of a storage query that are set, each as
// " name=value": partition, rows, filter (OData, storage.FormatOData),
// select and top.
func FormatQuery(q *storage.Query) string {
	var sb strings.Builder
	if q.Partition != nil {
		if k, ok := q.Partition.Single(); ok {
			sb.WriteString(" partition=" + quoteKey(k))
		} else {
			sb.WriteString(" partitions=" + formatRange(q.Partition))
		}
	}
	if q.Row != nil {
		if k, ok := q.Row.Single(); ok {
			sb.WriteString(" row=" + quoteKey(k))
		} else {
			sb.WriteString(" rows=" + formatRange(q.Row))
		}
	}
	if q.Filter != nil {
		sb.WriteString(" filter=(" + storage.FormatOData(q.Filter) + ")")
	}
	writeSelect(&sb, q.Select)
	if q.Top > 0 {
		fmt.Fprintf(&sb, " top=%d", q.Top)
	}
	return sb.String()
}

func writeSelect(sb *strings.Builder, sel []string) {
	if sel == nil {
		return
	}
	sb.WriteString(" select=[" + strings.Join(sel, ",") + "]")
}

func formatRange(r *storage.KeyRange) string {
	var sb strings.Builder
	if r.Low == nil {
		sb.WriteString("(-inf")
	} else {
		if r.Low.Exclusive {
			sb.WriteByte('(')
		} else {
			sb.WriteByte('[')
		}
		sb.WriteString(quoteKey(r.Low.Key))
	}
	sb.WriteString(", ")
	if r.High == nil {
		sb.WriteString("+inf)")
	} else {
		sb.WriteString(quoteKey(r.High.Key))
		if r.High.Exclusive {
			sb.WriteByte(')')
		} else {
			sb.WriteByte(']')
		}
	}
	return sb.String()
}

// quoteKey quotes a key as an OData string literal would.
func quoteKey(k string) string {
	return storage.FormatODataLiteral(storage.String(k))
}
