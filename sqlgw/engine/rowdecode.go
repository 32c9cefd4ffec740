package engine

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/storage"
)

// Row decoding
//
// A row is decoded once, from its entities' properties straight to the
// engine values go-mysql-server's types encode onto the wire
// (server.RowToSQL: each column type's SQL method, which formats the value
// and encodes the result character set): catalog.Table.RowProperties
// merges the entities (a wide row's continuations), ColumnValue finds one
// column's property (a split value reassembled), and engineValue converts
// it. The integer, floating-point, string and binary kinds (every column
// of sysbench's tables) convert in one step; the others (DECIMAL, dates
// and times, YEAR, BIT, ENUM, SET, JSON, unsigned integers) through the
// catalog's datum (catalog.Type.Decode, then fromDatum), which is the
// same conversion the general path has always made, so every type reads
// the same way on both paths.
//
// Only the columns a read returns are decoded: direct execution
// (direct.go) asks its row iterator for the projected columns alone
// (rowIter.cols), so `SELECT c FROM sbtest1 WHERE id=?` converts one
// property, not four, and so do the sorts, DISTINCT and aggregates it
// evaluates (directrange.go: the columns their first operator reads, into
// a new row each when they keep rows); the general path decodes the full
// row (its filters and projections run on it). Attached tables, whose columns decode by
// role (the PartitionKey, RowKey and Timestamp columns), keep the catalog's
// full DecodeRow.

// engineValue returns the engine value of a column of type ct stored as v.
func engineValue(ct catalog.Type, v storage.Value) (any, error) {
	if v.Type() == ct.StorageType() {
		switch ct.Kind {
		case catalog.KindInt8, catalog.KindInt16, catalog.KindInt24, catalog.KindInt32, catalog.KindInt64:
			if !ct.Unsigned {
				return signedValue(ct.Kind, v.Int()), nil
			}
		case catalog.KindFloat:
			return float32(v.Float()), nil
		case catalog.KindDouble:
			return v.Float(), nil
		case catalog.KindChar, catalog.KindVarchar, catalog.KindTinyText, catalog.KindText, catalog.KindMediumText, catalog.KindLongText:
			return charValue(ct, v.Str()), nil
		case catalog.KindBinary, catalog.KindVarbinary, catalog.KindTinyBlob, catalog.KindBlob, catalog.KindMediumBlob, catalog.KindLongBlob:
			return v.Bytes(), nil
		}
	}
	d, err := ct.Decode(v)
	if err != nil {
		return nil, errDecode{err}
	}
	return fromDatum(ct, d)
}

// errDecode marks a stored value that does not decode as its column's
// type (catalog.ErrValue): decodeColumns names the column and maps it as
// the catalog's DecodeRow errors always were.
type errDecode struct{ err error }

func (e errDecode) Error() string { return e.err.Error() }
func (e errDecode) Unwrap() error { return e.err }

// decodeColumns decodes columns cols (ordinals of meta's columns) of the
// row stored in ents (main entity first) into out[0:len(cols)].
func decodeColumns(meta *catalog.Table, ents []*storage.Entity, cols []int, out sql.Row) error {
	props, err := meta.RowProperties(ents...)
	if err != nil {
		return mapError(err)
	}
	for j, c := range cols {
		v, ok, err := meta.ColumnValue(props, c)
		if err != nil {
			return mapError(err)
		}
		if !ok {
			out[j] = nil
			continue
		}
		x, err := engineValue(meta.Columns[c].Type, v)
		if err != nil {
			if d, isDecode := err.(errDecode); isDecode {
				return mapError(fmt.Errorf("table %q column %q: %w", meta.Name, meta.Columns[c].Name, d.err))
			}
			return err
		}
		out[j] = x
	}
	return nil
}
