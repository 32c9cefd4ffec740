package catalog

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sqlgw/sqlgw/catalog/keys"
	"github.com/sqlgw/sqlgw/storage"
)

// Layout of the catalog table. Part of the persisted format.
const (
	catalogPartition = "c"      // version, database and table entities
	autoIncPartition = "a"      // AUTO_INCREMENT counters
	versionRowKey    = "v"      // the version entity
	dbRowPrefix      = "d"      // + string component of the lower-case database name
	tableRowPrefix   = "t"      // + integer component of the table ID
	propVersion      = "ver"    // version entity: catalog version (Int64)
	propNextID       = "nextid" // version entity: last table ID given (Int64)
	propName         = "name"   // database entity: the name as created
	propDef          = "def"    // table entity: the Table record as JSON (split like a TEXT value)
	propNext         = "next"   // counter entity: next AUTO_INCREMENT value, as uint64 XOR 2^63 (Int64)
)

func dbRowKey(name string) string {
	return dbRowPrefix + string(keys.EncodeStringAscending(nil, strings.ToLower(name)))
}

func tableRowKey(id uint64) string {
	return tableRowPrefix + string(keys.EncodeUintAscending(nil, id))
}

func autoIncRowKey(id uint64, gen uint32) string {
	return string(keys.EncodeUintAscending(keys.EncodeUintAscending(nil, id), uint64(gen)))
}

// Open opens the catalog kept in store, creating its reserved table on first
// use. Two Opens on one store (in one process or in two gateways) see the
// same schema.
func Open(ctx context.Context, store storage.Store, opts Options) (*Catalog, error) {
	if opts.Prefix == "" {
		opts.Prefix = "sqlgw"
	}
	if len(opts.Prefix) > 40 || storage.ValidateTableName(opts.Prefix+"catalog") != nil {
		return nil, fmt.Errorf("%w: table name prefix %q must be letters and digits, starting with a letter, at most 40", ErrInvalidDef, opts.Prefix)
	}
	if opts.RefreshInterval == 0 {
		opts.RefreshInterval = 250 * time.Millisecond
	}
	if opts.AutoIncrementBlock == 0 {
		opts.AutoIncrementBlock = 100
	}
	if opts.MaxRetries <= 0 {
		opts.MaxRetries = 100
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	c := &Catalog{store: store, opts: opts, table: opts.Prefix + "catalog", ai: map[aiKey]*aiBlock{}}
	if err := store.CreateTable(ctx, c.table); err != nil && !errors.Is(err, storage.ErrAlreadyExists) {
		return nil, fmt.Errorf("catalog: creating %s: %w", c.table, err)
	}
	_, err := store.Insert(ctx, c.table, &storage.Entity{PartitionKey: catalogPartition, RowKey: versionRowKey,
		Properties: storage.Properties{propVersion: storage.Int64(0), propNextID: storage.Int64(0)}})
	if err != nil && !errors.Is(err, storage.ErrAlreadyExists) {
		return nil, fmt.Errorf("catalog: initialising %s: %w", c.table, err)
	}
	if _, err := c.refresh(ctx, true); err != nil {
		return nil, err
	}
	return c, nil
}

// snapshot is one consistent version of the whole catalog. Snapshots are
// immutable once installed; DDL works on a copy (clone).
type snapshot struct {
	version uint64
	nextID  uint64
	etag    storage.ETag                 // of the version entity
	dbs     map[string]string            // lower name -> name
	tables  map[string]map[string]*Table // lower db -> lower name -> table
}

func (s *snapshot) clone() *snapshot {
	n := &snapshot{version: s.version, nextID: s.nextID, etag: s.etag,
		dbs: make(map[string]string, len(s.dbs)), tables: make(map[string]map[string]*Table, len(s.tables))}
	for k, v := range s.dbs {
		n.dbs[k] = v
	}
	for db, ts := range s.tables {
		m := make(map[string]*Table, len(ts))
		for k, v := range ts {
			m[k] = v
		}
		n.tables[db] = m
	}
	return n
}

func (s *snapshot) table(db, name string) (*Table, error) {
	if _, ok := s.dbs[strings.ToLower(db)]; !ok {
		return nil, fmt.Errorf("%w: %q", ErrNoDatabase, db)
	}
	t, ok := s.tables[strings.ToLower(db)][strings.ToLower(name)]
	if !ok {
		return nil, fmt.Errorf("%w: %s.%s", ErrNoTable, db, name)
	}
	return t, nil
}

// Refresh reloads the catalog if another Catalog changed it (one store
// request when nothing changed). The gateway calls it when a physical table
// is not found or a write conflicts in a way a stale schema could explain.
func (c *Catalog) Refresh(ctx context.Context) error {
	_, err := c.refresh(ctx, true)
	return err
}

// current returns the cached snapshot, checking the version entity first
// if the last check is older than RefreshInterval. A snapshot past half
// its interval is still served, and checked again in the background
// (startRefreshAhead, refresh.go).
func (c *Catalog) current(ctx context.Context) (*snapshot, error) {
	if iv := c.opts.RefreshInterval; iv > 0 {
		// Fresh and not yet due for a check ahead: what the locked path
		// below would return, without the lock.
		if cs := c.checked.Load(); cs != nil && c.opts.Now().Sub(cs.at) < iv/2 {
			return cs.snap, nil
		}
	}
	c.mu.Lock()
	s := c.snap
	iv := c.opts.RefreshInterval
	fresh, ahead := false, false
	if s != nil && iv > 0 {
		now := c.opts.Now()
		age := now.Sub(c.checkedAt)
		fresh = age < iv
		ahead = fresh && age >= iv/2 && c.aheadDue(now)
	}
	c.mu.Unlock()
	if ahead {
		c.startRefreshAhead()
	}
	if fresh {
		return s, nil
	}
	return c.refresh(ctx, false)
}

// refresh checks the version entity and reloads the catalog if it moved.
// Concurrent refreshes are collapsed: a caller that waited for another
// refresh uses its result unless force is set.
func (c *Catalog) refresh(ctx context.Context, force bool) (*snapshot, error) {
	start := c.opts.Now()
	c.refreshMu.Lock()
	defer c.refreshMu.Unlock()
	c.mu.Lock()
	if !force && c.snap != nil && !c.checkedAt.Before(start) {
		s := c.snap
		c.mu.Unlock()
		return s, nil
	}
	cached := c.snap
	c.mu.Unlock()
	checked := c.opts.Now()
	v, err := c.store.Get(ctx, c.table, catalogPartition, versionRowKey, nil)
	if err != nil {
		return nil, fmt.Errorf("catalog: reading version: %w", err)
	}
	if cached != nil && v.ETag == cached.etag {
		c.mu.Lock()
		c.checkedAt = checked
		c.checked.Store(&checkedSnap{snap: c.snap, at: checked})
		c.mu.Unlock()
		return cached, nil
	}
	for attempt := 0; ; attempt++ {
		s, err := c.load(ctx, v)
		if err == nil {
			c.install(s, checked)
			return s, nil
		}
		if !errors.Is(err, errMoved) || attempt >= c.opts.MaxRetries {
			return nil, err
		}
		if v, err = c.store.Get(ctx, c.table, catalogPartition, versionRowKey, nil); err != nil {
			return nil, fmt.Errorf("catalog: reading version: %w", err)
		}
	}
}

// Version returns the catalog version this Catalog has cached (no store
// request): every change up to it was committed before the call, so a
// store snapshot taken after it sees every index made ready by then
// (Index.ReadyVersion). 0 before the first load.
func (c *Catalog) Version() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snap == nil {
		return 0
	}
	return c.snap.version
}

