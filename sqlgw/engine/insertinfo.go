package engine

import (
	"fmt"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
)

// INSERT's info string
//
// MySQL answers an INSERT of several rows (a VALUES list of more than one
// row, or INSERT ... SELECT) and a REPLACE of several with "Records: N
// Duplicates: D  Warnings: W" in the OK packet (PHP's mysqli->info,
// mysql_info()); go-mysql-server sends none. The write's exec wrapper
// (strictwrite.go) counts the rows it read from the source; when the
// statement completes it leaves the count for the connection handler,
// which writes the info: D is 0 for INSERT, the ignored rows for INSERT
// IGNORE, the replaced rows for REPLACE. INSERT ... ON DUPLICATE KEY
// UPDATE gets no info (its affected-rows count does not tell how many
// rows were duplicates).

// insertStats is what one completed INSERT leaves for the handler.
type InsertStats struct {
	Records         int
	Replace, Ignore bool
}

var insertInfos struct {
	mu sync.Mutex
	m  map[*Session]InsertStats
}

// wantsInsertInfo reports whether MySQL sends an info string for n.
func wantsInsertInfo(n *plan.InsertInto) bool {
	if n.OnDupExprs.HasUpdates() || n.Returning != nil {
		return false
	}
	src := n.Source
	for {
		// The analyzer may put a projection over the VALUES list.
		p, ok := src.(*plan.Project)
		if !ok {
			break
		}
		src = p.Child
	}
	if v, ok := src.(*plan.Values); ok {
		return len(v.ExpressionTuples) > 1
	}
	return true // INSERT ... SELECT
}

func noteInsertStats(ctx *sql.Context, st InsertStats) {
	s, ok := ctx.Session.(*Session)
	if !ok {
		return
	}
	insertInfos.mu.Lock()
	if insertInfos.m == nil {
		insertInfos.m = map[*Session]InsertStats{}
	}
	insertInfos.m[s] = st
	insertInfos.mu.Unlock()
}

// takeInsertStats returns and forgets what the last INSERT of the
// connection left.
func (g *Gateway) TakeInsertStats(conn uint32) (InsertStats, bool) {
	s := g.Session(conn)
	if s == nil {
		return InsertStats{}, false
	}
	insertInfos.mu.Lock()
	defer insertInfos.mu.Unlock()
	st, ok := insertInfos.m[s]
	delete(insertInfos.m, s)
	return st, ok
}

// insertInfo is the info string of an INSERT that affected rows.
func InsertInfo(st InsertStats, affected uint64, warnings uint16) string {
	dup := 0
	switch {
	case st.Replace && int(affected) > st.Records:
		dup = int(affected) - st.Records
	case st.Ignore && st.Records > int(affected):
		dup = st.Records - int(affected)
	}
	return fmt.Sprintf("Records: %d  Duplicates: %d  Warnings: %d", st.Records, dup, warnings)
}
