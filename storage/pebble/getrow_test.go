package pebble

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/storage"
)

// TestGetRowSameAsGet: GetRow answers every key (present, absent, in a
// missing table, invalid) with exactly Get's entity seen through sel then
// more (absent, repeated and reserved names, every property type, values
// past the scan-size projection), Get's error otherwise, at a snapshot
// taken before later writes as Get does; a row reused for the next key
// keeps none of the previous one's values, and a row read is not changed
// by later writes of its entity.
func TestGetRowSameAsGet(t *testing.T) {
	ctx := context.Background()
	s, err := OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const table = "getrow"
	if err := s.CreateTable(ctx, table); err != nil {
		t.Fatal(err)
	}
	put := func(i, gen int) {
		p := storage.Properties{}
		if i%3 != 0 {
			p["s"] = storage.String(strings.Repeat(string(rune('a'+(i+gen)%26)), i%40))
		}
		if i%4 != 1 {
			p["b"] = storage.Binary([]byte{byte(i), byte(gen)})
		}
		p["n"] = storage.Int64(int64(i * (gen + 1)))
		p["i"] = storage.Int32(int32(i))
		if i%2 == 0 {
			p["f"] = storage.Double(float64(i) / 3)
			p["t"] = storage.Bool(i%4 == 0)
		}
		if i%5 == 0 {
			p["d"] = storage.DateTimeTicks(int64(700_000_000_000_000_000) + int64(i)*1e7)
			p["g"] = storage.GUID([16]byte{byte(i), 1, 2, 3})
			p["big"] = storage.String(strings.Repeat("x", 1500+i))
		}
		for c := range i % 20 {
			p[fmt.Sprintf("c%d", c)] = storage.Int32(int32(c))
		}
		if _, err := s.Upsert(ctx, table, &storage.Entity{PartitionKey: fmt.Sprintf("p%d", i%4), RowKey: fmt.Sprintf("r%04d", i), Properties: p}, storage.Replace); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 60 {
		put(i, 0)
	}
	var many []string
	for c := range 20 {
		many = append(many, fmt.Sprintf("c%d", c))
	}
	selects := [][]string{
		{"s"}, {"n", "s", "b"}, {"i", "f", "t", "d", "g", "big"}, {"absent", "s", "absent"}, {"s", "s", "n"}, {},
		{storage.PropTimestamp, "s"}, many, append(append([]string{}, many...), "s", "b", "n"),
	}
	mores := [][]string{nil, {"t", "absent"}, {"s"}}
	var row storage.Row
	check := func(ctx context.Context, table, pk, rk string, sel, more []string) {
		t.Helper()
		desc := fmt.Sprintf("%s/%s/%s sel %q more %q", table, pk, rk, sel, more)
		e, gerr := s.Get(ctx, table, pk, rk, &storage.GetOptions{Select: append(append([]string{}, sel...), more...)})
		rerr := s.GetRow(ctx, table, pk, rk, sel, more, &row)
		if gerr != nil || rerr != nil {
			if gerr == nil || rerr == nil || gerr.Error() != rerr.Error() {
				t.Fatalf("%s: Get: %v, GetRow: %v", desc, gerr, rerr)
			}
			return
		}
		var want storage.Row
		storage.SetRow(&want, e, sel, more)
		got := row
		if len(got.Values) == 0 {
			got.Values, want.Values = nil, nil // reused, or not
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\nGetRow %+v\nGet    %+v", desc, row, want)
		}
	}
	keys := [][2]string{{"p1", "r0001"}, {"p0", "r0020"}, {"p2", "r0010"}, {"p3", "r0059"}, {"p1", "r0002"}, {"p9", "r0001"}, {"", "r0001"}, {"p1", "bad/key"}}
	for _, k := range keys {
		for _, sel := range selects {
			for _, more := range mores {
				check(ctx, table, k[0], k[1], sel, more)
			}
		}
	}
	check(ctx, "nosuchtable", "p1", "r0001", []string{"s"}, nil)
	if err := s.GetRow(ctx, table, "p1", "r0001", []string{"bad name"}, nil, &row); !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("an invalid selected name: %v", err)
	}
	if err := s.GetRow(ctx, table, "p1", "r0001", []string{"s"}, []string{"9bad"}, &row); !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("an invalid name after the selection: %v", err)
	}
	if err := s.GetRow(ctx, table, "p1", "r0001", nil, nil, &row); !errors.Is(err, storage.ErrRowsUnsupported) {
		t.Fatalf("no selection: %v", err)
	}

	// The values are the row's own: the entity overwritten.
	if err := s.GetRow(ctx, table, "p0", "r0020", []string{"s", "b", "big"}, nil, &row); err != nil {
		t.Fatal(err)
	}
	kept := storage.Row{PartitionKey: row.PartitionKey, RowKey: row.RowKey, ETag: row.ETag, Timestamp: row.Timestamp, Values: append([]storage.Value(nil), row.Values...)}
	keptRow := row
	for i := range 60 {
		put(i, 1)
	}
	if !reflect.DeepEqual(keptRow, kept) {
		t.Fatalf("a row's values changed under later writes:\n%+v\n%+v", keptRow, kept)
	}

	// At a snapshot taken before later writes: the snapshot's values.
	snap, err := s.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sctx := storage.WithSnapshot(ctx, snap)
	var before storage.Row
	if err := s.GetRow(sctx, table, "p1", "r0005", []string{"s", "n"}, nil, &before); err != nil {
		t.Fatal(err)
	}
	for i := range 60 {
		put(i, 2)
	}
	if err := s.Delete(ctx, table, "p3", "r0003", ""); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		for _, sel := range selects {
			check(sctx, table, k[0], k[1], sel, nil)
		}
	}
	check(sctx, table, "p3", "r0003", []string{"s"}, nil)
	check(ctx, table, "p3", "r0003", []string{"s"}, nil)
	if err := s.GetRow(sctx, table, "p1", "r0005", []string{"s", "n"}, nil, &row); err != nil || !reflect.DeepEqual(row, before) {
		t.Fatalf("at the snapshot: %+v, %v; want %+v", row, err, before)
	}
	if err := s.GetRow(ctx, table, "p1", "r0005", []string{"s", "n"}, nil, &row); err != nil || reflect.DeepEqual(row.Values, before.Values) {
		t.Fatalf("without the snapshot: %+v, %v; the snapshot's values were %+v", row, err, before)
	}
	snap.Release()
	if err := s.GetRow(sctx, table, "p1", "r0005", []string{"s"}, nil, &row); !errors.Is(err, storage.ErrSnapshotReleased) {
		t.Fatalf("at a released snapshot: %v", err)
	}
}
