package catalog

import (
	"context"
	"errors"
	"fmt"

	"github.com/sqlgw/sqlgw/storage"
)

// Accounts record
//
// The gateway's accounts and grants (go-mysql-server's mysql database:
// users, roles, global, database, table and routine privileges, in its
// flatbuffer serialization, which the catalog does not interpret) live in
// one entity of the catalog table: partition "u", RowKey "acct". Its
// properties, part of the persisted format:
//
//	ver   Int64   the accounts version, +1 per change
//	data  Binary  the serialized accounts, split into data, _data_1, ...
//	              (64 KiB each) like a BLOB value; the entity's 1 MiB
//	              bounds the record (about 2,000 accounts with grants)
//
// Every change is a conditional write: an insert when there is no record
// yet, otherwise an update with If-Match on the ETag the change was based
// on, so of two gateways changing accounts at once exactly one succeeds and
// the other gets ErrAccountsConflict (never a lost update). Readers poll
// AccountsVersion (one Get of one property) and reload with Accounts when
// the ETag moved. The record is in the catalog table, so sqlgw copy takes
// it along.
const (
	accountsPartition = "u"
	accountsRowKey    = "acct"
	propAccountsData  = "data"
)

// ErrAccountsConflict is returned by PutAccounts when the record changed
// since the version the change was based on.
var ErrAccountsConflict = errors.New("catalog: accounts were changed concurrently")

// AccountsVersion identifies one stored version of the accounts record.
// The zero value means "no record".
type AccountsVersion struct {
	Version uint64
	ETag    storage.ETag
}

// Exists reports whether v names a stored record.
func (v AccountsVersion) Exists() bool { return v.ETag != "" }

// Accounts returns the stored accounts record and its version; data is nil
// and the version zero when no record was ever written.
func (c *Catalog) Accounts(ctx context.Context) ([]byte, AccountsVersion, error) {
	e, err := c.store.Get(ctx, c.table, accountsPartition, accountsRowKey, nil)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, AccountsVersion{}, nil
	}
	if err != nil {
		return nil, AccountsVersion{}, fmt.Errorf("catalog: reading accounts: %w", err)
	}
	first, ok := e.Properties[propAccountsData]
	if !ok {
		return nil, AccountsVersion{}, fmt.Errorf("%w: accounts record without data", ErrValue)
	}
	data, err := reassemble(e.Properties, propAccountsData, first)
	if err != nil {
		return nil, AccountsVersion{}, fmt.Errorf("catalog: accounts record: %w", err)
	}
	if data.Type() != storage.TypeBinary {
		return nil, AccountsVersion{}, fmt.Errorf("%w: accounts data of type %s", ErrValue, data.Type())
	}
	b := data.Bytes()
	if b == nil {
		b = []byte{}
	}
	return b, AccountsVersion{Version: uint64(e.Properties[propVersion].Int()), ETag: e.ETag}, nil
}

// AccountsVersion returns the version of the stored record without its
// data (one Get of one property): the cheap check a gateway polls.
func (c *Catalog) AccountsVersion(ctx context.Context) (AccountsVersion, error) {
	e, err := c.store.Get(ctx, c.table, accountsPartition, accountsRowKey, &storage.GetOptions{Select: []string{propVersion}})
	if errors.Is(err, storage.ErrNotFound) {
		return AccountsVersion{}, nil
	}
	if err != nil {
		return AccountsVersion{}, fmt.Errorf("catalog: reading accounts version: %w", err)
	}
	return AccountsVersion{Version: uint64(e.Properties[propVersion].Int()), ETag: e.ETag}, nil
}

// PutAccounts stores data as the next version after prev (the zero
// version: the first record). It fails with ErrAccountsConflict if the
// stored record is not prev any more.
func (c *Catalog) PutAccounts(ctx context.Context, data []byte, prev AccountsVersion) (AccountsVersion, error) {
	next := prev.Version + 1
	e := &storage.Entity{PartitionKey: accountsPartition, RowKey: accountsRowKey,
		Properties: storage.Properties{propVersion: storage.Int64(int64(next))}}
	if data == nil {
		data = []byte{}
	}
	for _, p := range appendSplit(nil, propAccountsData, storage.Binary(data)) {
		e.Properties[p.name] = p.v
	}
	var etag storage.ETag
	var err error
	if !prev.Exists() {
		etag, err = c.store.Insert(ctx, c.table, e)
	} else {
		etag, err = c.store.Update(ctx, c.table, e, storage.Replace, prev.ETag)
	}
	switch {
	case err == nil:
		return AccountsVersion{Version: next, ETag: etag}, nil
	case errors.Is(err, storage.ErrAlreadyExists), errors.Is(err, storage.ErrPreconditionFailed),
		errors.Is(err, storage.ErrNotFound):
		return AccountsVersion{}, ErrAccountsConflict
	default:
		return AccountsVersion{}, fmt.Errorf("catalog: writing accounts: %w", err)
	}
}