// StoredVersion reads the catalog version from the store (one request,
// bypassing the cache). A ctx carrying a store snapshot the catalog's
// store honours (the embedded store's own, storage.WithSnapshot) reads
// the version committed before that snapshot: sqlgw/engine/snapshot.go
// asks it when the version it cached before the snapshot was older than
// a table or index change.
func (c *Catalog) StoredVersion(ctx context.Context) (uint64, error) {
	v, err := c.store.Get(ctx, c.table, catalogPartition, versionRowKey, &storage.GetOptions{Select: []string{propVersion}})
	if err != nil {
		return 0, fmt.Errorf("catalog: reading version: %w", err)
	}
	return uint64(v.Properties[propVersion].Int()), nil
}

// install makes s the cached snapshot unless a newer one is installed.
func (c *Catalog) install(s *snapshot, checked time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snap == nil || s.version >= c.snap.version {
		c.snap = s
		c.checkedAt = checked
		c.checked.Store(&checkedSnap{snap: s, at: checked})
	}
}

var errMoved = errors.New("catalog: version moved during load")

// load reads the whole catalog partition. v is the version entity read
// just before; if it changed by the end of the scan, the scan may mix
// versions and load returns errMoved.
func (c *Catalog) load(ctx context.Context, v *storage.Entity) (*snapshot, error) {
	s := &snapshot{etag: v.ETag, dbs: map[string]string{}, tables: map[string]map[string]*Table{}}
	s.version = uint64(v.Properties[propVersion].Int())
	s.nextID = uint64(v.Properties[propNextID].Int())
	limits := c.store.Capabilities().Limits
	q := &storage.Query{Partition: storage.Exactly(catalogPartition)}
	var ents []*storage.Entity
	for {
		page, err := c.store.Query(ctx, c.table, q)
		if err != nil {
			return nil, fmt.Errorf("catalog: loading: %w", err)
		}
		ents = append(ents, page.Entities...)
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	after, err := c.store.Get(ctx, c.table, catalogPartition, versionRowKey, nil)
	if err != nil {
		return nil, fmt.Errorf("catalog: reading version: %w", err)
	}
	if after.ETag != v.ETag {
		return nil, errMoved
	}
	var tables []*Table
	for _, e := range ents {
		switch {
		case strings.HasPrefix(e.RowKey, dbRowPrefix):
			name := e.Properties[propName].Str()
			s.dbs[strings.ToLower(name)] = name
			s.tables[strings.ToLower(name)] = map[string]*Table{}
		case strings.HasPrefix(e.RowKey, tableRowPrefix):
			def, err := reassemble(e.Properties, propDef, e.Properties[propDef])
			if err != nil {
				return nil, fmt.Errorf("catalog: table entity %q: %w", e.RowKey, err)
			}
			t := &Table{}
			if err := json.Unmarshal([]byte(def.Str()), t); err != nil {
				return nil, fmt.Errorf("catalog: table entity %q: %w", e.RowKey, err)
			}
			if err := t.derive(limits); err != nil {
				return nil, fmt.Errorf("catalog: table entity %q: %w", e.RowKey, err)
			}
			tables = append(tables, t)
		}
	}
	for _, t := range tables {
		m := s.tables[strings.ToLower(t.Database)]
		if m == nil {
			return nil, fmt.Errorf("catalog: table %q of unknown database %q", t.Name, t.Database)
		}
		m[strings.ToLower(t.Name)] = t
	}
	return s, nil
}

// txn collects the writes of one DDL change besides the version entity.
type txn struct {
	ops []storage.Operation
	// after runs once the change committed (deleting physical tables).
	after []func(ctx context.Context)
}

// addTable adds a copy of proto to the snapshot's database lower with
// the next table ID and the version this mutation writes, and returns it.
func (s *snapshot) addTable(lower string, proto *Table) *Table {
	t := proto.clone()
	s.nextID++
	t.ID = s.nextID
	t.Database = s.dbs[lower]
	t.Version = s.version + 1
	t.DefVersion = t.Version
	s.tables[lower][strings.ToLower(t.Name)] = t
	return t
}

func (tx *txn) putTable(t *Table) error {
	js, err := json.Marshal(t)
	if err != nil {
		return err
	}
	props := appendSplit(nil, propDef, storage.String(string(js)))
	e := &storage.Entity{PartitionKey: catalogPartition, RowKey: tableRowKey(t.ID), Properties: storage.Properties{}}
	for _, p := range props {
		e.Properties[p.name] = p.v
	}
	tx.ops = append(tx.ops, storage.Operation{Kind: storage.OpUpsert, Mode: storage.Replace, Entity: e})
	return nil
}

func (tx *txn) deleteTable(id uint64) {
	tx.ops = append(tx.ops, storage.Operation{Kind: storage.OpDelete,
		Entity: &storage.Entity{PartitionKey: catalogPartition, RowKey: tableRowKey(id)}})
}

// mutate applies fn to a copy of the latest catalog and commits the result
// atomically, guarded by the version entity's ETag; on a conflict it
// reloads and runs fn again. fn must be deterministic given the snapshot
// and must not have side effects outside s and tx.
func (c *Catalog) mutate(ctx context.Context, fn func(s *snapshot, tx *txn) error) (*snapshot, error) {
	for attempt := 0; attempt < c.opts.MaxRetries; attempt++ {
		// The first attempt trusts the cache: a stale one fails the
		// If-Match and the next attempt reloads.
		var cur *snapshot
		var err error
		if attempt == 0 {
			cur, err = c.current(ctx)
		} else {
			cur, err = c.refresh(ctx, true)
		}
		if err != nil {
			return nil, err
		}
		s := cur.clone()
		tx := &txn{}
		if err := fn(s, tx); err != nil {
			if attempt == 0 {
				continue // maybe only the cache is stale: check again
			}
			return nil, err
		}
		s.version++
		ver := &storage.Entity{PartitionKey: catalogPartition, RowKey: versionRowKey, Properties: storage.Properties{
			propVersion: storage.Int64(int64(s.version)), propNextID: storage.Int64(int64(s.nextID))}}
		ops := append([]storage.Operation{{Kind: storage.OpUpdate, Mode: storage.Replace, Entity: ver, IfMatch: cur.etag}}, tx.ops...)
		if len(ops) > storage.MaxBatchOps {
			return nil, fmt.Errorf("%w: one change touching %d catalog entities", ErrUnsupported, len(ops))
		}
		etags, err := c.store.Batch(ctx, c.table, ops)
		if err != nil {
			if errors.Is(err, storage.ErrPreconditionFailed) || errors.Is(err, storage.ErrNotFound) || errors.Is(err, storage.ErrAlreadyExists) {
				continue // another catalog committed first: reload and redo
			}
			return nil, fmt.Errorf("catalog: committing: %w", err)
		}
		s.etag = etags[0]
		c.install(s, c.opts.Now())
		for _, f := range tx.after {
			f(ctx)
		}
		return s, nil
	}
	return nil, ErrConflict
}

// newPhysicalName returns a fresh physical table name: the prefix, a kind
// letter and 12 random base-36 characters.
func (c *Catalog) newPhysicalName(kind byte) string {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	var raw [physicalRandLen]byte
	if _, err := rand.Read(raw[:]); err != nil {
		panic(err)
	}
	b := []byte(c.opts.Prefix)
	b = append(b, kind)
	for _, x := range raw {
		b = append(b, digits[int(x)%len(digits)])
	}
	return string(b)
}

// physicalRandLen is the length of a physical name's random tail, after
// its kind byte ('t' a table, 'x' a global index).
const physicalRandLen = 12

// IsIndexPhysical reports whether name has the form of a global index's
// physical table: a kind byte 'x' before the random tail. The server
// names such tables to its store as read by partition
// (storage.PartitionReads; the Pebble store gives them partition bloom
// filters): a table misjudged (a store table of another program of that
// form) only reads with other filters.
func IsIndexPhysical(name string) bool {
	return len(name) > physicalRandLen && name[len(name)-physicalRandLen-1] == 'x'
}

// createPhysical creates a fresh physical table and returns its name.
func (c *Catalog) createPhysical(ctx context.Context, kind byte) (string, error) {
	for range 5 {
		name := c.newPhysicalName(kind)
		err := c.store.CreateTable(ctx, name)
		if err == nil {
			return name, nil
		}
		if !errors.Is(err, storage.ErrAlreadyExists) {
			return "", fmt.Errorf("catalog: creating physical table: %w", err)
		}
	}
	return "", fmt.Errorf("catalog: could not find a free physical table name")
}

// dropPhysical deletes physical tables after a change committed; failures
// leave an orphan table, harmless to correctness.
func (c *Catalog) dropPhysical(names ...string) func(ctx context.Context) {
	return func(ctx context.Context) {
		for _, n := range names {
			if _, _, member := ParseGroupPhysical(n); member {
				_ = DeleteGroupMember(ctx, c.store, n) // group.go: its entities only
			} else if n != "" {
				_ = c.store.DeleteTable(ctx, n)
			}
		}
	}
}

func physicalNames(t *Table) []string {
	names := []string{t.Physical}
	if t.IsAttached() {
		names = nil // the store table is not sqlgw's: dropping only detaches it
	}
	for _, ix := range t.Indexes {
		if ix.Physical != "" {
			names = append(names, ix.Physical)
		}
	}
	return names
}

// CreateDatabase creates a database. Errors: ErrDatabaseExists.
func (c *Catalog) CreateDatabase(ctx context.Context, name string) error {
	if name == "" {
		return fmt.Errorf("%w: empty database name", ErrInvalidDef)
	}
	_, err := c.mutate(ctx, func(s *snapshot, tx *txn) error {
		if _, ok := s.dbs[strings.ToLower(name)]; ok {
			return fmt.Errorf("%w: %q", ErrDatabaseExists, name)
		}
		s.dbs[strings.ToLower(name)] = name
		s.tables[strings.ToLower(name)] = map[string]*Table{}
		tx.ops = append(tx.ops, storage.Operation{Kind: storage.OpInsert, Entity: &storage.Entity{
			PartitionKey: catalogPartition, RowKey: dbRowKey(name), Properties: storage.Properties{propName: storage.String(name)}}})
		return nil
	})
	return err
}

// DropDatabase drops a database with all its tables (their physical tables
// are deleted after the catalog change commits). Errors: ErrNoDatabase.
func (c *Catalog) DropDatabase(ctx context.Context, name string) error {
	const perChange = storage.MaxBatchOps - 2
	for {
		done := false
		_, err := c.mutate(ctx, func(s *snapshot, tx *txn) error {
			done = false // this attempt decides
			lower := strings.ToLower(name)
			if _, ok := s.dbs[lower]; !ok {
				return fmt.Errorf("%w: %q", ErrNoDatabase, name)
			}
			ts := s.tables[lower]
			ids := make([]string, 0, len(ts))
			for k := range ts {
				ids = append(ids, k)
			}
			slices.Sort(ids)
			if len(ids) > perChange {
				ids = ids[:perChange]
			} else {
				delete(s.dbs, lower)
				tx.ops = append(tx.ops, storage.Operation{Kind: storage.OpDelete,
					Entity: &storage.Entity{PartitionKey: catalogPartition, RowKey: dbRowKey(name)}})
				done = true
			}
			var phys []string
			var grouped []*Table
			for _, k := range ids {
				t := ts[k]
				tx.deleteTable(t.ID)
				if t.Group != "" {
					grouped = append(grouped, t)
				} else {
					phys = append(phys, physicalNames(t)...)
				}
				delete(s.tables[lower], k)
			}
			for _, t := range grouped {
				for _, n := range groupDropNames(s, t) { // group.go
					if !slices.Contains(phys, n) {
						phys = append(phys, n)
					}
				}
			}
			if done {
				delete(s.tables, lower)
			}
			tx.after = append(tx.after, c.dropPhysical(phys...))
			return nil
		})
		if err != nil || done {
			return err
		}
	}
}

// Databases returns the database names in case-insensitive order.
func (c *Catalog) Databases(ctx context.Context) ([]string, error) {
	s, err := c.current(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(s.dbs))
	for _, n := range s.dbs {
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	return out, nil
}

// DatabaseExists reports whether the database exists (case-insensitive).
func (c *Catalog) DatabaseExists(ctx context.Context, name string) (bool, error) {
	s, err := c.current(ctx)
	if err != nil {
		return false, err
	}
	_, ok := s.dbs[strings.ToLower(name)]
	return ok, nil
}

// CreateTable creates a table and its physical table(s) and returns its
// record. Errors: ErrNoDatabase, ErrTableExists, ErrInvalidDef, ErrUnsupported.
func (c *Catalog) CreateTable(ctx context.Context, db string, def *TableDef) (*Table, error) {
	limits := c.store.Capabilities().Limits
	proto, err := newTable(def, limits)
	if err != nil {
		return nil, err
	}
	proto.AutoIncrementStart = def.AutoIncrement
	if def.Group != "" {
		return c.createGroupMember(ctx, db, def, proto) // group.go
	}
	var created []string
	if proto.Physical, err = c.createPhysical(ctx, 't'); err != nil {
		return nil, err
	}
	created = append(created, proto.Physical)
	for i := range proto.Indexes {
		if proto.Indexes[i].Global {
			if proto.Indexes[i].Physical, err = c.createPhysical(ctx, 'x'); err != nil {
				c.dropPhysical(created...)(ctx)
				return nil, err
			}
			created = append(created, proto.Indexes[i].Physical)
		}
	}
	var out *Table
	_, err = c.mutate(ctx, func(s *snapshot, tx *txn) error {
		lower := strings.ToLower(db)
		if _, ok := s.dbs[lower]; !ok {
			return fmt.Errorf("%w: %q", ErrNoDatabase, db)
		}
		if _, ok := s.tables[lower][strings.ToLower(def.Name)]; ok {
			return fmt.Errorf("%w: %s.%s", ErrTableExists, db, def.Name)
		}
		out = s.addTable(lower, proto)
		return tx.putTable(out)
	})
	if err != nil {
		c.dropPhysical(created...)(ctx)
		return nil, err
	}
	return out, nil
}

// alterTable is the read-modify-write of one table record.
func (c *Catalog) alterTable(ctx context.Context, db, name string, fn func(s *snapshot, t *Table, tx *txn) error) (*Table, error) {
	var out *Table
	_, err := c.mutate(ctx, func(s *snapshot, tx *txn) error {
		old, err := s.table(db, name)
		if err != nil {
			return err
		}
		t := old.clone()
		if err := fn(s, t, tx); err != nil {
			return err
		}
		if err := t.derive(old.limits); err != nil {
			return err
		}
		t.Version = s.version + 1
		delete(s.tables[strings.ToLower(db)], strings.ToLower(name))
		s.tables[strings.ToLower(t.Database)][strings.ToLower(t.Name)] = t
		out = t
		return tx.putTable(t)
	})
	return out, err
}

// DropTable drops a table; its physical tables are deleted after the
// catalog change commits. Errors: ErrNoTable.
func (c *Catalog) DropTable(ctx context.Context, db, name string) error {
	_, err := c.mutate(ctx, func(s *snapshot, tx *txn) error {
		t, err := s.table(db, name)
		if err != nil {
			return err
		}
		delete(s.tables[strings.ToLower(db)], strings.ToLower(name))
		tx.deleteTable(t.ID)
		names := physicalNames(t)
		if t.Group != "" {
			names = groupDropNames(s, t) // group.go: the other members stay
		}
		tx.after = append(tx.after, c.dropPhysical(names...), c.dropCounter(t))
		return nil
	})
	return err
}

// RenameTable renames (and possibly moves) a table. Metadata only: the
// physical table and property names stay. Errors: ErrNoTable,
// ErrTableExists, ErrNoDatabase.
func (c *Catalog) RenameTable(ctx context.Context, db, name, newDB, newName string) (*Table, error) {
	if newName == "" {
		return nil, fmt.Errorf("%w: empty table name", ErrInvalidDef)
	}
	return c.alterTable(ctx, db, name, func(s *snapshot, t *Table, tx *txn) error {
		nd, ok := s.dbs[strings.ToLower(newDB)]
		if !ok {
			return fmt.Errorf("%w: %q", ErrNoDatabase, newDB)
		}
		if other, ok := s.tables[strings.ToLower(newDB)][strings.ToLower(newName)]; ok && other.ID != t.ID {
			return fmt.Errorf("%w: %s.%s", ErrTableExists, newDB, newName)
		}
		t.Database, t.Name = nd, newName
		return nil
	})
}

// TruncateTable gives the table a fresh, empty physical table (a new
// generation), deletes the old one, and resets the AUTO_INCREMENT counter.
func (c *Catalog) TruncateTable(ctx context.Context, db, name string) (*Table, error) {
	s, err := c.current(ctx)
	if err != nil {
		return nil, err
	}
	old, err := s.table(db, name)
	if err != nil {
		return nil, err
	}
	if old.IsAttached() {
		return nil, fmt.Errorf("%w: TRUNCATE of attached table %s.%s (its store table is not sqlgw's to replace; DELETE its rows instead)", ErrUnsupported, db, name)
	}
	// Global indexes get fresh store tables; so does the table, unless it
	// is a group member, which gets a fresh member id (its new RowKey
	// prefix in the group's table, group.go) when the change commits.
	fresh := map[string]string{}
	var created []string
	for _, p := range physicalNames(old) {
		kind := byte('x')
		if p == old.Physical {
			if old.Group != "" {
				continue
			}
			kind = 't'
		}
		n, err := c.createPhysical(ctx, kind)
		if err != nil {
			c.dropPhysical(created...)(ctx)
			return nil, err
		}
		fresh[p] = n
		created = append(created, n)
	}
	t, err := c.alterTable(ctx, db, name, func(s *snapshot, t *Table, tx *txn) error {
		if t.ID != old.ID {
			return fmt.Errorf("%w: %s.%s was replaced concurrently", ErrConflict, db, name)
		}
		if t.Physical != old.Physical {
			return fmt.Errorf("%w: %s.%s was truncated concurrently", ErrConflict, db, name)
		}
		replaced := physicalNames(t)
		oldT := t.clone()
		if t.Group != "" {
			base, _, _ := ParseGroupPhysical(t.Physical)
			s.nextID++
			t.Physical = GroupPhysical(base, s.nextID)
		} else {
			t.Physical = fresh[t.Physical]
		}
		for i := range t.Indexes {
			if t.Indexes[i].Physical != "" {
				n, ok := fresh[t.Indexes[i].Physical]
				if !ok {
					return fmt.Errorf("%w: %s.%s: indexes changed concurrently", ErrConflict, db, name)
				}
				t.Indexes[i].Physical = n
			}
		}
		t.Generation++
		t.KeyFormat = KeyFormatCurrent // fresh, empty key spaces: the current key format
		t.AutoIncrementStart = 0
		t.DefVersion = s.version + 1 // alterTable's version
		tx.after = append(tx.after, c.dropPhysical(replaced...), c.dropCounter(oldT))
		return nil
	})
	if err != nil {
		c.dropPhysical(created...)(ctx)
		return nil, err
	}
	return t, nil
}

// Table returns a table's record from the cache (checking the version
// entity at most every RefreshInterval). Errors: ErrNoDatabase, ErrNoTable.
func (c *Catalog) Table(ctx context.Context, db, name string) (*Table, error) {
	s, err := c.current(ctx)
	if err != nil {
		return nil, err
	}
	return s.table(db, name)
}

// CachedTable returns a table's record as this Catalog has it cached,
// without a store request (no refresh): every change this Catalog made is
// in it, other Catalogs' changes once a refresh has seen them. Errors:
// ErrNoDatabase, ErrNoTable, and ErrNoTable before the first load.
func (c *Catalog) CachedTable(db, name string) (*Table, error) {
	c.mu.Lock()
	s := c.snap
	c.mu.Unlock()
	if s == nil {
		return nil, fmt.Errorf("%w: %s.%s", ErrNoTable, db, name)
	}
	return s.table(db, name)
}

// Tables returns every table of a database, by name. Errors: ErrNoDatabase.
func (c *Catalog) Tables(ctx context.Context, db string) ([]*Table, error) {
	s, err := c.current(ctx)
	if err != nil {
		return nil, err
	}
	ts, ok := s.tables[strings.ToLower(db)]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNoDatabase, db)
	}
	out := make([]*Table, 0, len(ts))
	for _, t := range ts {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b *Table) int { return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)) })
	return out, nil
}

