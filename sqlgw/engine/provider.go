package engine

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw/engine/compat"
	"github.com/sqlgw/sqlgw/sqlgw/engine/ddldecl"
)

// provider is the engine's view of the catalog's databases.
type provider struct {
	gw *Gateway
}

var (
	_ sql.CollatedDatabaseProvider = (*provider)(nil)
	_ sql.FunctionProvider         = (*provider)(nil)
)

// Function implements sql.FunctionProvider, which the analyzer's catalog
// asks before its built-in registry: the string functions that read an
// ENUM or SET column by its string (compat/enum_in_functions.go), and
// ROUND and TRUNCATE typed as MySQL types them (compat/round.go).
func (p *provider) Function(ctx *sql.Context, name string) (sql.Function, bool) {
	if f, ok := compat.RoundFunction(name); ok {
		return f, true
	}
	return compat.EnumStringFunction(ctx, name)
}

// CreateCollatedDatabase implements sql.CollatedDatabaseProvider. sqlgw
// databases have no default collation of their own: the collation of a
// CREATE DATABASE is accepted (dumps always carry one) and new tables use
// go-mysql-server's default (utf8mb4_0900_bin) unless they name another.
func (p *provider) CreateCollatedDatabase(ctx *sql.Context, name string, _ sql.CollationID) error {
	return p.CreateDatabase(ctx, name)
}

func (p *provider) Database(ctx *sql.Context, name string) (sql.Database, error) {
	ok, err := p.gw.Catalog.DatabaseExists(MetaCtx(ctx), name)
	if err == nil && !ok {
		p.gw.syncAttachedLazily(ctx, name) // attached.go: created with its first table
		ok, err = p.gw.Catalog.DatabaseExists(MetaCtx(ctx), name)
	}
	if err != nil {
		return nil, mapError(err)
	}
	if !ok {
		if db, ok := dropAbsent(ctx, name); ok { // dropabsent.go
			return db, nil
		}
		return nil, sql.ErrDatabaseNotFound.New(name)
	}
	names, err := p.gw.Catalog.Databases(MetaCtx(ctx))
	if err != nil {
		return nil, mapError(err)
	}
	for _, n := range names {
		if strings.EqualFold(n, name) {
			return &Database{gw: p.gw, name: n}, nil
		}
	}
	return &Database{gw: p.gw, name: name}, nil
}

func (p *provider) HasDatabase(ctx *sql.Context, name string) bool {
	ok, err := p.gw.Catalog.DatabaseExists(MetaCtx(ctx), name)
	if err == nil && !ok {
		p.gw.syncAttachedLazily(ctx, name) // attached.go
		ok, err = p.gw.Catalog.DatabaseExists(MetaCtx(ctx), name)
	}
	return err == nil && ok
}

func (p *provider) AllDatabases(ctx *sql.Context) []sql.Database {
	names, err := p.gw.Catalog.Databases(MetaCtx(ctx))
	if err != nil {
		ctx.GetLogger().Warnf("sqlgw: listing databases: %v", err)
		return nil
	}
	dbs := make([]sql.Database, len(names))
	for i, n := range names {
		dbs[i] = &Database{gw: p.gw, name: n}
	}
	return dbs
}

func (p *provider) CreateDatabase(ctx *sql.Context, name string) error {
	err := p.gw.Catalog.CreateDatabase(MetaCtx(ctx), name)
	if errors.Is(err, catalog.ErrDatabaseExists) {
		return sql.ErrDatabaseExists.New(name)
	}
	return mapError(err)
}

func (p *provider) DropDatabase(ctx *sql.Context, name string) error {
	if err := p.gw.Views.DropAll(ctx, name); err != nil {
		return err
	}
	err := p.gw.Catalog.DropDatabase(MetaCtx(ctx), name)
	if errors.Is(err, catalog.ErrNoDatabase) {
		return sql.ErrDatabaseNotFound.New(name)
	}
	return mapError(err)
}

// Database is one catalog database.
type Database struct {
	gw   *Gateway
	name string
}

var (
	_ sql.Database        = (*Database)(nil)
	_ sql.TableCreator    = (*Database)(nil)
	_ sql.TableDropper    = (*Database)(nil)
	_ sql.TableRenamer    = (*Database)(nil)
	_ sql.SchemaValidator = (*Database)(nil)
)

func (d *Database) Name() string { return d.name }

func (d *Database) GetTableInsensitive(ctx *sql.Context, name string) (sql.Table, bool, error) {
	meta, err := d.gw.Catalog.Table(MetaCtx(ctx), d.name, name)
	if errors.Is(err, catalog.ErrNoTable) && d.gw.attachOnMiss(ctx, d.name, name) { // attached.go
		meta, err = d.gw.Catalog.Table(MetaCtx(ctx), d.name, name)
	}
	if errors.Is(err, catalog.ErrNoTable) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, mapError(err)
	}
	t, err := d.table(ctx, meta)
	if err != nil {
		return nil, false, err
	}
	if meta.Group != "" {
		sessionOf(ctx).noteGroupTable(ctx, meta) // tablegroup.go
	}
	return t, true, nil
}

