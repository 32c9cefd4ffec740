// Package ddldecl reads what a DDL statement declares that
// go-mysql-server drops on its way to the engine: PARTITION BY KEY/HASH
// and PARTITIONS of CREATE TABLE, DESC primary-key and index columns,
// RENAME TABLE into another database, and the source table of CREATE
// TABLE ... LIKE (like.go). The connection handler (sqlgw/wire) notes
// each statement's text (NotePartitionBy) before the engine runs it, per
// connection; the engine takes what it needs while it executes the
// statement (Take, TakeIndexDesc, RenameError; LikeSource from the
// statement's text), and the handler clears the rest (Clear).
//
// # Files
//
//	ddldecl.go  Decls: PARTITION BY, PARTITIONS, DESC columns, RENAME
//	like.go     LikeSource: the table CREATE TABLE ... LIKE copies
//
// # PARTITION BY KEY
//
// go-mysql-server parses a CREATE TABLE's PARTITION BY clause but drops it:
// plan.CreateTable and TableCreator.CreateTable never see it. sqlgw looks
// at the statement text itself, in the connection handler, before the
// engine runs it: PARTITION BY KEY(a,b) declares (a,b) as the partition
// key (the same as COMMENT 'sqlgw: partition_key=(a,b)'); any other
// partitioning is rejected with ER_NOT_SUPPORTED_YET when the table is
// created, never silently ignored. PARTITION BY [LINEAR] HASH(column) is
// PARTITION BY KEY(column) (the hash function is sqlgw's, MySQL's
// algorithm does not matter to a client); HASH of an expression, RANGE,
// LIST, explicit partition definitions and subpartitions are rejected.
// The PARTITIONS n count, n > 1, salts the table with n buckets
// (SALT_BUCKETS, after Apache Phoenix: catalog salt.go, the same as
// COMMENT 'sqlgw: salt_buckets=n'): MySQL spreads rows over n hashed
// partitions, and so does sqlgw, prefixing each PartitionKey with its
// bucket so that a monotonically growing key does not write to one
// partition range. The declared key and bucket count are also written
// into the table comment as "sqlgw: partition_key=(...) salt_buckets=n"
// (by the engine, provider.go),
// so SHOW CREATE TABLE shows them and a dump recreates the same layout.
//
// # Imports
//
// vitess (the parser), the catalog (its salt bucket limit) and
// sqlgw/mysqlerr (1235): never the engine or anything above it
// (scripts/layering.sh checks it).
package ddldecl

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw/mysqlerr"
)

// indexDescKey names a secondary index of a statement for the DESC
// columns it declares: by name, or by its columns when it has none.
func indexDescKey(table, name string, cols []string) string {
	if name != "" {
		return strings.ToLower(table) + "\x00" + strings.ToLower(name)
	}
	return strings.ToLower(table) + "\x00\x00" + strings.ToLower(strings.Join(cols, "\x00"))
}

// Decl is what a CREATE TABLE declares beyond what go-mysql-server passes
// on.
type Decl struct {
	// Cols is the PARTITION BY KEY (or HASH) column list; nil: none.
	Cols []string
	// Salt is the PARTITIONS count (n > 1 salts the table).
	Salt int
	// Err is why the PARTITION BY clause cannot be had (1235).
	Err error
	// Desc names the PRIMARY KEY columns declared DESC, which
	// go-mysql-server also drops (sql.IndexColumn has no order).
	Desc map[string]bool
}

// Decls holds, per connection, the PARTITION BY clause of the CREATE
// TABLE statement being executed, by lower-cased table name. The zero
// value is ready to use.
type Decls struct {
	mu sync.Mutex
	m  map[uint32]map[string]Decl
	// ixDesc holds, per connection, the DESC columns of the secondary
	// indexes the statement being executed declares (CREATE TABLE's
	// KEY (b DESC), CREATE INDEX, ALTER TABLE ADD INDEX), by indexDescKey:
	// go-mysql-server's sql.IndexDef drops the order too.
	ixDesc map[uint32]map[string]map[string]bool
}

