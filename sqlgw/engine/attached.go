package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/planner"
	"github.com/sqlgw/sqlgw/storage"
)

// Attached tables (catalog/attached.go has the mapping)
//
// With Config.Attach.Database set, NewServer attaches every store table
// that sqlgw did not create (its name does not start with the catalog
// prefix) and that is not attached yet, as a table of that database
// (created when missing), inferring its columns from its first
// Config.Attach.Scan entities. The mapping is a catalog record, so it
// survives restarts and every gateway on the store shares it.
//
//	REFRESH TABLE db.tbl [, db.tbl] ...
//
//	REFRESH TABLE db.tbl TYPES BY prop | TYPES BY ROWKEY PREFIX 'sep'
//
// (sqlgw's own statements, answered in the CHECK TABLE result format)
// infers an attached table's columns again; naming a store table that is
// not attached yet, in the attach database, attaches it. DROP TABLE
// detaches (the store table stays), ALTER TABLE ... RENAME COLUMN renames
// a column without touching the property, ALTER TABLE ... MODIFY pins a
// property column's type (REFRESH keeps it), ADD COLUMN maps another
// property by its exact name, DROP COLUMN moves a property back into the
// JSON column. TYPES BY attaches one table per entity type of the table
// (catalog/attached_types.go; the store wrapper sqlgw/engine/typedstore
// restricts every request on such a table to its type).
//
// Planning: the key columns are the raw PartitionKey and RowKey, so every
// access path applies (point get, MultiGet, partition scan, key ranges);
// comparisons on property columns are pushed into $filter where the
// column's EDM type compares as SQL (catalog Column.Pushdown), projection
// becomes $select of the properties, LIMIT becomes $top. A raw key's
// successor is the key plus " " (PrefixEnd), and no query is capped below
// RowKeyEnd: an attached table's partitions hold no sqlgw entities.

// Store tables created after startup are attached when a statement names
// one in the attach database (attachOnMiss), and listing that database's
// tables looks for new ones at most every attachSyncEvery.
//
// AttachConfig configures attached tables (Config.Attach).
type AttachConfig struct {
	// Database receives the attached tables; "" attaches nothing.
	Database string
	// Scan is how many entities an inference reads per table (default
	// catalog.DefaultAttachScan).
	Scan int
	// Tables, when not empty, restricts automatic attaching (at startup,
	// and of tables created later) to the store tables named there
	// (REFRESH TABLE still attaches any other).
	Tables []string
}

// attachedPlannerColumn adjusts the planner's view of an attached table's
// column: the key and Timestamp columns are system properties that every
// entity carries, so nothing needs selecting for them.
func attachedPlannerColumn(c *catalog.Column, pc *planner.Column) {
	switch c.Role {
	case catalog.RolePartitionKey, catalog.RoleRowKey, catalog.RoleTimestamp:
		pc.Stored = []string{}
	case catalog.RoleExtras:
		pc.Prop = ""
	}
}

// attachedPrefixEnd is PrefixEnd for raw keys: the smallest legal key
// after prefix (keys cannot hold U+0000-U+001F, so prefix + " ").
func attachedPrefixEnd(prefix string) string { return prefix + " " }

func (g *Gateway) AttachTables(ctx context.Context, cfg AttachConfig) ([]string, error) {
	if cfg.Database == "" {
		return nil, nil
	}
	g.attach = cfg
	g.attachSynced.Store(time.Now().UnixNano())
	res, err := g.Catalog.SyncAttached(MetaCtx(ctx), cfg.Database, cfg.Scan, cfg.Tables...)
	if err != nil {
		return nil, fmt.Errorf("sqlgw: attaching the store's tables: %w", err)
	}
	return res.Attached, nil
}

// adminRefresh is REFRESH TABLE for one table.
func (g *Gateway) AdminRefresh(ctx context.Context, t AdminTable, name string, res *AdminResult) error {
	mctx := MetaCtx(ctx)
	meta, err := g.Catalog.Table(mctx, t.DB, t.Name)
	switch {
	case errors.Is(err, catalog.ErrNoTable) || errors.Is(err, catalog.ErrNoDatabase):
		if g.attach.Database == "" || !strings.EqualFold(t.DB, g.attach.Database) {
			res.Add(name, OpRefresh, "Error", fmt.Sprintf("Table '%s' doesn't exist", name))
			res.Add(name, OpRefresh, "status", "Operation failed")
			return nil
		}
		phys, ok, lerr := g.findStoreTable(mctx, t.Name)
		if lerr != nil {
			return mapError(lerr)
		}
		if !ok || g.Catalog.IsOwnPhysical(phys) {
			res.Add(name, OpRefresh, "Error", fmt.Sprintf("Table '%s' doesn't exist, and the store has no table %s to attach", name, t.Name))
			res.Add(name, OpRefresh, "status", "Operation failed")
			return nil
		}
		if err := g.Catalog.CreateDatabase(mctx, g.attach.Database); err != nil && !errors.Is(err, catalog.ErrDatabaseExists) {
			return mapError(err)
		}
		if _, err := g.Catalog.AttachTable(mctx, g.attach.Database, phys, phys, g.attach.Scan); err != nil {
			return mapError(err)
		}
		res.Add(name, OpRefresh, "note", "attached store table "+phys)
		res.Add(name, OpRefresh, "status", "OK")
		return nil
	case err != nil:
		return mapError(err)
	case !meta.IsAttached():
		res.Add(name, OpRefresh, "note", "The table is sqlgw's own: its columns are not inferred")
		res.Add(name, OpRefresh, "status", "OK")
		return nil
	}
	nt, err := g.Catalog.RefreshAttached(mctx, t.DB, t.Name, g.attach.Scan)
	if err != nil {
		if errors.Is(err, storage.ErrNotFound) {
			res.Add(name, OpRefresh, "Error", fmt.Sprintf("The store table %s no longer exists", meta.Physical))
			res.Add(name, OpRefresh, "status", "Operation failed")
			return nil
		}
		return mapError(err)
	}
	res.Add(name, OpRefresh, "note", fmt.Sprintf("%d columns inferred from up to %d entities", len(nt.Columns), nt.Attached.Scan))
	if len(nt.Indexes) > 0 {
		// Bring the indexes up to the entities (attached_index.go).
		if err := g.AdminRepair(ctx, nt, name, res); err != nil {
			return err
		}
	}
	res.Add(name, OpRefresh, "status", "OK")
	return nil
}

