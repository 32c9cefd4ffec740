package admin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw/engine"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/recorder"
)

// Table maintenance statements
//
// CHECK TABLE, REPAIR TABLE, OPTIMIZE TABLE, ANALYZE TABLE and CHECKSUM
// TABLE (maintenance_parse.go) are answered by adminHandler, which sits between
// sqlgw's connection handler (handler.go) and go-mysql-server's, so it sees
// statements after the handler's rewrites and before go-mysql-server parses
// them. Each answers MySQL's result set, one or more rows per table:
// Table (db.name), Op, Msg_type (status, error, info, note, warning;
// Error for a table that does not exist), Msg_text.
//
//   - CHECK TABLE reads the whole table and every index (check_repair_table.go):
//     every row's entities must decode (its continuation entities present),
//     and every secondary index, local and global, must equal what the rows
//     imply (no entry missing, extra or with other values). What it finds is
//     verified again against a fresh read of the row and the entry before
//     it is reported, so a write committing during the check is not taken
//     for corruption. A corrupt index gives a Warning row naming it, then
//     "error | Corrupt", as InnoDB does. Global index entries still marked
//     pending (a write in flight, or left by a crash and not yet settled by
//     the recovery sweep) are not corruption: the index protocol keeps them
//     until their writer or the sweep settles them and readers verify them,
//     so CHECK TABLE reports them in a note and says OK; it does not settle
//     them itself, because CHECK is read-only and a mark younger than the
//     lease may belong to a live writer. The options (QUICK, FAST, MEDIUM,
//     EXTENDED, CHANGED, FOR UPGRADE) are accepted and all check fully.
//   - REPAIR TABLE settles the marks older than the lease (the recovery
//     sweep, ixmaint.Recover), then repairs what CHECK finds: writes missing
//     entries, rewrites wrong ones, deletes extra ones (all conditional, as
//     the index protocol writes), recreates and rebuilds (ixmaint.Backfill)
//     a global index whose store table is gone, checks again and reports
//     status OK or what is still wrong (rows that do not decode, or a
//     unique value two rows hold, cannot be repaired).
//   - OPTIMIZE TABLE answers as InnoDB does ("note | Table does not support
//     optimize, doing recreate + analyze instead", "status | OK") without
//     rewriting rows: an entity store has no pages to defragment. It settles
//     old marks and recounts the rows, as ANALYZE does.
//   - ANALYZE TABLE counts the table's rows, which become the coster's row
//     estimate (gateway.setRowCount), and answers status OK; qualified names
//     work without a current database and an empty table is fine.
//     go-mysql-server's own ANALYZE (histograms in its memory statistics
//     provider, which panicked on an empty table) is no longer reached from
//     the wire; ANALYZE TABLE ... UPDATE/DROP HISTOGRAM still goes to it.
//   - CHECKSUM TABLE is refused with 1235: MySQL's checksum is a CRC over
//     InnoDB's in-memory row format (null bitmap, fixed-width field images,
//     padding of CHAR columns), which sqlgw cannot reproduce exactly, and a
//     different number would be worse than none.
//
// As in MySQL, a missing table or a view (for REPAIR, OPTIMIZE, ANALYZE) is
// reported in the result ("Error", then "status | Operation failed"), not as
// a statement error; CHECK TABLE of a view checks that the view can be
// resolved. go-mysql-server's own tables (mysql.user, ..., which
// mysqlcheck --all-databases visits) answer MySQL's note for an engine
// without the operation ("The storage engine for the table doesn't support
// check"). The statements commit an open transaction first (MySQL's
// implicit commit). They work over the text protocol, in multi-statement
// queries, and as prepared statements (SQL PREPARE ... FROM and the binary
// protocol, maintenance_prepare.go): MariaDB prepares all of them; MySQL 8.0 refuses to prepare
// CHECK TABLE (1295), which sqlgw does not imitate.

// adminHandler intercepts the table maintenance statements.
type adminHandler struct {
	mysql.Handler
	gw *engine.Gateway

	mu sync.Mutex
	// prepared holds, per connection, the statements prepared with SQL
	// PREPARE name FROM '...' that are table maintenance statements (the
	// engine cannot parse them), by lower-cased name.
	prepared map[uint32]map[string]string
}

