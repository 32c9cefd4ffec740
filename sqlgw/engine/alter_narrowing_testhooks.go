package engine

// SetNarrowVerifiedHook sets the hook that runs between the first
// verification scan of a narrowing ALTER and its catalog commit, and
// returns a function restoring the previous one.
func SetNarrowVerifiedHook(f func()) (restore func()) {
	old := narrowVerifiedHook
	narrowVerifiedHook = f
	return func() { narrowVerifiedHook = old }
}

// SetNarrowCommittedHook sets the hook that runs right after the catalog
// commit of a narrowing ALTER, before its second verification scan.
func SetNarrowCommittedHook(f func()) (restore func()) {
	old := narrowCommittedHook
	narrowCommittedHook = f
	return func() { narrowCommittedHook = old }
}
