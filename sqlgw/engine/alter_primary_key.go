package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/storage"
)

// ALTER TABLE ... ADD PRIMARY KEY / DROP PRIMARY KEY on an empty table
//
// The primary key maps every row to its PartitionKey and RowKey, so
// changing it on a table with rows means rewriting every row: still 1235.
// On a table with no rows (Laravel creates every table whose key is not an
// AUTO_INCREMENT column without a key, then adds it with ALTER TABLE ... ADD
// PRIMARY KEY) the change is a catalog change only (catalog/pkalter.go):
// ADD makes a keyless table keyed, its key columns NOT NULL and its
// PartitionKey the first key column (CREATE TABLE's default rule); DROP
// makes a keyed table keyless. "Empty" is checked on the physical table
// itself: a keyless table stores only its rows' entities there (it can
// have neither secondary indexes nor foreign keys, and its AUTO_INCREMENT
// counter lives in the catalog table), and a keyed table with secondary
// indexes or foreign keys, or referenced by one, is refused whatever its
// rows, since its index entities embed the key.
//
// The protocol is alter_narrowing.go's: check empty at catalog Version V (and
// no buffered write of the session to the table), commit with
// catalog.SetPrimaryKeyVerified(V) (ErrConflict, 1213, if a DDL changed the
// table since), wait one RefreshInterval (at most narrowWaitCap) so every
// gateway's new statements use the new key, check empty again, and restore
// the old key if a row appeared (written under the old mapping by a
// statement that began before the change). Its window: a row written under
// the NEW key, by another session, between the commit and the second
// check also makes the ALTER fail and is then read under the old mapping.
//
// Errors as MySQL 8 / MariaDB 10.11:
//   - ADD PRIMARY KEY on a keyed table: 1068 Multiple primary key defined
//     (go-mysql-server checks it before calling CreatePrimaryKey);
//   - DROP PRIMARY KEY on a keyless table: 1091 Can't DROP 'PRIMARY'; check
//     that column/key exists;
//   - DROP PRIMARY KEY with an AUTO_INCREMENT column: 1075;
//   - rows present, indexes, foreign keys, prefix key parts: 1235;
//   - DROP PRIMARY KEY on a table whose comment sets salt_buckets or
//     partition_key (PARTITION BY KEY ... PARTITIONS n): 1235, since the
//     options would outlive the key they describe.

// pkVerifiedHook and pkCommittedHook, if set (tests only), run between the
// first check and the commit, and right after the commit.
var pkVerifiedHook, pkCommittedHook func()

// CreatePrimaryKey implements sql.PrimaryKeyAlterableTable.
func (t *Table) CreatePrimaryKey(ctx *sql.Context, columns []sql.IndexColumn) error {
	if !t.meta().Keyless() {
		return sql.ErrMultiplePrimaryKeysDefined.New()
	}
	pk := make([]catalog.KeyPart, len(columns))
	for i, c := range columns {
		if c.Length > 0 {
			return errUnsupported.New(fmt.Sprintf("primary key of table %s: a prefix key part (%s(%d)) is not supported", t.Name(), c.Name, c.Length))
		}
		pk[i] = catalog.KeyPart{Column: c.Name}
	}
	return t.setPrimaryKey(ctx, pk, "adding")
}

// DropPrimaryKey implements sql.PrimaryKeyAlterableTable.
func (t *Table) DropPrimaryKey(ctx *sql.Context) error {
	if t.meta().Keyless() {
		return mysql.NewSQLError(mysql.ERCantDropFieldOrKey, "42000", "Can't DROP 'PRIMARY'; check that column/key exists")
	}
	if opts, err := catalog.ParseTableOptions(t.meta().Comment); err == nil && (opts.SaltBuckets > 1 || opts.PartitionKey != nil) {
		// The key options in the comment would outlive the key: SHOW
		// CREATE TABLE would print a table that cannot be created
		// (salt_buckets without a key) or is keyed differently.
		return errUnsupported.New(fmt.Sprintf("dropping the primary key of table %s, whose comment sets salt_buckets or partition_key (PARTITION BY KEY); create a new table instead", t.Name()))
	}
	for _, c := range t.meta().Columns {
		if c.AutoIncrement {
			return mysql.NewSQLError(mysql.ERWrongAutoKey, "42000", "Incorrect table definition; there can be only one auto column and it must be defined as a key")
		}
	}
	return t.setPrimaryKey(ctx, nil, "dropping")
}

