package catalog

import (
	"fmt"
	"hash/fnv"

	"github.com/sqlgw/sqlgw/catalog/keys"
)

// Salted tables
//
// A table created with SALT_BUCKETS = n (TableDef.SaltBuckets, from the
// comment option salt_buckets=n or MySQL's PARTITION BY KEY(...)
// PARTITIONS n) spreads its partitions over n buckets, after Apache
// Phoenix's SALT_BUCKETS: the stored PartitionKey of a row is
//
//	salt(pk) = keys.EncodeUintAscending(bucket) + pk
//	bucket   = FNV-1a-32(pk) mod n
//
// where pk is the PartitionKey an unsalted table would store (the
// "logical" PartitionKey, the concatenated components of the partition
// key columns). The Table service assigns PartitionKey ranges to servers,
// so a monotonically growing partition key (an AUTO_INCREMENT id, a
// timestamp) sends every insert to the server holding the end of the
// range: the design guide's append anti-pattern. With the bucket in front,
// consecutive keys land in n distinct ranges. The hash covers the whole
// logical PartitionKey, so the rows of one partition stay together (one
// bucket): point reads and partition queries still address one
// partition, and a row's batch is still one partition's batch.
//
// Golden bytes (TestSaltGolden): with n = 8, the INT key 7 has the logical
// PartitionKey "a7", in bucket 1, stored as "a1a7"; 42 ("b42") is stored as
// "a3b42", 1 ("a1") as "a7a1", 10 ("b10") as "a4b10".
//
// Ranges over the partition key and table scans become one query per
// bucket, each in logical order within its bucket; the reader merges them
// in logical key order (package planner: Plan.Groups). Global index
// entities keep the logical PartitionKey in their RowKey (so an index
// range is ordered by the base key as on an unsalted table) and the stored
// one in _pk; local index entities live in the stored partition.
//
// A keyless or attached table is never salted (CreateTable rejects the
// option); MaxSaltBuckets bounds n.

// MaxSaltBuckets is the largest SALT_BUCKETS (Phoenix's limit too).
const MaxSaltBuckets = 256

// Salted reports the table's number of salt buckets, 0 when it is not
// salted.
func (t *Table) Salted() int {
	if t.SaltBuckets > 1 && !t.Keyless() && !t.IsAttached() {
		return t.SaltBuckets
	}
	return 0
}

// SaltBucket returns the bucket of a logical PartitionKey (0 for an
// unsalted table).
func (t *Table) SaltBucket(pk string) int {
	n := t.Salted()
	if n == 0 {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(pk))
	return int(h.Sum32() % uint32(n))
}

// SaltPrefix returns the stored PartitionKey prefix of bucket b.
func SaltPrefix(b int) string {
	return string(keys.EncodeUintAscending(nil, uint64(b)))
}

// Salt returns the stored PartitionKey of a logical one (pk itself for an
// unsalted table).
func (t *Table) Salt(pk string) string {
	if t.Salted() == 0 {
		return pk
	}
	return SaltPrefix(t.SaltBucket(pk)) + pk
}

// Unsalt returns the logical PartitionKey of a stored one (pk itself for
// an unsalted table).
func (t *Table) Unsalt(pk string) (string, error) {
	if t.Salted() == 0 {
		return pk, nil
	}
	rest, _, err := keys.DecodeUintAscending([]byte(pk))
	if err != nil {
		return "", fmt.Errorf("%w: table %q: salted PartitionKey %q: %w", ErrValue, t.Name, pk, err)
	}
	return string(rest), nil
}

// LogicalKey is Unsalt for comparisons: a malformed key compares as
// stored.
func (t *Table) LogicalKey(pk string) string {
	if l, err := t.Unsalt(pk); err == nil {
		return l
	}
	return pk
}
