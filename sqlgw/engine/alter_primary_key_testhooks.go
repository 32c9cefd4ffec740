package engine

// SetPKVerifiedHook sets the hook that runs between the emptiness check of
// ADD/DROP PRIMARY KEY and its catalog commit; it returns a restore func.
func SetPKVerifiedHook(f func()) (restore func()) {
	old := pkVerifiedHook
	pkVerifiedHook = f
	return func() { pkVerifiedHook = old }
}

// SetPKCommittedHook sets the hook that runs right after the catalog commit
// of ADD/DROP PRIMARY KEY, before the wait and the second check.
func SetPKCommittedHook(f func()) (restore func()) {
	old := pkCommittedHook
	pkCommittedHook = f
	return func() { pkCommittedHook = old }
}