// ColumnPosition says where AddColumn and ModifyColumn put a column.
type ColumnPosition struct {
	First bool   // FIRST
	After string // AFTER column; "" and !First: last (AddColumn) or unchanged (ModifyColumn)
}

func (t *Table) place(col Column, pos ColumnPosition, at int) error {
	switch {
	case pos.First:
		at = 0
	case pos.After != "":
		i := t.ColumnIndex(pos.After)
		if i < 0 {
			return fmt.Errorf("%w: %q", ErrNoColumn, pos.After)
		}
		at = i + 1
	}
	if at < 0 || at > len(t.Columns) {
		at = len(t.Columns)
	}
	t.Columns = slices.Insert(t.Columns, at, col)
	return nil
}

// AddColumn adds a column to a table. Rows written before read the column
// as NULL: the catalog stores no value for them, so the gateway rejects (or
// backfills) a NOT NULL column without default on a non-empty table.
func (c *Catalog) AddColumn(ctx context.Context, db, table string, col Column, pos ColumnPosition) (*Table, error) {
	if err := validateColumn(&col); err != nil {
		return nil, err
	}
	return c.alterTable(ctx, db, table, func(s *snapshot, t *Table, tx *txn) error {
		if t.ColumnIndex(col.Name) >= 0 {
			return fmt.Errorf("%w: %q", ErrColumnExists, col.Name)
		}
		col.Type.Values = append([]string(nil), col.Type.Values...)
		if t.IsAttached() {
			if err := attachedNewColumn(t, &col); err != nil {
				return err
			}
		} else {
			t.assignProperty(&col)
		}
		return t.place(col, pos, len(t.Columns))
	})
}

