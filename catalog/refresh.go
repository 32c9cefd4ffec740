package catalog

import "time"

// RefreshInterval returns how long this catalog trusts its cached metadata
// (Options.RefreshInterval): another gateway sees a DDL change at most this
// long after it committed (online index builds wait this long before
// backfilling, so every writer maintains the new index by then).
func (c *Catalog) RefreshInterval() time.Duration { return c.opts.RefreshInterval }
