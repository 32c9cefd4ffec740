package engine

// SetCommitIndexesHook sets the hook that runs in every commit after it
// has taken its tables' indexes and before it writes, and returns a
// function restoring the previous one.
func SetCommitIndexesHook(f func()) (restore func()) {
	old := commitIndexesHook
	commitIndexesHook = f
	return func() { commitIndexesHook = old }
}