// adminFieldsCopy returns the columns of MySQL's table maintenance result set
// (sql_admin.cc: Table NAME_CHAR_LEN*2, Op 10, Msg_type 10, Msg_text
// SQL_ADMIN_MSG_TEXT_SIZE characters, utf8).
func adminFieldsCopy() []*querypb.Field {
	return []*querypb.Field{
		{Name: "Table", Type: querypb.Type_VARCHAR, Charset: 33, ColumnLength: 384},
		{Name: "Op", Type: querypb.Type_VARCHAR, Charset: 33, ColumnLength: 30},
		{Name: "Msg_type", Type: querypb.Type_VARCHAR, Charset: 33, ColumnLength: 30},
		{Name: "Msg_text", Type: querypb.Type_VARCHAR, Charset: 33, ColumnLength: 3072},
	}
}

// newAdminHandler puts the table maintenance statements in front of next.
func NewMaintenance(next mysql.Handler, gw *engine.Gateway) *adminHandler {
	return &adminHandler{Handler: next, gw: gw}
}

func (a *adminHandler) ComQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) error {
	if res, _, ok, err := a.intercept(ctx, c, query); ok {
		if err != nil {
			return err
		}
		return callback(res, false)
	}
	return a.Handler.ComQuery(ctx, c, query, callback)
}

func (a *adminHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (string, error) {
	if res, rest, ok, err := a.intercept(ctx, c, query); ok {
		if err != nil {
			return "", err
		}
		return rest, callback(res, rest != "")
	}
	return a.Handler.ComMultiQuery(ctx, c, query, callback)
}

func (a *adminHandler) ComPrepare(ctx context.Context, c *mysql.Conn, query string, prepare *mysql.PrepareData) ([]*querypb.Field, error) {
	if text, ok := adminFromPlaceholder(query); ok {
		if _, _, isAdmin, err := parseAdmin(text); isAdmin {
			if err != nil {
				return nil, err
			}
			return adminFieldsCopy(), nil
		}
	}
	return a.Handler.ComPrepare(ctx, c, query, prepare)
}

func (a *adminHandler) ComStmtExecute(ctx context.Context, c *mysql.Conn, prepare *mysql.PrepareData, callback func(*sqltypes.Result) error) error {
	if text, ok := adminFromPlaceholder(prepare.PrepareStmt); ok {
		if res, _, isAdmin, err := a.intercept(ctx, c, text); isAdmin {
			if err != nil {
				return err
			}
			return callback(res)
		}
	}
	return a.Handler.ComStmtExecute(ctx, c, prepare, callback)
}

func (a *adminHandler) ConnectionClosed(c *mysql.Conn) {
	a.mu.Lock()
	delete(a.prepared, c.ConnectionID)
	a.mu.Unlock()
	a.Handler.ConnectionClosed(c)
}

// intercept runs query if it is a table maintenance statement, or an SQL
// PREPARE / EXECUTE / DEALLOCATE PREPARE of one; ok is false otherwise.
func (a *adminHandler) intercept(ctx context.Context, c *mysql.Conn, query string) (res *sqltypes.Result, rest string, ok bool, err error) {
	st, rest, ok, err := parseAdmin(query)
	if !ok {
		return a.interceptPrepared(ctx, c, query)
	}
	if err != nil {
		return nil, "", true, err
	}
	res, err = a.run(ctx, c, st)
	return res, rest, true, err
}

// run executes one statement.
func (a *adminHandler) run(ctx context.Context, c *mysql.Conn, st *adminStmt) (*sqltypes.Result, error) {
	if st.op == engine.OpChecksum {
		return nil, mysql.NewSQLError(mysql.ERNotSupportedYet, "42000",
			"This version of MySQL doesn't yet support 'CHECKSUM TABLE' (sqlgw cannot reproduce InnoDB's row-format checksum)")
	}
	cur := a.gw.CurrentDB(c.ConnectionID)
	tables := make([]engine.AdminTable, len(st.tables))
	seen := map[engine.AdminTable]bool{}
	for i, t := range st.tables {
		if t.DB == "" {
			if cur == "" {
				return nil, mysql.NewSQLError(mysql.ERNoDb, "3D000", "No database selected")
			}
			t.DB = cur
		}
		k := engine.AdminTable{DB: strings.ToLower(t.DB), Name: strings.ToLower(t.Name)}
		if seen[k] {
			return nil, mysql.NewSQLError(mysql.ERNonUniqTable, "42000", "Not unique table/alias: '%s'", t.Name)
		}
		seen[k] = true
		tables[i] = t
	}
	if err := a.implicitCommit(ctx, c); err != nil {
		return nil, err
	}
	sctx := ctx
	if s := a.gw.Session(c.ConnectionID); s != nil {
		sctx = recorder.WithCounters(ctx, s.Counters)
	}
	res := &engine.AdminResult{}
	for _, t := range tables {
		if err := a.runTable(sctx, c, st, t, res); err != nil {
			return nil, err
		}
	}
	return &sqltypes.Result{Fields: adminFieldsCopy(), Rows: res.Rows}, nil
}

// runTable adds the rows of one table. Only failures to reach the store
// are statement errors; everything about the table is in its rows.
func (a *adminHandler) runTable(ctx context.Context, c *mysql.Conn, st *adminStmt, t engine.AdminTable, res *engine.AdminResult) error {
	name := t.Qualified()
	if st.op == engine.OpRefresh {
		if st.typesBy != nil {
			return a.gw.AdminRefreshTypes(ctx, t, name, *st.typesBy, res)
		}
		return a.gw.AdminRefresh(ctx, t, name, res)
	}
	meta, err := a.gw.Catalog.Table(engine.MetaCtx(ctx), t.DB, t.Name)
	if errors.Is(err, catalog.ErrNoTable) || errors.Is(err, catalog.ErrNoDatabase) {
		_, isView, verr := a.gw.Views.Get(engine.MetaCtx(ctx), t.DB, t.Name)
		if verr != nil {
			return verr
		}
		switch {
		case !isView && a.engineQuery(ctx, c, t.DB, "SELECT * FROM "+quoteIdent(t.Name)+" LIMIT 0") == nil:
			// A table of go-mysql-server's own (mysql.user, ...), held in
			// memory: as MySQL answers for an engine without the operation.
			res.Add(name, st.op, "note", fmt.Sprintf("The storage engine for the table doesn't support %s", st.op))
		case !isView:
			res.Add(name, st.op, "Error", fmt.Sprintf("Table '%s' doesn't exist", name))
			res.Add(name, st.op, "status", "Operation failed")
		case st.op == engine.OpCheck:
			a.checkView(ctx, c, st, t, res)
		default:
			res.Add(name, st.op, "Error", fmt.Sprintf("'%s' is not BASE TABLE", name))
			res.Add(name, st.op, "status", "Operation failed")
		}
		return nil
	}
	if err != nil {
		return err
	}
	switch st.op {
	case engine.OpCheck:
		return a.gw.AdminCheck(ctx, meta, name, res)
	case engine.OpRepair:
		return a.gw.AdminRepair(ctx, meta, name, res)
	case engine.OpOptimize:
		res.Add(name, st.op, "note", "Table does not support optimize, doing recreate + analyze instead")
		if _, err := a.gw.SettleMarks(ctx, meta); err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err // (a lost index table is CHECK and REPAIR TABLE's)
		}
		if err := a.gw.AdminAnalyze(ctx, meta); err != nil {
			return err
		}
		res.Add(name, st.op, "status", "OK")
	case engine.OpAnalyze:
		if err := a.gw.AdminAnalyze(ctx, meta); err != nil {
			return err
		}
		res.Add(name, st.op, "status", "OK")
	}
	return nil
}

