package engine

// IsTemporary implements sql.TemporaryTable: sqlgw tables are never
// temporary (CREATE TEMPORARY TABLE is not supported). go-mysql-server's
// read-only transaction check (validateReadOnlyTransaction) calls
// IsTemporary on the written table through an interface assertion whose
// failure it does not check, so without this method a write in START
// TRANSACTION READ ONLY panicked and dropped the connection; with it, the
// write gets MySQL's 1792 (ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION).
func (t *Table) IsTemporary() bool { return false }