// DropColumn drops a column. Primary-key and indexed columns are rejected
// with ErrUnsupported. Stored values stay in old entities, unread; the
// property name is retired, never reused.
func (c *Catalog) DropColumn(ctx context.Context, db, table, column string) (*Table, error) {
	return c.alterTable(ctx, db, table, func(s *snapshot, t *Table, tx *txn) error {
		i := t.ColumnIndex(column)
		if i < 0 {
			return fmt.Errorf("%w: %q", ErrNoColumn, column)
		}
		if t.usedInKey(column) {
			return fmt.Errorf("%w: column %q is part of the primary key or an index", ErrUnsupported, column)
		}
		if len(t.Columns) == 1 {
			return fmt.Errorf("%w: cannot drop the only column", ErrInvalidDef)
		}
		if t.IsAttached() {
			if t.Columns[i].Role != RoleProperty {
				return fmt.Errorf("%w: column %q of an attached table maps the entity's %s", ErrUnsupported, column, t.Columns[i].Property)
			}
			// The property stays in the entities, shown in the JSON column.
			t.Columns = slices.Delete(t.Columns, i, i+1)
			return nil
		}
		t.Retired = append(t.Retired, t.Columns[i].Property)
		t.Columns = slices.Delete(t.Columns, i, i+1)
		return nil
	})
}

