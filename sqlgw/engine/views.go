package engine

import (
	"context"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/sqlgw/sqlgw/storage"
)

// Views
//
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

type viewStore struct {
	g     *Gateway
	table string

	mu     sync.Mutex
	loaded time.Time
	views  map[string]sql.ViewDefinition // by viewKey
}

func viewKey(db, name string) string { return strings.ToLower(db) + "\x00" + strings.ToLower(name) }

func hexKey(s string) string { return hex.EncodeToString([]byte(strings.ToLower(s))) }

// all returns the cached definitions, reloading them when stale.
func (v *viewStore) all(ctx context.Context) (map[string]sql.ViewDefinition, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.views != nil && time.Since(v.loaded) < viewTTL {
		return v.views, nil
	}
	views := map[string]sql.ViewDefinition{}
	q := &storage.Query{}
	for {
		page, err := v.g.store.Query(MetaCtx(ctx), v.table, q)
		if errors.Is(err, storage.ErrNotFound) {
			break // no view was ever created
		}
		if err != nil {
			return nil, mapError(err)
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

func (v *viewStore) invalidate() {
	v.mu.Lock()
	v.views = nil
	v.mu.Unlock()
}

func (v *viewStore) Get(ctx context.Context, db, name string) (sql.ViewDefinition, bool, error) {
	all, err := v.all(ctx)
	if err != nil {
		return sql.ViewDefinition{}, false, err
	}
	d, ok := all[viewKey(db, name)]
	return d, ok, nil
}

func (v *viewStore) list(ctx context.Context, db string) ([]sql.ViewDefinition, error) {
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

func (v *viewStore) create(ctx context.Context, db string, d sql.ViewDefinition) error {
	defer v.invalidate()
	mctx := MetaCtx(ctx)
	if err := v.g.store.CreateTable(mctx, v.table); err != nil && !errors.Is(err, storage.ErrAlreadyExists) {
		return mapError(err)
	}
	e := &storage.Entity{PartitionKey: hexKey(db), RowKey: hexKey(d.Name), Properties: storage.Properties{
		"N": storage.String(d.Name), "T": storage.String(d.TextDefinition),
		"C": storage.String(d.CreateViewStatement), "M": storage.String(d.SqlMode),
	}}
	_, err := v.g.store.Insert(mctx, v.table, e)
	if errors.Is(err, storage.ErrAlreadyExists) {
		return sql.ErrExistingView.New(db, d.Name)
	}
	return mapError(err)
}

func (v *viewStore) drop(ctx context.Context, db, name string) error {
	defer v.invalidate()
	err := v.g.store.Delete(MetaCtx(ctx), v.table, hexKey(db), hexKey(name), storage.ETagAny)
	if errors.Is(err, storage.ErrNotFound) {
		return sql.ErrViewDoesNotExist.New(db, name)
	}
	return mapError(err)
}

// dropAll removes the views of a dropped database.
func (v *viewStore) dropAll(ctx context.Context, db string) error {
	views, err := v.list(ctx, db)
	if err != nil {
		return err
	}
	for _, d := range views {
		if err := v.drop(ctx, db, d.Name); err != nil && !sql.ErrViewDoesNotExist.Is(err) {
			return err
		}
	}
	return nil
}