// checkView checks that view t resolves (its tables and columns exist):
// MySQL's CHECK TABLE of a view.
func (a *adminHandler) checkView(ctx context.Context, c *mysql.Conn, st *adminStmt, t engine.AdminTable, res *engine.AdminResult) {
	name := t.Qualified()
	err := a.engineQuery(ctx, c, t.DB, "SELECT * FROM "+quoteIdent(t.Name)+" LIMIT 0")
	if err != nil {
		res.Add(name, st.op, "Error", fmt.Sprintf("View '%s' references invalid table(s) or column(s) or function(s) or definer/invoker of view lack rights to use them", name))
		res.Add(name, st.op, "error", "Corrupt")
		return
	}
	res.Add(name, st.op, "status", "OK")
}

// engineQuery runs q through go-mysql-server with db as the current
// database (restored after), discarding its results. go-mysql-server
// resolves a view's tables in the current database: without one, even a
// qualified view fails.
func (a *adminHandler) engineQuery(ctx context.Context, c *mysql.Conn, db, q string) error {
	if s := a.gw.Session(c.ConnectionID); s != nil {
		if prev := s.GetCurrentDatabase(); prev != db {
			s.SetCurrentDatabase(db)
			defer s.SetCurrentDatabase(prev)
		}
	}
	return a.Handler.ComQuery(ctx, c, q, func(*sqltypes.Result, bool) error { return nil })
}

// implicitCommit commits the session's open transaction, as MySQL does
// before a table maintenance statement.
func (a *adminHandler) implicitCommit(ctx context.Context, c *mysql.Conn) error {
	s := a.gw.Session(c.ConnectionID)
	if s == nil || s.GetTransaction() == nil {
		return nil
	}
	return a.Handler.ComQuery(ctx, c, "COMMIT", func(*sqltypes.Result, bool) error { return nil })
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
