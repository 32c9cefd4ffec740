package engine

import (
	"context"

	"github.com/dolthub/go-mysql-server/sql"
)

// SetEditorRowHook sets the hook that runs before each row a table editor
// inserts, updates or deletes (with the statement's context: a test kills
// the statement there), and returns a function restoring the previous one.
func SetEditorRowHook(f func(ctx *sql.Context)) (restore func()) {
	old := editorRowHook
	editorRowHook = f
	return func() { editorRowHook = old }
}

// SetCommitWrittenHook sets the hook that runs after each commit that
// wrote (with the commit's context: a test kills the statement there), and
// returns a function restoring the previous one.
func SetCommitWrittenHook(f func(ctx context.Context)) (restore func()) {
	old := commitWrittenHook
	commitWrittenHook = f
	return func() { commitWrittenHook = old }
}