func (d *Database) table(ctx *sql.Context, meta *catalog.Table) (*Table, error) {
	ti, err := d.gw.info(ctx, meta)
	if err != nil {
		return nil, err
	}
	return &Table{db: d, gw: d.gw, info: ti}, nil
}

func (d *Database) GetTableNames(ctx *sql.Context) ([]string, error) {
	d.gw.syncAttachedLazily(ctx, d.name) // attached.go
	ts, err := d.gw.Catalog.Tables(MetaCtx(ctx), d.name)
	if err != nil {
		return nil, mapError(err)
	}
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name
	}
	sort.Strings(names)
	return names, nil
}

// ValidateSchema rejects, at CREATE TABLE analysis time, column types and
// attributes sqlgw cannot store, with a MySQL error naming the column.
func (d *Database) ValidateSchema(schema sql.Schema) error {
	for _, c := range schema {
		if _, err := catalogType(c.Name, c.Type); err != nil {
			return err
		}
		if err := catalogColumnFeatures(&catalog.Column{}, c); err != nil {
			return err
		}
	}
	return nil
}

// CreateTable implements sql.TableCreator.
func (d *Database) CreateTable(ctx *sql.Context, name string, schema sql.PrimaryKeySchema, collation sql.CollationID, comment string) error {
	if err := d.ValidateSchema(schema.Schema); err != nil {
		return err
	}
	def := &catalog.TableDef{Name: name, Comment: comment, Collation: collation.Name()}
	for _, c := range schema.Schema {
		if err := zeroDefaultError(ctx, c); err != nil { // zerodate.go
			return err
		}
		ct, err := catalogType(c.Name, c.Type)
		if err != nil {
			return err
		}
		col := catalog.Column{
			Name:          c.Name,
			Type:          ct,
			Nullable:      c.Nullable,
			AutoIncrement: c.AutoIncrement,
			Comment:       c.Comment,
		}
		if c.Default != nil {
			col.Default, col.HasDefault = defaultText(c.Default), true
		}
		if err := catalogColumnFeatures(&col, c); err != nil {
			return err
		}
		def.Columns = append(def.Columns, col)
	}
	applyTimePrecisionAll(ctx, def.Columns)            // TIME(n), time_precision.go
	decl, _ := d.gw.Parts.Take(ctx.Session.ID(), name) // what the connection handler read from the statement (sqlgw/engine/ddldecl)
	like := d.likeSource(ctx)                          // CREATE TABLE ... LIKE (sqlgw/engine/ddldecl)
	if like != nil && comment == "" {
		comment, def.Comment = like.Comment, like.Comment
	}
	for _, ord := range schema.PkOrdinals {
		col := schema.Schema[ord].Name
		desc := decl.Desc[strings.ToLower(col)]
		if like != nil {
			for _, kp := range like.PrimaryKey {
				if strings.EqualFold(kp.Column, col) {
					desc = kp.Desc
				}
			}
		}
		def.PrimaryKey = append(def.PrimaryKey, catalog.KeyPart{Column: col, Desc: desc})
	}
	opts, err := catalog.ParseTableOptions(comment)
	if err != nil {
		return mapError(err)
	}
	def.PartitionKey = opts.PartitionKey
	def.Group = opts.Group // catalog/group.go
	if decl.Err != nil {
		return decl.Err
	}
	if pk := decl.Cols; pk != nil {
		if def.PartitionKey != nil {
			return errUnsupported.New("table " + name + ": both PARTITION BY KEY and a partition_key comment option")
		}
		def.PartitionKey = pk
		// SHOW CREATE TABLE cannot print PARTITION BY (the engine does not
		// know it); recording it as the comment option makes it visible
		// and lets a dump recreate the same keys.
		quoted := make([]string, len(pk))
		for i, c := range pk {
			quoted[i] = "`" + strings.ReplaceAll(c, "`", "``") + "`"
		}
		def.Comment = appendTableOption(def.Comment, "partition_key=("+strings.Join(quoted, ", ")+")")
	}
	def.SaltBuckets = opts.SaltBuckets
	if decl.Salt > 1 { // PARTITIONS n (sqlgw/engine/ddldecl)
		if opts.SaltBuckets != 0 {
			return errUnsupported.New("table " + name + ": both PARTITIONS and a salt_buckets comment option")
		}
		def.SaltBuckets = decl.Salt
		def.Comment = appendTableOption(def.Comment, "salt_buckets="+strconv.Itoa(decl.Salt))
	}
	if def.SaltBuckets > 1 && len(def.PrimaryKey) == 0 {
		return mapError(fmt.Errorf("%w: table %s: salt_buckets needs a primary key (a keyless table has one partition)", catalog.ErrInvalidDef, name))
	}
	if len(def.PartitionKey) > 0 && len(def.PrimaryKey) == 0 {
		return mapError(fmt.Errorf("%w: table %s: a partition key needs a primary key", catalog.ErrInvalidDef, name))
	}
	nt, err := d.gw.Catalog.CreateTable(MetaCtx(ctx), d.name, def)
	if errors.Is(err, catalog.ErrTableExists) {
		return sql.ErrTableAlreadyExists.New(name) // IF NOT EXISTS relies on this kind
	}
	if err != nil {
		return mapError(err)
	}
	d.gw.setRowCount(nt.Physical, 0)
	return nil
}

