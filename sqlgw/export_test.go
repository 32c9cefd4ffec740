package sqlgw

import "github.com/sqlgw/sqlgw/sqlgw/engine"

// The engine's test hooks, under the names the end-to-end tests use.
var (
	SetNarrowVerifiedHook  = engine.SetNarrowVerifiedHook
	SetNarrowCommittedHook = engine.SetNarrowCommittedHook
	SetPKVerifiedHook      = engine.SetPKVerifiedHook
	SetPKCommittedHook     = engine.SetPKCommittedHook
	SetCommitIndexesHook   = engine.SetCommitIndexesHook
)
