package engine

// SetIndexMultiQuery turns the index reads of one storage.MultiQuery call
// (joinbatch_index.go, multiQueryHits) on or off, for differential tests;
// it returns a function restoring the previous setting.
func SetIndexMultiQuery(on bool) (restore func()) {
	old := !noIndexMultiQuery.Swap(!on)
	return func() { noIndexMultiQuery.Store(!old) }
}

// IndexMultiQueries returns the number of index reads made with one
// storage.MultiQuery call since the process started.
func IndexMultiQueries() int64 { return indexMultiQueries.Load() }