// findStoreTable returns the store's table named name (case-insensitive).
func (g *Gateway) findStoreTable(ctx context.Context, name string) (string, bool, error) {
	names, err := g.store.ListTables(ctx)
	if err != nil {
		return "", false, err
	}
	for _, n := range names {
		if strings.EqualFold(n, name) {
			return n, true, nil
		}
	}
	return "", false, nil
}

// adminRefreshTypes is REFRESH TABLE tbl TYPES BY ...: one attached table
// per entity type (catalog.AttachEntityTypes), a row per type.
func (g *Gateway) AdminRefreshTypes(ctx context.Context, t AdminTable, name string, by catalog.TypesBy, res *AdminResult) error {
	types, err := g.Catalog.AttachEntityTypes(MetaCtx(ctx), t.DB, t.Name, by, g.attach.Scan)
	switch {
	case errors.Is(err, catalog.ErrNoTable) || errors.Is(err, catalog.ErrNoDatabase):
		res.Add(name, OpRefresh, "Error", fmt.Sprintf("Table '%s' doesn't exist", name))
		res.Add(name, OpRefresh, "status", "Operation failed")
		return nil
	case errors.Is(err, catalog.ErrInvalidDef):
		res.Add(name, OpRefresh, "Error", "TYPES BY needs an attached table (not sqlgw's own, nor one entity type's)")
		res.Add(name, OpRefresh, "status", "Operation failed")
		return nil
	case err != nil:
		return mapError(err)
	}
	for _, ty := range types {
		verb := "refreshed"
		if ty.New {
			verb = "attached"
		}
		res.Add(name, OpRefresh, "note", fmt.Sprintf("%s %s.%s for %s (%d columns)", verb, t.DB, ty.Table, ty.Type, ty.Columns))
	}
	if len(types) == 0 {
		res.Add(name, OpRefresh, "note", "no entity carries the discriminator")
	}
	res.Add(name, OpRefresh, "status", "OK")
	return nil
}

// attachSyncEvery bounds how often listing the attach database's tables
// (SHOW TABLES, information_schema, USE) looks for new store tables.
const attachSyncEvery = 5 * time.Second

// syncAttachedLazily attaches store tables created since the last look,
// at most once per attachSyncEvery, when db is the attach database. Its
// requests are the gateway's, not the session's (metaCtx). Failures are
// logged: listing what is attached already still works.
func (g *Gateway) syncAttachedLazily(ctx context.Context, db string) {
	if g.attach.Database == "" || !strings.EqualFold(db, g.attach.Database) {
		return
	}
	now := time.Now().UnixNano()
	last := g.attachSynced.Load()
	if now-last < int64(attachSyncEvery) || !g.attachSynced.CompareAndSwap(last, now) {
		return
	}
	if _, err := g.Catalog.SyncAttached(MetaCtx(ctx), g.attach.Database, g.attach.Scan, g.attach.Tables...); err != nil {
		g.logger().Warn("sqlgw: attaching new store tables", "error", err)
	}
}

// attachOnMiss attaches store table name when a statement names it in the
// attach database and it is not attached yet (a TableExists request, the
// gateway's, not the session's). It reports whether the table is attached now.
func (g *Gateway) attachOnMiss(ctx context.Context, db, name string) bool {
	if g.attach.Database == "" || !strings.EqualFold(db, g.attach.Database) || storage.ValidateTableName(name) != nil || g.Catalog.IsOwnPhysical(name) {
		return false
	}
	if len(g.attach.Tables) > 0 && !slices.ContainsFunc(g.attach.Tables, func(t string) bool { return strings.EqualFold(t, name) }) {
		return false
	}
	mctx := MetaCtx(ctx)
	if exists, err := g.store.TableExists(mctx, name); err != nil || !exists {
		return false
	}
	phys, ok, err := g.findStoreTable(mctx, name) // its spelling
	if err != nil || !ok {
		return false
	}
	if err := g.Catalog.CreateDatabase(mctx, g.attach.Database); err != nil && !errors.Is(err, catalog.ErrDatabaseExists) {
		return false
	}
	_, err = g.Catalog.AttachTable(mctx, g.attach.Database, phys, phys, g.attach.Scan)
	return err == nil || errors.Is(err, catalog.ErrTableExists)
}
