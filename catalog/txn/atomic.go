package txn

import (
	"context"
	"fmt"

	"github.com/sqlgw/sqlgw/storage"
)

// CommitAtomic commits groups as one write of the store's own atomic batch
// across partitions (storage.MultiBatcher: the embedded store), with
// Commit's outcomes, when the store has one. done is false, and nothing
// was sent, when it has none (the Table service): the caller then chooses
// between its own single-batch path and Commit, whose record costs 2P+3
// requests (3 for one partition within one batch: the inline path). The gateway uses it for a commit that is one batch of rows
// plus their global index entities: on the embedded store that is one
// synced write instead of the index protocol's three.
func (s *Store) CommitAtomic(ctx context.Context, groups []Group) (done bool, err error) {
	for _, g := range groups {
		for _, op := range g.Ops {
			if op.Kind == storage.OpUpdate && op.Mode == storage.Merge || op.Kind == storage.OpUpsert && op.Mode == storage.Merge {
				return true, fmt.Errorf("%w: txn: merge operations cannot be part of a transaction", storage.ErrInvalid)
			}
		}
	}
	return s.commitMulti(ctx, groups, nil)
}
