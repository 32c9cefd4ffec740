package engine

// SetIndexMultiQuery turns the index reads of one storage.MultiQuery call
// (joinbatch_index.go, multiQueryHits) and the reads of the verified hits'
// rows in one storage.MultiGet call (indexhits.go, hitRows) on or off, for
// differential tests; it returns a function restoring the previous
// setting.
func SetIndexMultiQuery(on bool) (restore func()) {
	old := !noIndexMultiQuery.Swap(!on)
	return func() { noIndexMultiQuery.Store(!old) }
}

// IndexMultiQueries returns the number of index reads made with one
// storage.MultiQuery call since the process started.
func IndexMultiQueries() int64 { return indexMultiQueries.Load() }

// IndexMultiGets returns the number of reads of verified index hits' rows
// made with one storage.MultiGet call since the process started
// (indexhits.go); SetIndexMultiQuery(false) turns them off too.
func IndexMultiGets() int64 { return indexMultiGets.Load() }

// SetIndexRows turns index rows (indexrows.go: the rows of an index
// read's verified hits read as rows, no property maps) on (the default)
// or off, for differential tests; it returns a function restoring the
// previous setting.
func SetIndexRows(on bool) (restore func()) {
	old := !noIndexRows.Swap(!on)
	return func() { noIndexRows.Store(!old) }
}

// IndexRowReads returns the number of index reads whose rows were read as
// rows since the process started (indexrows.go).
func IndexRowReads() int64 { return indexRowReads.Load() }

// SetIndexHitRows turns the index hits of an IN list read as rows
// (joinbatch_index.go: multiQueryHitRows, storage.MultiRowQuerier) on
// (the default) or off (read as entities by multiQueryHits), and returns
// a function restoring the previous setting.
func SetIndexHitRows(on bool) (restore func()) {
	old := !noIndexHitRows.Swap(!on)
	return func() { noIndexHitRows.Store(!old) }
}

// IndexHitRowReads returns the number of index reads whose hits were
// read as rows since the process started (multiQueryHitRows).
func IndexHitRowReads() int64 { return indexHitRowReads.Load() }