func (t *Table) usedInKey(column string) bool {
	for _, kp := range t.PrimaryKey {
		if strings.EqualFold(kp.Column, column) {
			return true
		}
	}
	for _, ix := range t.Indexes {
		for _, kp := range ix.Columns {
			if strings.EqualFold(kp.Column, column) {
				return true
			}
		}
		for _, cv := range ix.Covering {
			if strings.EqualFold(cv, column) {
				return true
			}
		}
	}
	return false
}

// ModifyColumn replaces the definition of column name by col (MODIFY and
// CHANGE COLUMN: col.Name may differ, which renames; key and index
// references follow the rename). Allowed only where every stored value
// stays valid and decodes the same: renames, comment/default/nullability
// changes, and type changes that keep the property type and widen the
// domain: a wider integer of the same signedness and property type, a
// longer CHAR/VARCHAR/BINARY/VARBINARY or a TEXT/BLOB kind at least as
// large, DECIMAL with at least as many integer and fraction digits, FLOAT
// to DOUBLE, a larger fsp, ENUM/SET members appended, a longer BIT below 64.
// Key columns additionally keep their key encoding and a binary collation.
// Anything else is ErrUnsupported; narrowings that need only a check of the
// stored values go through ModifyColumnVerified (ddl_narrow.go).
func (c *Catalog) ModifyColumn(ctx context.Context, db, table, name string, col Column, pos *ColumnPosition) (*Table, error) {
	return c.modifyColumn(ctx, db, table, name, col, pos, 0)
}

