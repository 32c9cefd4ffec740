package views

import (
	"context"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/sqlgw/sqlgw/sqlgw/mysqlerr"
	"github.com/sqlgw/sqlgw/storage"
)

// View definitions live in the store, in the physical table
// Prefix+"views" (the catalog's prefix; the catalog's own tables are
// Prefix+"catalog" and Prefix+"t…"/"x…", so the name cannot collide), one
// entity per view: PartitionKey = hex of the lower-cased database name,
// RowKey = hex of the lower-cased view name, properties N (name as
// written), T (the SELECT text), C (the CREATE VIEW statement) and M (the
// SQL mode). go-mysql-server asks for view definitions before every table
// lookup, so they are served from a cache reloaded (one query, not counted
// to the session) at most once per viewTTL; a gateway sees its own changes
// at once and other gateways' within viewTTL.

const viewTTL = time.Second

// Store is the view definitions of one catalog.
type Store struct {
	store     storage.Store
	table     string
	uncounted func(context.Context) context.Context

	mu     sync.Mutex
	loaded time.Time
	views  map[string]sql.ViewDefinition // by viewKey
}

// New returns the view definitions kept in store's table table. Every
// request is made with the context uncounted returns for the statement's
// (catalog reads are billed to no session).
func New(store storage.Store, table string, uncounted func(context.Context) context.Context) *Store {
	return &Store{store: store, table: table, uncounted: uncounted}
}

func viewKey(db, name string) string { return strings.ToLower(db) + "\x00" + strings.ToLower(name) }

func hexKey(s string) string { return hex.EncodeToString([]byte(strings.ToLower(s))) }

// all returns the cached definitions, reloading them when stale.
func (v *Store) all(ctx context.Context) (map[string]sql.ViewDefinition, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.views != nil && time.Since(v.loaded) < viewTTL {
		return v.views, nil
	}
	views := map[string]sql.ViewDefinition{}
	q := &storage.Query{}
	for {
		page, err := v.store.Query(v.uncounted(ctx), v.table, q)
		if errors.Is(err, storage.ErrNotFound) {
			break // no view was ever created
		}
		if err != nil {
			return nil, mysqlerr.FromStore(err)
		}
		for _, e := range page.Entities {
			db, err := hex.DecodeString(e.PartitionKey)
			if err != nil {
				continue
			}
			d := sql.ViewDefinition{
				Name:                e.Properties["N"].Str(),
				TextDefinition:      e.Properties["T"].Str(),
				CreateViewStatement: e.Properties["C"].Str(),
				SqlMode:             e.Properties["M"].Str(),
			}
			views[viewKey(string(db), d.Name)] = d
		}
		if page.Continuation == "" {
			break
		}
		q.Continuation = page.Continuation
	}
	v.views, v.loaded = views, time.Now()
	return views, nil
}

func (v *Store) invalidate() {
	v.mu.Lock()
	v.views = nil
	v.mu.Unlock()
}

// Get returns the definition of view name of database db, and whether
// there is one.
func (v *Store) Get(ctx context.Context, db, name string) (sql.ViewDefinition, bool, error) {
	all, err := v.all(ctx)
	if err != nil {
		return sql.ViewDefinition{}, false, err
	}
	d, ok := all[viewKey(db, name)]
	return d, ok, nil
}

// List returns the views of database db.
func (v *Store) List(ctx context.Context, db string) ([]sql.ViewDefinition, error) {
	all, err := v.all(ctx)
	if err != nil {
		return nil, err
	}
	prefix := strings.ToLower(db) + "\x00"
	var out []sql.ViewDefinition
	for k, d := range all {
		if strings.HasPrefix(k, prefix) {
			out = append(out, d)
		}
	}
	return out, nil
}

// Create stores the definition of a new view of database db
// (sql.ErrExistingView when there is one of that name).
func (v *Store) Create(ctx context.Context, db string, d sql.ViewDefinition) error {
	defer v.invalidate()
	mctx := v.uncounted(ctx)
	if err := v.store.CreateTable(mctx, v.table); err != nil && !errors.Is(err, storage.ErrAlreadyExists) {
		return mysqlerr.FromStore(err)
	}
	e := &storage.Entity{PartitionKey: hexKey(db), RowKey: hexKey(d.Name), Properties: storage.Properties{
		"N": storage.String(d.Name), "T": storage.String(d.TextDefinition),
		"C": storage.String(d.CreateViewStatement), "M": storage.String(d.SqlMode),
	}}
	_, err := v.store.Insert(mctx, v.table, e)
	if errors.Is(err, storage.ErrAlreadyExists) {
		return sql.ErrExistingView.New(db, d.Name)
	}
	return mysqlerr.FromStore(err)
}

// Drop removes view name of database db (sql.ErrViewDoesNotExist when
// there is none).
func (v *Store) Drop(ctx context.Context, db, name string) error {
	defer v.invalidate()
	err := v.store.Delete(v.uncounted(ctx), v.table, hexKey(db), hexKey(name), storage.ETagAny)
	if errors.Is(err, storage.ErrNotFound) {
		return sql.ErrViewDoesNotExist.New(db, name)
	}
	return mysqlerr.FromStore(err)
}

// DropAll removes the views of a dropped database.
func (v *Store) DropAll(ctx context.Context, db string) error {
	views, err := v.List(ctx, db)
	if err != nil {
		return err
	}
	for _, d := range views {
		if err := v.Drop(ctx, db, d.Name); err != nil && !sql.ErrViewDoesNotExist.Is(err) {
			return err
		}
	}
	return nil
}
