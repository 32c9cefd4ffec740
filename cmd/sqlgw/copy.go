package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/storage"
)

// sqlgw copy
//
// The physical layout is the same on every backend (the same tables,
// entities, keys and typed properties), so moving a deployment from one
// store to another, e.g. from the embedded Pebble store to Azure when one
// machine is no longer enough, is a copy of every entity of every table the
// deployment owns (names starting with its prefix). Entities are upserted
// in batches of one partition (at most 100 operations, about 2 MiB), a few
// batches in flight, so a rerun after an interruption simply writes them
// again.
//
// The catalog table is copied last: until it is there, the destination is
// not a deployment a gateway can open, so an interrupted copy is never
// mistaken for a complete one. A destination that already holds a catalog
// is refused. At the end every table's entity count is compared between
// source and destination.
//
// The source must not change during the copy (stop the gateways, or copy
// from a Pebble directory, which the running server locks anyway).
//
// Attached tables (store tables other applications write, mapped by the
// catalog) are not sqlgw's: by default (--attached skip) their store
// tables are not copied, each one is named in a warning, and at the
// destination their catalog records map store tables of the same names
// there (absent until the applications write them: queries fail until
// then; DROP TABLE detaches). Their secondary indexes, kept in sqlgw's own
// tables, are copied; as for any attached table, REPAIR TABLE brings them
// up to the destination's entities. With --attached copy their store
// tables are copied too (same names, entities as they are), so that the
// destination is complete; a destination that already has such a table is
// refused, so that the copy never writes into another application's data.

// attachedStoreTables returns the store tables the source catalog maps as
// attached tables, with the SQL tables mapping each.
func attachedStoreTables(ctx context.Context, src storage.Store, prefix string) (map[string][]string, error) {
	cat, err := catalog.Open(ctx, src, catalog.Options{Prefix: prefix})
	if err != nil {
		return nil, err
	}
	dbs, err := cat.Databases(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for _, db := range dbs {
		ts, err := cat.Tables(ctx, db)
		if err != nil {
			return nil, err
		}
		for _, t := range ts {
			if t.IsAttached() {
				base, _, _ := catalog.ParseTypedPhysical(t.Physical)
				out[base] = append(out[base], db+"."+t.Name)
			}
		}
	}
	return out, nil
}

const copyUsage = `Usage: sqlgw copy --from STORE --to STORE [--attached skip|copy]

Copies a whole sqlgw deployment (catalog, tables, secondary indexes) from one
store to another, e.g. from the embedded store to Azure Table Storage:

  sqlgw copy --from pebble:./data --to 'azure:DefaultEndpointsProtocol=https;AccountName=...;AccountKey=...'

STORE is written as for "sqlgw serve --store" (pebble:DIR, azure:CONNECTION_STRING).
Stop the gateways that use the source first. The destination must not hold a
sqlgw deployment yet; an interrupted copy can be run again. Progress is logged
every few seconds; at the end the entity counts of every table are compared.

Attached tables (store tables other applications write) are not copied unless
--attached copy is given; their mappings and sqlgw's indexes on them are.
`

// copyBatchBytes bounds a batch's size (the stores accept 4 MiB; binary
// properties travel base64-encoded to Azure).
const copyBatchBytes = 2 << 20

// copyParallel is the number of batches in flight.
const copyParallel = 8

func copyCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("copy", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stdout, copyUsage) }
	from := fs.String("from", "", "")
	to := fs.String("to", "", "")
	prefix := fs.String("prefix", "sqlgw", "")
	attached := fs.String("attached", "skip", "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *attached != "skip" && *attached != "copy" {
		return fmt.Errorf("copy: --attached is skip or copy, not %q", *attached)
	}
	if *from == "" || *to == "" || fs.NArg() > 0 {
		fmt.Fprint(stderr, copyUsage)
		return errors.New("copy needs --from and --to")
	}
	if strings.HasPrefix(*from, "memory:") || strings.HasPrefix(*to, "memory:") {
		return errors.New("copy: memory: stores live only inside one process; copy between pebble:DIR and azure:CONNECTION_STRING")
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	src, srcName, err := openStore(ctx, *from, nil)
	if err != nil {
		return fmt.Errorf("--from: %w", err)
	}
	defer src.Close()
	dst, dstName, err := openStore(ctx, *to, nil)
	if err != nil {
		return fmt.Errorf("--to: %w", err)
	}
	defer dst.Close()
	c := &copier{src: src, dst: dst, prefix: *prefix, log: logger, copyAttached: *attached == "copy"}
	logger.Info(fmt.Sprintf("sqlgw copy: from %s to %s", srcName, dstName))
	if err := c.run(ctx); err != nil {
		return err
	}
	if err := dst.Close(); err != nil {
		return fmt.Errorf("closing the destination: %w", err)
	}
	return nil
}

type copier struct {
	src, dst storage.Store
	prefix   string
	log      *slog.Logger
	// copyAttached: copy the store tables of attached tables too.
	copyAttached bool

	copied   int64 // entities, all tables
	lastNote time.Time
}

