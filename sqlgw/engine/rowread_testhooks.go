package engine

// RowReads returns the number of reads that went by rows (rowread.go)
// since the process started, so that a test can tell that its
// statements took that path.
func RowReads() int64 { return rowReads.Load() }

// SortedDistincts returns the number of ORDER BY over DISTINCT that ran
// as one operator and kept the first row of each run of equal rows
// (sortrows.go) since the process started.
func SortedDistincts() int64 { return sortedDistincts.Load() }
