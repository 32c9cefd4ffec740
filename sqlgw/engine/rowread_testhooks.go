package engine

// RowReads returns the number of reads that went by rows (rowread.go)
// since the process started, so that a test can tell that its
// statements took that path.
func RowReads() int64 { return rowReads.Load() }
