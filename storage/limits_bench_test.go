package storage

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkValidateBatch: a batch of 100 rows shaped like sysbench's
// sbtest1 (an integer, a 120- and a 60-character string), as every batch
// write validates it.
func BenchmarkValidateBatch(b *testing.B) {
	ops := make([]Operation, 100)
	for i := range ops {
		ops[i] = Operation{Kind: OpInsert, Entity: &Entity{PartitionKey: "p", RowKey: fmt.Sprintf("r%06d", i), Properties: Properties{
			"k": Int64(int64(i)), "c": String(strings.Repeat("83868641912-", 10)), "pad": String(strings.Repeat("67847967377-", 5)),
		}}}
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := DefaultLimits.ValidateBatch(ops); err != nil {
			b.Fatal(err)
		}
	}
}