func (c *copier) run(ctx context.Context) error {
	catalogTable := c.prefix + "catalog"
	if ok, err := c.dst.TableExists(ctx, catalogTable); err != nil {
		return fmt.Errorf("destination: %w", err)
	} else if ok {
		return fmt.Errorf("the destination already holds a sqlgw deployment (table %s); copy into an empty store", catalogTable)
	}
	all, err := c.src.ListTables(ctx)
	if err != nil {
		return fmt.Errorf("source: %w", err)
	}
	var tables []string
	hasCatalog := false
	for _, t := range all {
		switch {
		case t == catalogTable:
			hasCatalog = true
		case strings.HasPrefix(t, c.prefix):
			tables = append(tables, t)
		}
	}
	if !hasCatalog {
		return fmt.Errorf("the source holds no sqlgw deployment (no table %s)", catalogTable)
	}
	attached, err := attachedStoreTables(ctx, c.src, c.prefix)
	if err != nil {
		return fmt.Errorf("source catalog: %w", err)
	}
	for _, base := range slices.Sorted(maps.Keys(attached)) {
		if !c.copyAttached {
			c.log.Warn(fmt.Sprintf("sqlgw copy: store table %s is not copied: attached as %s, it belongs to the applications that write it (--attached copy copies it)", base, strings.Join(attached[base], ", ")))
			continue
		}
		if ok, err := c.src.TableExists(ctx, base); err != nil || !ok {
			c.log.Warn(fmt.Sprintf("sqlgw copy: attached store table %s no longer exists in the source (%v)", base, err))
			continue
		}
		if ok, err := c.dst.TableExists(ctx, base); err != nil {
			return fmt.Errorf("destination: %w", err)
		} else if ok {
			return fmt.Errorf("the destination already has a table %s, which the source's attached table %s maps: the copy does not write into another application's table", base, strings.Join(attached[base], ", "))
		}
		tables = append(tables, base)
	}
	sort.Strings(tables)
	tables = append(tables, catalogTable) // last: see the comment at the top
	start := time.Now()
	counts := map[string]int64{}
	for i, t := range tables {
		n, err := c.copyTable(ctx, t)
		if err != nil {
			return fmt.Errorf("table %s: %w", t, err)
		}
		counts[t] = n
		c.log.Info(fmt.Sprintf("sqlgw copy: table %d/%d %s: %d entities", i+1, len(tables), t, n))
	}
	for _, t := range tables {
		n, err := countEntities(ctx, c.dst, t)
		if err != nil {
			return fmt.Errorf("counting %s in the destination: %w", t, err)
		}
		if n != counts[t] {
			return fmt.Errorf("table %s: %d entities copied but the destination holds %d (did the source or destination change during the copy?)", t, counts[t], n)
		}
	}
	c.log.Info(fmt.Sprintf("sqlgw copy: done: %d tables, %d entities in %s; entity counts verified",
		len(tables), c.copied, time.Since(start).Round(time.Millisecond)))
	return nil
}

// copyTable copies one table and returns the number of entities.
func (c *copier) copyTable(ctx context.Context, table string) (int64, error) {
	if err := c.dst.CreateTable(ctx, table); err != nil && !errors.Is(err, storage.ErrAlreadyExists) {
		return 0, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		wg      sync.WaitGroup
		sem     = make(chan struct{}, copyParallel)
		errMu   sync.Mutex
		firstEr error
	)
	failed := func() error {
		errMu.Lock()
		defer errMu.Unlock()
		return firstEr
	}
	send := func(ops []storage.Operation) {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			if _, err := c.dst.Batch(ctx, table, ops); err != nil {
				errMu.Lock()
				if firstEr == nil {
					firstEr = fmt.Errorf("writing partition %q: %w", ops[0].Entity.PartitionKey, err)
					cancel()
				}
				errMu.Unlock()
			}
		}()
	}
	var (
		n     int64
		cur   []storage.Operation
		size  int
		token string
	)
	flush := func() {
		if len(cur) > 0 {
			send(cur)
			cur, size = nil, 0
		}
	}
	for {
		page, err := c.src.Query(ctx, table, &storage.Query{Continuation: token})
		if err != nil {
			wg.Wait()
			if ferr := failed(); ferr != nil {
				return n, ferr
			}
			return n, fmt.Errorf("reading: %w", err)
		}
		for _, e := range page.Entities {
			ent := &storage.Entity{PartitionKey: e.PartitionKey, RowKey: e.RowKey, Properties: e.Properties}
			op := storage.Operation{Kind: storage.OpUpsert, Mode: storage.Replace, Entity: ent}
			opSize := storage.BatchOpSize(op)
			if len(cur) > 0 && (cur[0].Entity.PartitionKey != e.PartitionKey || len(cur) == storage.MaxBatchOps || size+opSize > copyBatchBytes) {
				flush()
			}
			cur = append(cur, op)
			size += opSize
			n++
		}
		c.copied += int64(len(page.Entities))
		if time.Since(c.lastNote) > 5*time.Second {
			c.lastNote = time.Now()
			c.log.Info(fmt.Sprintf("sqlgw copy: %s: %d entities so far (%d in all tables)", table, n, c.copied))
		}
		if err := failed(); err != nil {
			wg.Wait()
			return n, err
		}
		if token = page.Continuation; token == "" {
			break
		}
	}
	flush()
	wg.Wait()
	return n, failed()
}

// countEntities counts a table's entities, reading keys only.
func countEntities(ctx context.Context, s storage.Store, table string) (int64, error) {
	var n int64
	q := &storage.Query{Select: []string{}}
	for {
		page, err := s.Query(ctx, table, q)
		if err != nil {
			return n, err
		}
		n += int64(len(page.Entities))
		if page.Continuation == "" {
			return n, nil
		}
		q.Continuation = page.Continuation
	}
}
