package catalog

import (
	"errors"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/storage"
)

// TestSaltGolden pins the salted key format (salt.go): the bucket is
// FNV-1a-32 of the logical PartitionKey mod n, stored as an integer
// component in front of it. Changing these bytes breaks stored data.
func TestSaltGolden(t *testing.T) {
	def := &TableDef{Name: "s", Columns: []Column{intCol("id"), intCol("seq"), intCol("g")},
		PrimaryKey: []KeyPart{{Column: "id"}, {Column: "seq"}}, SaltBuckets: 8,
		Indexes: []Index{{Name: "gx", Columns: []KeyPart{{Column: "g"}}, Global: true, State: IndexReady, Physical: "x"}}}
	tbl, err := newTable(def, storage.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if tbl.Salted() != 8 {
		t.Fatalf("Salted() = %d, want 8", tbl.Salted())
	}
	for _, c := range []struct {
		id      int64
		logical string
		stored  string
	}{
		{7, "a7", "a1a7"},
		{42, "b42", "a3b42"},
		{1, "a1", "a7a1"},
		{10, "b10", "a4b10"},
	} {
		pk, rk, err := tbl.EncodeKey([]Datum{c.id, int64(3), int64(5)})
		if err != nil {
			t.Fatal(err)
		}
		if pk != c.stored || rk != "a3" {
			t.Errorf("id %d: keys (%q, %q), want (%q, %q)", c.id, pk, rk, c.stored, "a3")
		}
		if l, err := tbl.Unsalt(pk); err != nil || l != c.logical {
			t.Errorf("Unsalt(%q) = %q, %v; want %q", pk, l, err, c.logical)
		}
		kv, err := tbl.DecodeKey(pk, rk)
		if err != nil || len(kv) != 2 || kv[0] != c.id || kv[1] != int64(3) {
			t.Errorf("DecodeKey(%q, %q) = %v, %v", pk, rk, kv, err)
		}
		// A global index keeps the logical base key in its RowKey, the
		// stored one in _pk.
		e, err := tbl.IndexEntity(&tbl.Indexes[0], pk, rk, []Datum{c.id, int64(3), int64(5)})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(e.RowKey, c.logical+"a3") || strings.Contains(e.RowKey, c.stored) || e.Properties[PropBasePK].Str() != pk {
			t.Errorf("index entity of id %d: RowKey %q, _pk %q", c.id, e.RowKey, e.Properties[PropBasePK].Str())
		}
	}
	if _, err := tbl.Unsalt("zz"); err == nil {
		t.Errorf("Unsalt of a key without a bucket: no error")
	}
	// Not salted: keys unchanged.
	def.SaltBuckets = 1
	plain, err := newTable(def, storage.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if pk, _, _ := plain.EncodeKey([]Datum{int64(7), int64(3), int64(5)}); pk != "a7" || plain.Salted() != 0 {
		t.Errorf("SaltBuckets 1: PartitionKey %q, Salted %d", pk, plain.Salted())
	}
	// Options and definitions that cannot be salted.
	for _, bad := range []*TableDef{
		{Name: "k", Columns: []Column{intCol("a")}, SaltBuckets: 4},
		{Name: "n", Columns: []Column{intCol("a")}, PrimaryKey: []KeyPart{{Column: "a"}}, SaltBuckets: MaxSaltBuckets + 1},
	} {
		if _, err := newTable(bad, storage.DefaultLimits); !errors.Is(err, ErrInvalidDef) {
			t.Errorf("table %s salt_buckets=%d: %v, want ErrInvalidDef", bad.Name, bad.SaltBuckets, err)
		}
	}
	for comment, want := range map[string]int{"sqlgw: salt_buckets=16": 16, "x sqlgw: partition_key=(a), salt_buckets=2": 2, "none": 0} {
		o, err := ParseTableOptions(comment)
		if err != nil || o.SaltBuckets != want {
			t.Errorf("ParseTableOptions(%q) = %d, %v; want %d", comment, o.SaltBuckets, err, want)
		}
	}
	for _, comment := range []string{"sqlgw: salt_buckets=0", "sqlgw: salt_buckets=257", "sqlgw: salt_buckets=x"} {
		if _, err := ParseTableOptions(comment); !errors.Is(err, ErrInvalidDef) {
			t.Errorf("ParseTableOptions(%q): %v, want ErrInvalidDef", comment, err)
		}
	}
}