// modifyColumn is ModifyColumn; verified > 0 also accepts the narrowings of
// Narrows, provided the table's Version is still verified (ddl_narrow.go).
func (c *Catalog) modifyColumn(ctx context.Context, db, table, name string, col Column, pos *ColumnPosition, verified uint64) (*Table, error) {
	if err := validateColumn(&col); err != nil {
		return nil, err
	}
	return c.alterTable(ctx, db, table, func(s *snapshot, t *Table, tx *txn) error {
		i := t.ColumnIndex(name)
		if i < 0 {
			return fmt.Errorf("%w: %q", ErrNoColumn, name)
		}
		old := t.Columns[i]
		if j := t.ColumnIndex(col.Name); j >= 0 && j != i {
			return fmt.Errorf("%w: %q", ErrColumnExists, col.Name)
		}
		if verified != 0 && t.Version != verified {
			return fmt.Errorf("%w: %s.%s changed while its values were verified", ErrConflict, db, table)
		}
		if t.IsAttached() {
			nc, err := attachedModify(old, col)
			if err != nil {
				return err
			}
			if nc.Edm != old.Edm && t.usedInKey(old.Name) {
				// Its index entries carry the old type (attached_index.go).
				return fmt.Errorf("%w: column %q is indexed: drop its indexes before changing its property type", ErrUnsupported, old.Name)
			}
			t.renameRefs(old.Name, nc.Name)
			if pos != nil && (pos.First || pos.After != "") {
				t.Columns = slices.Delete(t.Columns, i, i+1)
				t.index()
				return t.place(nc, *pos, i)
			}
			t.Columns[i] = nc
			return nil
		}
		if err := compatible(old.Type, col.Type); err != nil {
			if verified == 0 || !Narrows(old.Type, col.Type) {
				return fmt.Errorf("column %q: %w", name, err)
			}
			t.DefVersion = s.version + 1 // a narrowing: alterTable's version
		}
		if old.Nullable && !col.Nullable {
			t.DefVersion = s.version + 1 // NULLs an older snapshot holds
		}
		key := t.usedInKey(name)
		if key {
			if err := col.Type.keyable(); err != nil {
				return fmt.Errorf("column %q: %w", name, err)
			}
		}
		col.Property = old.Property
		col.Type.Values = append([]string(nil), col.Type.Values...)
		if key {
			for _, kp := range t.PrimaryKey {
				if strings.EqualFold(kp.Column, name) {
					col.Nullable = false
				}
			}
		}
		t.renameRefs(old.Name, col.Name)
		if pos != nil && (pos.First || pos.After != "") {
			t.Columns = slices.Delete(t.Columns, i, i+1)
			t.index()
			return t.place(col, *pos, i)
		}
		t.Columns[i] = col
		return nil
	})
}