// setIndexDesc records the DESC columns of an index of the statement.
func (p *Decls) setIndexDesc(conn uint32, key string, desc map[string]bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ixDesc == nil {
		p.ixDesc = map[uint32]map[string]map[string]bool{}
	}
	if p.ixDesc[conn] == nil {
		p.ixDesc[conn] = map[string]map[string]bool{}
	}
	p.ixDesc[conn][key] = desc
}

// TakeIndexDesc returns (and forgets) the DESC columns recorded for the
// index named name (or, unnamed, on cols) of table.
func (p *Decls) TakeIndexDesc(conn uint32, table, name string, cols []string) map[string]bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, k := range []string{indexDescKey(table, name, nil), indexDescKey(table, "", cols)} {
		if d, ok := p.ixDesc[conn][k]; ok {
			delete(p.ixDesc[conn], k)
			return d
		}
	}
	return nil
}

// noteIndexDesc records the DESC columns of the index definitions of a
// CREATE TABLE, CREATE INDEX or ALTER TABLE statement.
func (p *Decls) noteIndexDesc(conn uint32, stmt sqlparser.Statement) {
	note := func(table, name string, cols []*sqlparser.IndexColumn) {
		desc := map[string]bool{}
		var names []string
		for _, c := range cols {
			names = append(names, c.Column.String())
			if strings.EqualFold(c.Order, "desc") {
				desc[strings.ToLower(c.Column.String())] = true
			}
		}
		if len(desc) > 0 {
			p.setIndexDesc(conn, indexDescKey(table, name, names), desc)
		}
	}
	switch st := stmt.(type) {
	case *sqlparser.DDL:
		if st.TableSpec == nil {
			return
		}
		for _, idx := range st.TableSpec.Indexes {
			if idx.Info != nil && !idx.Info.Primary {
				note(st.Table.Name.String(), idx.Info.Name.String(), idx.Columns)
			}
		}
	case *sqlparser.AlterTable:
		for _, s := range st.Statements {
			if s.IndexSpec != nil && strings.EqualFold(s.IndexSpec.Action, "create") {
				note(st.Table.Name.String(), s.IndexSpec.ToName.String(), s.IndexSpec.Columns)
			}
		}
	}
}

func (p *Decls) set(conn uint32, table string, d Decl) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[uint32]map[string]Decl{}
	}
	if p.m[conn] == nil {
		p.m[conn] = map[string]Decl{}
	}
	p.m[conn][strings.ToLower(table)] = d
}

// Take returns (and forgets) what the CREATE TABLE of table being executed
// on connection conn declares.
func (p *Decls) Take(conn uint32, table string) (Decl, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	d, ok := p.m[conn][strings.ToLower(table)]
	if ok {
		delete(p.m[conn], strings.ToLower(table))
	}
	return d, ok
}

// Clear forgets what the statements of connection conn declared (the
// statement ended).
func (p *Decls) Clear(conn uint32) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.m, conn)
	delete(p.ixDesc, conn)
}

// NotePartitionBy records the PARTITION BY clause of query, if it is a
// CREATE TABLE with one. Cheap for every other statement.
func (p *Decls) NotePartitionBy(conn uint32, query string) {
	q := strings.TrimSpace(query)
	if len(q) >= 6 && strings.EqualFold(q[:6], "rename") {
		p.noteRename(conn, q)
		return
	}
	isAlter := len(q) >= 5 && strings.EqualFold(q[:5], "alter")
	if !isAlter && (len(q) < 6 || !strings.EqualFold(q[:6], "create")) {
		return
	}
	p.mu.Lock()
	delete(p.ixDesc, conn) // a new DDL statement: nothing left from a failed one
	p.mu.Unlock()
	if lq := strings.ToLower(q); !strings.Contains(lq, "partition") && !strings.Contains(lq, "desc") {
		return
	}
	stmt, _, err := sqlparser.ParseOne(context.Background(), q)
	if err != nil {
		return // the engine reports the syntax error
	}
	p.noteIndexDesc(conn, stmt)
	if isAlter {
		return
	}
	ddl, ok := stmt.(*sqlparser.DDL)
	if !ok || ddl.TableSpec == nil {
		return
	}
	table := ddl.Table.Name.String()
	var d Decl
	for _, idx := range ddl.TableSpec.Indexes {
		if idx.Info == nil || !idx.Info.Primary {
			continue
		}
		for _, c := range idx.Columns {
			if strings.EqualFold(c.Order, "desc") {
				if d.Desc == nil {
					d.Desc = map[string]bool{}
				}
				d.Desc[strings.ToLower(c.Column.String())] = true
			}
		}
	}
	if po := ddl.TableSpec.PartitionOpt; po != nil {
		d.Cols, d.Salt, d.Err = partitionOption(table, po)
	}
	p.set(conn, table, d)
}

