package catalog

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlgw/sqlgw/storage"
)

// Options configure a Catalog.
type Options struct {
	// Prefix starts every physical table name this catalog creates,
	// including its own (Prefix+"catalog"), so that two deployments can share
	// one account. Letters and digits, starting with a letter, at most 40
	// characters. Default "sqlgw".
	Prefix string
	// RefreshInterval is how long cached metadata is trusted before the next
	// read checks the version entity (one store request). Default 250 ms;
	// negative means check on every read. A read past half of it starts
	// the check in the background (refresh.go).
	RefreshInterval time.Duration
	// AutoIncrementBlock is how many AUTO_INCREMENT values one store request
	// reserves for this catalog. Default 100.
	AutoIncrementBlock uint64
	// MaxRetries bounds the attempts of one DDL change against concurrent
	// changes before ErrConflict. Default 100.
	MaxRetries int
	// Now returns the current time; tests replace it. Default time.Now.
	Now func() time.Time
}

// Catalog is the schema of one sqlgw deployment, persisted in its store. It
// is safe for concurrent use. Several Catalogs (in one process or in several
// gateways) may share one store: every change is an ETag-guarded
// read-modify-write of the catalog's version entity, retried on conflict,
// so no change is lost; a Catalog notices the others' changes within
// Options.RefreshInterval, or at once after Refresh.
type Catalog struct {
	store storage.Store
	opts  Options
	table string // the reserved catalog table

	refreshMu sync.Mutex // serialises refreshes
	mu        sync.Mutex // guards snap, checkedAt and aheadAt
	snap      *snapshot
	checkedAt time.Time
	aheadAt   time.Time // when the last background version check started
	// checked is snap and checkedAt, stored together whenever mu changes
	// them, so that current serves a snapshot in the first half of its
	// refresh interval without taking mu: every statement asks for it
	// (the plan cache's validity check), from every connection (issue 13,
	// seventh round).
	checked atomic.Pointer[checkedSnap]
	ahead   atomic.Bool // a background version check is in flight (refresh.go)

	aiMu sync.Mutex
	ai   map[aiKey]*aiBlock
	// aiWant is the size of a table's next AUTO_INCREMENT reservation
	// when a statement said how many values it will take
	// (WantAutoIncrement).
	aiWant map[aiKey]uint64
}

// checkedSnap is a cached snapshot and when its version was last checked.
type checkedSnap struct {
	snap *snapshot
	at   time.Time
}

// Store returns the store the catalog lives in.
func (c *Catalog) Store() storage.Store { return c.store }

// CatalogTable returns the name of the reserved physical table holding the
// catalog (Prefix+"catalog").
func (c *Catalog) CatalogTable() string { return c.table }

type aiKey struct {
	id  uint64
	gen uint32
}

// aiBlock is a reserved range [next, limit) of AUTO_INCREMENT values.
type aiBlock struct {
	next, limit uint64
}