func (t *Table) renameRefs(old, new string) {
	if old == new {
		return
	}
	for i := range t.PrimaryKey {
		if strings.EqualFold(t.PrimaryKey[i].Column, old) {
			t.PrimaryKey[i].Column = new
		}
	}
	for i := range t.PartitionKey {
		if strings.EqualFold(t.PartitionKey[i], old) {
			t.PartitionKey[i] = new
		}
	}
	for i := range t.Indexes {
		ix := &t.Indexes[i]
		for j := range ix.Columns {
			if strings.EqualFold(ix.Columns[j].Column, old) {
				ix.Columns[j].Column = new
			}
		}
		for j := range ix.Covering {
			if strings.EqualFold(ix.Covering[j], old) {
				ix.Covering[j] = new
			}
		}
	}
}

// compatible reports whether values stored for type a decode unchanged as
// type b (and keep their key encoding).
func compatible(a, b Type) error {
	bad := fmt.Errorf("%w: changing %s to %s would need the stored values rewritten", ErrUnsupported, a, b)
	if a.storageType() != b.storageType() {
		return bad
	}
	size := func(k Kind) int {
		switch k {
		case KindTinyText, KindTinyBlob:
			return 1
		case KindText, KindBlob:
			return 2
		case KindMediumText, KindMediumBlob:
			return 3
		case KindLongText, KindLongBlob, KindJSON:
			return 4
		}
		return 0
	}
	switch {
	case a.Kind.IsInteger() && b.Kind.IsInteger():
		if a.Unsigned != b.Unsigned || b.Kind < a.Kind || a.wideUnsigned() != b.wideUnsigned() {
			return bad
		}
	case a.Kind.IsText() && b.Kind.IsText():
		if a.collation() != b.collation() {
			return bad
		}
		if a.Kind.IsLarge() && (!b.Kind.IsLarge() || size(b.Kind) < size(a.Kind)) {
			return bad
		}
		if !a.Kind.IsLarge() && !b.Kind.IsLarge() && (b.Length < a.Length || a.Kind == KindVarchar && b.Kind == KindChar) {
			return bad
		}
	case a.Kind.IsBinary() && b.Kind.IsBinary():
		if a.Kind.IsLarge() && (!b.Kind.IsLarge() || size(b.Kind) < size(a.Kind)) {
			return bad
		}
		if !a.Kind.IsLarge() && !b.Kind.IsLarge() && (b.Length < a.Length || a.Kind != b.Kind) {
			return bad // BINARY pads, VARBINARY does not: values differ
		}
	case a.Kind == KindDecimal && b.Kind == KindDecimal:
		if b.Scale < a.Scale || b.Precision-b.Scale < a.Precision-a.Scale {
			return bad
		}
	case (a.Kind == KindFloat || a.Kind == KindDouble) && b.Kind == KindDouble, a.Kind == KindFloat && b.Kind == KindFloat:
	case a.Kind == b.Kind && (a.Kind == KindDatetime || a.Kind == KindTimestamp || a.Kind == KindTime):
		if b.FSP < a.FSP {
			return bad
		}
	case a.Kind == b.Kind && (a.Kind == KindEnum || a.Kind == KindSet):
		if len(b.Values) < len(a.Values) {
			return bad
		}
		for i := range a.Values {
			if a.Values[i] != b.Values[i] {
				return bad
			}
		}
	case a.Kind == KindBit && b.Kind == KindBit:
		if b.Length < a.Length || a.wideUnsigned() != b.wideUnsigned() {
			return bad
		}
	case a.Kind == b.Kind && (a.Kind == KindDate || a.Kind == KindYear || a.Kind == KindJSON):
	default:
		return bad
	}
	return nil
}