// partitionOption maps a CREATE TABLE's PARTITION BY clause onto the
// partition key and the salt buckets, or says why it cannot.
func partitionOption(table string, po *sqlparser.PartitionOption) (cols []string, salt int, err error) {
	kind := strings.ToUpper(po.PartitionType)
	hint := "use PARTITION BY KEY(columns) [PARTITIONS n], or COMMENT 'sqlgw: partition_key=(columns) salt_buckets=n'"
	switch {
	case kind != "KEY" && kind != "HASH":
		return nil, 0, mysqlerr.Unsupported(fmt.Sprintf("table %s: PARTITION BY %s is not supported; %s", table, kind, hint))
	case po.SubPartition != nil:
		return nil, 0, mysqlerr.Unsupported(fmt.Sprintf("table %s: SUBPARTITION BY is not supported; %s", table, hint))
	case len(po.Definitions) > 0:
		return nil, 0, mysqlerr.Unsupported(fmt.Sprintf("table %s: explicit partition definitions are not supported; %s", table, hint))
	}
	switch kind {
	case "KEY":
		if len(po.ColList) == 0 {
			return nil, 0, mysqlerr.Unsupported(fmt.Sprintf("table %s: PARTITION BY KEY() needs its columns (the partition key is a list of primary-key columns)", table))
		}
		for _, c := range po.ColList {
			cols = append(cols, c.String())
		}
	case "HASH":
		col, ok := po.Expr.(*sqlparser.ColName)
		if !ok || !col.Qualifier.IsEmpty() {
			return nil, 0, mysqlerr.Unsupported(fmt.Sprintf("table %s: PARTITION BY HASH of an expression is not supported, only of a primary-key column; %s", table, hint))
		}
		cols = []string{col.Name.String()}
	}
	salt = 1
	if po.Partitions != nil {
		n, perr := strconv.Atoi(string(po.Partitions.Val))
		if perr != nil || n < 1 || n > catalog.MaxSaltBuckets {
			return nil, 0, mysqlerr.Unsupported(fmt.Sprintf("table %s: PARTITIONS %s: sqlgw salts a table into 1 to %d buckets", table, string(po.Partitions.Val), catalog.MaxSaltBuckets))
		}
		salt = n
	}
	return cols, salt, nil
}

// renameKey is the Decls entry of a RENAME TABLE statement.
const renameKey = "\x00rename"

// RenameError returns (and forgets) why the RENAME TABLE being executed on
// connection conn cannot be (noteRename), nil if it can.
func (p *Decls) RenameError(conn uint32) error {
	if d, ok := p.Take(conn, renameKey); ok {
		return d.Err
	}
	return nil
}

// noteRename records an error for a RENAME TABLE that moves a table to
// another database: go-mysql-server drops the target database and would
// rename within the source database instead.
func (p *Decls) noteRename(conn uint32, q string) {
	stmt, _, err := sqlparser.ParseOne(context.Background(), q)
	if err != nil {
		return
	}
	ddl, ok := stmt.(*sqlparser.DDL)
	if !ok || ddl.Action != sqlparser.RenameStr {
		return
	}
	for i := range ddl.FromTables {
		if i >= len(ddl.ToTables) {
			break
		}
		from, to := ddl.FromTables[i].DbQualifier.String(), ddl.ToTables[i].DbQualifier.String()
		if to != "" && !strings.EqualFold(from, to) {
			p.set(conn, renameKey, Decl{Err: mysqlerr.Unsupported(fmt.Sprintf(
				"RENAME TABLE %s TO %s.%s: moving a table to another database is not supported yet",
				ddl.FromTables[i].Name.String(), to, ddl.ToTables[i].Name.String()))})
			return
		}
	}
}
