package storage

import "testing"

// TestWrites: a MultiBatch's checks write nothing and are not counted.
func TestWrites(t *testing.T) {
	e := &Entity{PartitionKey: "p", RowKey: "r"}
	b := []TableBatch{
		{Table: "a", Ops: []Operation{{Kind: OpCheck, Entity: e}, {Kind: OpUpsert, Entity: e}}},
		{Table: "b", Ops: []Operation{{Kind: OpDelete, Entity: e}, {Kind: OpCheck, Entity: e}, {Kind: OpInsert, Entity: e}}},
	}
	if n := Writes(b); n != 3 {
		t.Fatalf("Writes = %d, want 3", n)
	}
}
