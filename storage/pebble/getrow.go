package pebble

import (
	"context"
	"errors"
	"fmt"
	"unsafe"

	pebbledb "github.com/cockroachdb/pebble/v2"

	"github.com/sqlgw/sqlgw/storage"
)

// Point reads as rows (storage.RowGetter)
//
// GetRow reads a record as Get does (the same key checks, table lookup,
// lock and snapshot) and decodes the properties it is asked for straight
// into the row's values by position (decodeRowInto): no property map, no
// Entity. The values are copies (ownedValue), not aliases of Pebble's
// buffer, as Get's are.

// GetRow implements storage.RowGetter.
func (s *Store) GetRow(ctx context.Context, table, pk, rk string, sel, more []string, row *storage.Row) error {
	if sel == nil {
		return storage.ErrRowsUnsupported
	}
	if err := s.limits.ValidateKeys(pk, rk); err != nil {
		return err
	}
	mu, err := s.rlockGet(ctx)
	if err != nil {
		return err
	}
	defer mu.RUnlock()
	t, err := s.table(table)
	if err != nil {
		return err
	}
	if err := s.limits.ValidateQuery(&storage.Query{Select: sel}); err != nil {
		return err
	}
	if err := s.limits.ValidateQuery(&storage.Query{Select: more}); err != nil {
		return err
	}
	r, sh, done, err := s.reader(ctx)
	if err != nil {
		return err
	}
	defer done()
	v, closer, err := s.getRecord(r, sh, appendEntityKey(make([]byte, 0, tablePrefixLen+len(pk)+1+len(rk)), t.id, pk, rk))
	if errors.Is(err, pebbledb.ErrNotFound) {
		return fmt.Errorf("%w: entity (%q, %q) in table %q", storage.ErrNotFound, pk, rk, table)
	}
	if err != nil {
		return err
	}
	if closer != nil {
		defer closer.Close()
	}
	rec, err := parseRecord(v)
	if err != nil {
		return err
	}
	vals := storage.RowValues(row, len(sel)+len(more))
	if err := rec.decodeRowInto(sel, more, vals, nil); err != nil {
		return err
	}
	*row = storage.Row{PartitionKey: pk, RowKey: rk, ETag: storage.ETag(rec.etag), Timestamp: ticksTime(rec.ticks), Values: vals}
	return nil
}

// decodeRowInto sets vals[i] to the value of property sel[i], and
// vals[len(sel)+i] to that of more[i], for each the record holds (copies:
// cut from arena, or ownedValue where arena is nil); the others are
// skipped without decoding.
func (r *record) decodeRowInto(sel, more []string, vals []storage.Value, arena *pageArena) error {
	p := r.props
	for range r.n {
		name, val, err := propName(p)
		if err != nil {
			return err
		}
		wanted := false
		for _, s := range sel {
			wanted = wanted || s == string(name)
		}
		for _, s := range more {
			wanted = wanted || s == string(name)
		}
		if !wanted {
			if p, err = skipValue(val); err != nil {
				return err
			}
			continue
		}
		v, rest, err := propValue(val, true)
		if err != nil {
			return err
		}
		p = rest
		switch {
		case arena == nil:
			v = ownedValue(v)
		case v.Type() == storage.TypeString:
			v = storage.String(arena.string(unsafe.Slice(unsafe.StringData(v.Str()), len(v.Str()))))
		case v.Type() == storage.TypeBinary:
			v = storage.Binary(arena.bytes(v.Bytes()))
		default:
			v = ownedValue(v) // a GUID is a copy; the others hold no reference
		}
		for j, s := range sel {
			if s == string(name) {
				vals[j] = v
			}
		}
		for j, s := range more {
			if s == string(name) {
				vals[len(sel)+j] = v
			}
		}
	}
	return nil
}
