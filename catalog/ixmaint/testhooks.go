package ixmaint

// SetBackfillQuietHook sets the hook that runs in a backfill's quiet page
// (backfillQuiet) after the page's read, before it holds the writers back
// (stage "read"), and while it holds them, before its write ("held"), and
// returns a function restoring the previous one. Tests only.
func SetBackfillQuietHook(f func(stage string)) (restore func()) {
	old := backfillQuietHook
	backfillQuietHook = f
	return func() { backfillQuietHook = old }
}
