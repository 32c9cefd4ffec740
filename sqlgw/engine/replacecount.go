package engine

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// REPLACE's affected rows
//
// MySQL counts a REPLACE's rows inserted plus rows deleted: a row whose
// values collide with two stored rows (its primary key with one, a unique
// key with another) deletes both and counts 3. go-mysql-server deletes
// both (its insert loop retries until the row goes in) but counts one
// deletion per row (replaceRowHandler: 2). The editor counts the
// deletions before each row it inserts (editor.replDeletes); those beyond
// the first are the session's replaced, which the write's exec wrapper
// (strictIter, strictwrite.go) adds to the statement's OK row.

// noteReplaced notes that the row just inserted by ctx's statement
// followed n deletions.
func noteReplaced(ctx *sql.Context, n int) {
	if s := sessionOf(ctx); s != nil && n > 1 {
		s.replaced += n - 1
	}
}

// startReplace forgets what an earlier statement left.
func startReplace(ctx *sql.Context) {
	if s := sessionOf(ctx); s != nil {
		s.replaced = 0
	}
}

// replacedRows returns ok, a REPLACE's OK row, with the deletions
// go-mysql-server did not count added.
func replacedRows(ctx *sql.Context, r sql.Row) sql.Row {
	s := sessionOf(ctx)
	if s == nil || s.replaced == 0 || len(r) != 1 {
		return r
	}
	ok, isOK := r[0].(types.OkResult)
	if !isOK {
		return r
	}
	ok.RowsAffected += uint64(s.replaced)
	s.replaced = 0
	return sql.Row{ok}
}