// DropTable implements sql.TableDropper.
func (d *Database) DropTable(ctx *sql.Context, name string) error {
	d.noteDroppedTriggers(ctx, name) // triggers.go
	var phys string
	if t, err := d.gw.Catalog.Table(MetaCtx(ctx), d.name, name); err == nil && t != nil {
		phys = t.Physical
	}
	if err := d.gw.Catalog.DropTable(MetaCtx(ctx), d.name, name); err != nil {
		return mapError(err)
	}
	if phys != "" {
		d.gw.dropStats(ctx, phys) // stats.go
	}
	return nil
}

// RenameTable implements sql.TableRenamer.
func (d *Database) RenameTable(ctx *sql.Context, oldName, newName string) error {
	if err := d.gw.Parts.RenameError(ctx.Session.ID()); err != nil {
		return err
	}
	if err := d.renameWithTriggers(ctx, oldName); err != nil {
		return err
	}
	_, err := d.gw.Catalog.RenameTable(MetaCtx(ctx), d.name, oldName, d.name, newName)
	return mapError(err)
}

// createTableHook runs before CREATE TABLE executes. go-mysql-server creates
// the table first and its secondary indexes, foreign keys and checks
// afterwards, so a failure there would leave a half-created table; this
// rejects what sqlgw does not support before anything is created, and
// rejects table options sqlgw would otherwise silently ignore.
func (g *Gateway) createTableHook(ctx *sql.Context, _ sql.StatementRunner, n sql.Node) (sql.Node, error) {
	ct, ok := n.(*plan.CreateTable)
	if !ok {
		return n, nil
	}
	for _, idx := range ct.Indexes() {
		if idx.IsPrimary() || g.ignoreIndexes {
			continue
		}
		// Secondary indexes are created by CreateIndex right after the
		// table (secondary.go); reject what CreateIndex would, first.
		if idx.IsFullText() || idx.IsSpatial() || idx.IsVector() {
			return nil, errUnsupported.New(fmt.Sprintf("table %s: FULLTEXT, SPATIAL and VECTOR indexes (%s) are not supported", ct.Name(), strings.Join(idx.ColumnNames(), ", ")))
		}
		for _, c := range idx.Columns {
			if c.Length > 0 {
				return nil, errUnsupported.New(fmt.Sprintf("table %s: index prefix lengths (%s(%d)) are not supported", ct.Name(), c.Name, c.Length))
			}
		}
		if _, err := catalog.ParseIndexOptions(idx.Comment); err != nil {
			return nil, mapError(err)
		}
		if err := virtualIndexError(ct.Name(), ct.PkSchema().Schema, idx.Name, idx.Columns, idx.Comment); err != nil {
			return nil, err
		}
	}
	if len(ct.ForeignKeys()) > 0 && len(ct.PkSchema().PkOrdinals) == 0 {
		// The constraint's index (foreignkeys.go) needs a primary key.
		return nil, errUnsupported.New(fmt.Sprintf("table %s: foreign keys need a primary key on the declaring table", ct.Name()))
	}
	for _, fk := range ct.ForeignKeys() {
		if err := checkActions(fk); err != nil {
			return nil, err
		}
	}
	// CHECK constraints are stored by CreateCheck (generated_check_onupdate.go).
	if err := g.checkNamesFree(ctx, ct.Database().Name(), ct.Name(), ct.Checks()); err != nil {
		return nil, err
	}
	if len(ct.Checks()) > 0 && hasVirtual(ct.PkSchema().Schema) {
		return nil, errChecksWithVirtual(ct.Name())
	}
	for opt := range ct.TableOpts {
		switch opt {
		case "comment", "auto_increment", "character set", "charset", "collate",
			// Accepted and ignored, as every MySQL-compatible engine without
			// storage engines does: dumps always carry them.
			"engine", "row_format", "stats_persistent", "pack_keys", "checksum", "delay_key_write", "avg_row_length":
		default:
			return nil, errUnsupported.New(fmt.Sprintf("table %s: table option %s is not supported", ct.Name(), strings.ToUpper(opt)))
		}
	}
	return n, nil
}

