package storage

// PartitionReads is a store that can lay out tables for reads by
// partition. A table whose reads are exact-partition queries (sqlgw's
// global indexes: one partition per looked-up value) can then skip the
// parts of the store that cannot hold the partition, as a Get skips those
// that cannot hold its entity (the Pebble backend: bloom filters over
// partitions, storage/pebble prefix.go). It changes no answer, only the
// cost of reads; a store that is not one needs no hint.
type PartitionReads interface {
	// ReadByPartition tells the store which tables created from now on
	// are read by partition, by name. The layout is the table's for
	// its life: a later call or another Open does not change it.
	ReadByPartition(byPartition func(table string) bool)
}
