package planner

import "github.com/sqlgw/sqlgw/storage"

// Salted tables
//
// A table created with SALT_BUCKETS = n stores every PartitionKey behind a
// bucket prefix (the catalog's salt.go: bucket = hash(PartitionKey) mod
// n). The planner plans on the logical keys, as for any table (EncodeKey
// never salts), and rewrites the requests last (salt):
//
//   - Gets and queries of one partition (PointGet, MultiGet, RowRange,
//     PartitionScan, a local index's partition) address the salted
//     PartitionKey: one bucket, the same requests as unsalted;
//   - a query over a PartitionKey range, or over every partition
//     (PartitionRange, TableScan), becomes n queries, one per bucket, the
//     same range behind each bucket prefix. Plan.Groups lists them: the
//     reader runs a group's queries in parallel and merges their entities
//     in logical key order (each bucket returns its part in that order),
//     so Plan.Order holds, and a LIMIT (each query's Top) still stops
//     every bucket after at most Limit entities.
//
// Cost: each extra bucket query is one more request; the entities read
// are those of the unsalted plan (the buckets split them).
//
// Global indexes are not salted (their PartitionKey is the index value;
// the catalog keeps the logical base key in their RowKey), so index reads
// are unchanged and the base Gets carry the stored keys of the hits.

// Salted is implemented by a Table whose stored PartitionKeys carry a salt
// bucket prefix.
type Salted interface {
	// SaltBuckets is the number of buckets; 0 or 1: not salted.
	SaltBuckets() int
	// Salt returns the stored PartitionKey of a logical PartitionKey.
	Salt(pk string) string
	// SaltPrefix returns the PartitionKey prefix of a bucket.
	SaltPrefix(bucket int) string
}

// salt rewrites p's requests for a salted table (see above).
func (b *builder) salt(p *Plan) {
	st, ok := b.t.(Salted)
	if !ok || st.SaltBuckets() <= 1 {
		return
	}
	n := st.SaltBuckets()
	for i := range p.Gets {
		p.Gets[i].PK = st.Salt(p.Gets[i].PK)
	}
	if len(p.Queries) == 0 {
		return
	}
	var qs []*storage.Query
	var groups []int
	fanned := false
	for _, q := range p.Queries {
		if pk, ok := q.Partition.Single(); ok {
			c := *q
			c.Partition = storage.Exactly(st.Salt(pk))
			qs = append(qs, &c)
			groups = append(groups, 1)
			continue
		}
		for bkt := 0; bkt < n; bkt++ {
			c := *q
			c.Partition = saltRange(q.Partition, st.SaltPrefix(bkt), b.t.PrefixEnd)
			qs = append(qs, &c)
		}
		groups = append(groups, n)
		fanned = true
		p.Cost.Requests += float64(n - 1)
	}
	p.Queries = qs
	if fanned {
		p.Groups = groups
	}
}

// saltRange returns the PartitionKey range r within the bucket whose keys
// start with prefix.
func saltRange(r *storage.KeyRange, prefix string, prefixEnd func(string) string) *storage.KeyRange {
	out := &storage.KeyRange{
		Low:  &storage.Bound{Key: prefix},
		High: &storage.Bound{Key: prefixEnd(prefix), Exclusive: true},
	}
	if r != nil && r.Low != nil {
		out.Low = &storage.Bound{Key: prefix + r.Low.Key, Exclusive: r.Low.Exclusive}
	}
	if r != nil && r.High != nil {
		out.High = &storage.Bound{Key: prefix + r.High.Key, Exclusive: r.High.Exclusive}
	}
	return out
}

// A table with collated key columns is wrapped (collate.go), and a local
// index view's base is that wrapper: it salts as the wrapped table does.
var _ Salted = (*collatedTable)(nil)

// SaltBuckets implements Salted.
func (c *collatedTable) SaltBuckets() int {
	if s, ok := c.Table.(Salted); ok {
		return s.SaltBuckets()
	}
	return 0
}

// Salt implements Salted.
func (c *collatedTable) Salt(pk string) string {
	if s, ok := c.Table.(Salted); ok {
		return s.Salt(pk)
	}
	return pk
}

// SaltPrefix implements Salted.
func (c *collatedTable) SaltPrefix(bucket int) string { return c.Table.(Salted).SaltPrefix(bucket) }