// SetTableComment changes the table comment (metadata only; the partition
// key is fixed at creation).
func (c *Catalog) SetTableComment(ctx context.Context, db, table, comment string) (*Table, error) {
	return c.alterTable(ctx, db, table, func(s *snapshot, t *Table, tx *txn) error {
		t.Comment = comment
		return nil
	})
}

// AddIndex adds a secondary index in state def.State (IndexBuilding when
// 0) and creates its physical table if it is global. Errors:
// ErrIndexExists, ErrNoColumn, ErrUnsupported (a column that cannot be a
// key).
func (c *Catalog) AddIndex(ctx context.Context, db, table string, def Index) (*Table, error) {
	phys := ""
	if def.Global {
		var err error
		if phys, err = c.createPhysical(ctx, 'x'); err != nil {
			return nil, err
		}
	}
	def.Physical = phys
	t, err := c.alterTable(ctx, db, table, func(s *snapshot, t *Table, tx *txn) error {
		return t.addIndex(def)
	})
	if err != nil && phys != "" {
		c.dropPhysical(phys)(ctx)
	}
	return t, err
}

// DropIndex drops a secondary index (and deletes its physical table).
func (c *Catalog) DropIndex(ctx context.Context, db, table, index string) (*Table, error) {
	return c.alterTable(ctx, db, table, func(s *snapshot, t *Table, tx *txn) error {
		for i, ix := range t.Indexes {
			if strings.EqualFold(ix.Name, index) {
				t.Indexes = slices.Delete(t.Indexes, i, i+1)
				tx.after = append(tx.after, c.dropPhysical(ix.Physical))
				return nil
			}
		}
		return fmt.Errorf("%w: %q", ErrNoIndex, index)
	})
}

// SetIndexState changes an index's state (IndexBuilding -> IndexReady
// after backfill).
func (c *Catalog) SetIndexState(ctx context.Context, db, table, index string, state IndexState) (*Table, error) {
	if state != IndexBuilding && state != IndexReady {
		return nil, fmt.Errorf("%w: index state %v", ErrInvalidDef, state)
	}
	return c.alterTable(ctx, db, table, func(s *snapshot, t *Table, tx *txn) error {
		for i := range t.Indexes {
			if strings.EqualFold(t.Indexes[i].Name, index) {
				if state == IndexReady && t.Indexes[i].State != IndexReady {
					t.Indexes[i].ReadyVersion = s.version + 1 // alterTable's version
				}
				t.Indexes[i].State = state
				return nil
			}
		}
		return fmt.Errorf("%w: %q", ErrNoIndex, index)
	})
}
