//go:build enginetest

package enginetest

import (
	"fmt"

	gms "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/enginetest"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// recoveringEngine is the engine the suites get: go-mysql-server's, except
// that a panic while planning or running a statement (or reading its rows)
// becomes that statement's error, as it does over the wire, where the server
// recovers it and drops the connection. Without it one panicking query would
// end the whole test binary and hide every result after it; with it the
// query fails like any other, and the skip list names it with the reason.
type recoveringEngine struct {
	*gms.Engine
}

var _ enginetest.QueryEngine = recoveringEngine{}

// errPanic reports a recovered panic.
type errPanic struct{ v any }

func (e errPanic) Error() string { return fmt.Sprintf("panic: %v", e.v) }

func recoverInto(err *error) {
	if r := recover(); r != nil {
		*err = errPanic{r}
	}
}

func (e recoveringEngine) Query(ctx *sql.Context, query string) (sch sql.Schema, iter sql.RowIter, flags *sql.QueryFlags, err error) {
	defer recoverInto(&err)
	sch, iter, flags, err = e.Engine.Query(ctx, query)
	return sch, wrapIter(iter), flags, err
}

func (e recoveringEngine) QueryWithBindings(ctx *sql.Context, query string, parsed sqlparser.Statement, bindings map[string]sqlparser.Expr, qFlags *sql.QueryFlags) (sch sql.Schema, iter sql.RowIter, flags *sql.QueryFlags, err error) {
	defer recoverInto(&err)
	sch, iter, flags, err = e.Engine.QueryWithBindings(ctx, query, parsed, bindings, qFlags)
	return sch, wrapIter(iter), flags, err
}

func (e recoveringEngine) PrepareQuery(ctx *sql.Context, query string) (n sql.Node, err error) {
	defer recoverInto(&err)
	return e.Engine.PrepareQuery(ctx, query)
}

func (e recoveringEngine) AnalyzeQuery(ctx *sql.Context, query string) (n sql.Node, err error) {
	defer recoverInto(&err)
	return e.Engine.AnalyzeQuery(ctx, query)
}

func wrapIter(iter sql.RowIter) sql.RowIter {
	if iter == nil {
		return nil
	}
	return recoveringIter{iter}
}

type recoveringIter struct{ sql.RowIter }

func (it recoveringIter) Next(ctx *sql.Context) (row sql.Row, err error) {
	defer recoverInto(&err)
	return it.RowIter.Next(ctx)
}

func (it recoveringIter) Close(ctx *sql.Context) (err error) {
	defer recoverInto(&err)
	return it.RowIter.Close(ctx)
}