// Views are stored by sqlgw/engine/views, triggers by triggers.go. Stored
// procedures are not stored yet: the database reports none, and creating one is
// ER_NOT_SUPPORTED_YET (the engine's privilege layer needs these interfaces
// to answer "none" rather than fail every statement).
var (
	_ sql.ViewDatabase            = (*Database)(nil)
	_ sql.TriggerDatabase         = (*Database)(nil)
	_ sql.StoredProcedureDatabase = (*Database)(nil)
)

func (d *Database) CreateView(ctx *sql.Context, name string, selectStatement, createViewStmt string) error {
	return d.gw.Views.Create(ctx, d.name, sql.ViewDefinition{Name: name, TextDefinition: selectStatement,
		CreateViewStatement: createViewStmt, SqlMode: sql.LoadSqlMode(ctx).String()})
}

func (d *Database) DropView(ctx *sql.Context, name string) error {
	return d.gw.Views.Drop(ctx, d.name, name)
}

func (d *Database) GetViewDefinition(ctx *sql.Context, viewName string) (sql.ViewDefinition, bool, error) {
	return d.gw.Views.Get(ctx, d.name, viewName)
}

// AllViews lists the views the session's account may see
// (accounts_visible.go).
func (d *Database) AllViews(ctx *sql.Context) ([]sql.ViewDefinition, error) {
	views, err := d.gw.Views.List(ctx, d.name)
	if err != nil {
		return nil, err
	}
	return visibleViews(ctx, d.name, views), nil
}

// Triggers are stored by triggers.go.

func (d *Database) GetStoredProcedure(ctx *sql.Context, name string) (sql.StoredProcedureDetails, bool, error) {
	return sql.StoredProcedureDetails{}, false, nil
}

func (d *Database) GetStoredProcedures(ctx *sql.Context) ([]sql.StoredProcedureDetails, error) {
	return nil, nil
}

func (d *Database) SaveStoredProcedure(ctx *sql.Context, spd sql.StoredProcedureDetails) error {
	return errUnsupported.New("stored procedures (CREATE PROCEDURE " + spd.Name + ") are not supported yet")
}

func (d *Database) DropStoredProcedure(ctx *sql.Context, name string) error {
	return sql.ErrStoredProcedureDoesNotExist.New(name)
}

// Events are not stored: the database reports none (information_schema.EVENTS
// and SHOW EVENTS answer empty), and CREATE EVENT is ER_NOT_SUPPORTED_YET.
var _ sql.EventDatabase = (*Database)(nil)

func (d *Database) GetEvent(ctx *sql.Context, name string) (sql.EventDefinition, bool, error) {
	return sql.EventDefinition{}, false, nil
}

func (d *Database) GetEvents(ctx *sql.Context) ([]sql.EventDefinition, interface{}, error) {
	return nil, nil, nil
}

func (d *Database) SaveEvent(ctx *sql.Context, ed sql.EventDefinition) (bool, error) {
	return false, errUnsupported.New("events (CREATE EVENT " + ed.Name + ") are not supported yet")
}

func (d *Database) DropEvent(ctx *sql.Context, name string) error {
	return sql.ErrEventDoesNotExist.New(name)
}

func (d *Database) UpdateEvent(ctx *sql.Context, originalName string, ed sql.EventDefinition) (bool, error) {
	return false, errUnsupported.New("events (ALTER EVENT " + originalName + ") are not supported yet")
}

func (d *Database) UpdateLastExecuted(ctx *sql.Context, eventName string, lastExecuted time.Time) error {
	return nil
}

func (d *Database) NeedsToReloadEvents(ctx *sql.Context, token interface{}) (bool, error) {
	return false, nil
}

// appendTableOption appends a sqlgw option ("salt_buckets=4") to a table
// comment, after its "sqlgw:" options if it has some.
func appendTableOption(comment, opt string) string {
	if strings.Contains(strings.ToLower(comment), "sqlgw:") {
		return strings.TrimSpace(comment + " " + opt)
	}
	return strings.TrimSpace(comment + " sqlgw: " + opt)
}

// likeSource returns the catalog table a CREATE TABLE ... LIKE statement
// copies (ddldecl.LikeSource), or nil for any other statement.
func (d *Database) likeSource(ctx *sql.Context) *catalog.Table {
	db, name, ok := ddldecl.LikeSource(ctx.Query())
	if !ok {
		return nil
	}
	if db == "" {
		db = d.name
	}
	t, err := d.gw.Catalog.Table(MetaCtx(ctx), db, name)
	if err != nil {
		return nil
	}
	return t
}
