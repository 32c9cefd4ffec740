package sqlgw

// SetNarrowVerifiedHook sets the hook that runs between the first
// verification scan of a narrowing ALTER and its catalog commit, and
// returns a function restoring the previous one.
func SetNarrowVerifiedHook(f func()) (restore func()) {
	old := narrowVerifiedHook
	narrowVerifiedHook = f
	return func() { narrowVerifiedHook = old }
}