// setPrimaryKey runs the protocol above; pk nil drops the key.
func (t *Table) setPrimaryKey(ctx *sql.Context, pk []catalog.KeyPart, verb string) error {
	cat := t.gw.Catalog
	mctx := MetaCtx(ctx)
	if err := cat.Refresh(mctx); err != nil {
		return mapError(err)
	}
	cur, err := cat.Table(mctx, t.db.name, t.Name())
	if err != nil {
		return mapError(err)
	}
	if err := t.checkEmptyForPK(ctx, cur, verb); err != nil {
		return err
	}
	if pkVerifiedHook != nil {
		pkVerifiedHook()
	}
	nm, err := cat.SetPrimaryKeyVerified(mctx, t.db.name, t.Name(), pk, cur.Version)
	if err != nil {
		return mapError(err)
	}
	if pkCommittedHook != nil {
		pkCommittedHook()
	}
	if d := min(cat.RefreshInterval(), narrowWaitCap); d > 0 {
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return joinRevert(ctx.Err(), t.revertPK(ctx, cur, nm))
		}
	}
	if err := t.checkEmptyForPK(ctx, nm, verb); err != nil {
		return joinRevert(err, t.revertPK(ctx, cur, nm))
	}
	return t.refresh(ctx, nm)
}

// joinRevert returns err unwrapped (a *mysql.SQLError reaches the client
// with its number only unwrapped) unless the revert failed too.
func joinRevert(err, revertErr error) error {
	if revertErr == nil {
		return err
	}
	return errors.Join(err, revertErr)
}

// revertPK restores before's key (and the nullability of its columns) on
// the table now recorded as now.
func (t *Table) revertPK(ctx *sql.Context, before, now *catalog.Table) error {
	nm, err := t.gw.Catalog.RevertPrimaryKey(MetaCtx(ctx), t.db.name, t.Name(), before, now.Version)
	if err != nil {
		return fmt.Errorf("sqlgw: restoring the primary key of %s after a row appeared: %w", t.Name(), mapError(err))
	}
	return t.refresh(ctx, nm)
}

// checkEmptyForPK returns 1235 if table m stores any entity, or the
// session has buffered writes to it.
func (t *Table) checkEmptyForPK(ctx *sql.Context, m *catalog.Table, verb string) error {
	refuse := func() error {
		return errUnsupported.New(fmt.Sprintf("%s the primary key of table %s, which holds rows, needs a table rewrite; this is supported only on an empty table", verb, m.Name))
	}
	if tx := currentTxn(ctx); tx != nil {
		if tt := tx.tables[m.Physical]; tt != nil && len(tt.writes) > 0 {
			return refuse()
		}
	}
	empty, err := physicalEmpty(storeCtx(ctx), t.gw.store, m.Physical)
	if err != nil {
		return mapError(err)
	}
	if !empty {
		return refuse()
	}
	return nil
}

// physicalEmpty reports whether store table phys holds no entity.
func physicalEmpty(ctx context.Context, st storage.Store, phys string) (bool, error) {
	q := &storage.Query{Select: []string{}, Top: 1}
	for {
		page, err := st.Query(ctx, phys, q)
		if err != nil {
			return false, err
		}
		if len(page.Entities) > 0 {
			return false, nil
		}
		if page.Continuation == "" {
			return true, nil
		}
		q.Continuation = page.Continuation
	}
}
