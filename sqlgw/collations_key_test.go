package sqlgw_test

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	gms "github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"

	"github.com/sqlgw/sqlgw/catalog"
	_ "github.com/sqlgw/sqlgw/sqlgw" // registers the engine's collations
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
)

// keyCollations are the collations whose key order is checked against the
// engine's Compare: the PAD SPACE ones that ORMs default to, and a NO PAD
// one for reference.
var keyCollations = []gms.CollationID{
	gms.Collation_utf8mb4_general_ci,
	gms.Collation_utf8mb4_unicode_ci,
	gms.Collation_utf8mb3_general_ci,
	gms.Collation_utf8mb3_unicode_ci,
	gms.Collation_utf8mb4_unicode_520_ci,
	gms.Collation_latin1_swedish_ci,
	gms.Collation_utf8mb4_0900_ai_ci,
}

// collationKeys builds, for each collation, one table keyed by a column of
// that collation (ASC) and one keyed DESC, in a memory store.
type collationKeys struct {
	asc, desc map[gms.CollationID]*catalog.Table
}

func newCollationKeys(t testing.TB) *collationKeys {
	t.Helper()
	ctx := context.Background()
	st, co := sqltest.Memory.Open(t)
	t.Cleanup(func() { st.Close() })
	c := sqltest.OpenCatalog(t, st, co)
	if err := c.CreateDatabase(ctx, "db"); err != nil {
		t.Fatal(err)
	}
	ck := &collationKeys{asc: map[gms.CollationID]*catalog.Table{}, desc: map[gms.CollationID]*catalog.Table{}}
	for _, id := range keyCollations {
		for _, desc := range []bool{false, true} {
			name := fmt.Sprintf("t_%s_%v", id.Name(), desc)
			tbl, err := c.CreateTable(ctx, "db", &catalog.TableDef{Name: name,
				Columns:    []catalog.Column{{Name: "s", Type: catalog.Type{Kind: catalog.KindVarchar, Length: 500, Collation: id.Name()}}},
				PrimaryKey: []catalog.KeyPart{{Column: "s", Desc: desc}}})
			if err != nil {
				t.Fatalf("%s key column: %v", id.Name(), err)
			}
			if desc {
				ck.desc[id] = tbl
			} else {
				ck.asc[id] = tbl
			}
		}
	}
	return ck
}

func (ck *collationKeys) key(t testing.TB, tbl *catalog.Table, s string) [2]string {
	t.Helper()
	pk, rk, err := tbl.EncodeKey([]catalog.Datum{s})
	if err != nil {
		t.Fatalf("key of %q: %v", s, err)
	}
	return [2]string{pk, rk}
}

func compareKey(a, b [2]string) int {
	if c := storage.CompareKeys(a[0], b[0]); c != 0 {
		return c
	}
	return storage.CompareKeys(a[1], b[1])
}

// engineCompare is sqlgw's comparison of a and b under id: the engine's,
// of the values without trailing spaces under a PAD SPACE collation
// (sqlgw/engine/padspace.go).
func engineCompare(t testing.TB, id gms.CollationID, a, b string) int {
	t.Helper()
	if catalog.PadSpace(id.Name()) {
		a, b = strings.TrimRight(a, " "), strings.TrimRight(b, " ")
	}
	typ := types.MustCreateString(sqltypes.VarChar, 500, id)
	n, err := typ.Compare(context.Background(), a, b)
	if err != nil {
		t.Fatalf("engine Compare(%q, %q) under %s: %v", a, b, id.Name(), err)
	}
	return n
}

// check compares the order of a's and b's keys, ASC and DESC, with the
// engine's comparison under every collation.
func (ck *collationKeys) check(t testing.TB, a, b string) {
	t.Helper()
	for _, id := range keyCollations {
		want := engineCompare(t, id, a, b)
		if got := compareKey(ck.key(t, ck.asc[id], a), ck.key(t, ck.asc[id], b)); got != want {
			t.Fatalf("%s: keys of %q, %q compare %d, engine %d", id.Name(), a, b, got, want)
		}
		if got := compareKey(ck.key(t, ck.desc[id], a), ck.key(t, ck.desc[id], b)); got != -want {
			t.Fatalf("%s DESC: keys of %q, %q compare %d, engine %d", id.Name(), a, b, got, want)
		}
	}
}

// keyRunes are the runes random strings are made of: case and accent
// variants, characters that weigh less than a space (controls, and in
// unicode_ci the ignorables), spaces, and a few outside the BMP.
var keyRunes = []rune("aAbBsSzZ \t\x00\x01\x1f\n!~-_.éÉèEeßẞæÆøØ\u0300\u00a0€😀𝔸日本ДдΣσς")

func randomKeyString(r *rand.Rand) string {
	n := r.Intn(7)
	out := make([]rune, 0, n+3)
	for i := 0; i < n; i++ {
		if r.Intn(8) == 0 {
			out = append(out, rune(r.Intn(0x3000)))
		} else {
			out = append(out, keyRunes[r.Intn(len(keyRunes))])
		}
	}
	for i := r.Intn(4); i > 0 && r.Intn(2) == 0; i-- {
		out = append(out, ' ') // trailing spaces
	}
	return string(out)
}

// TestCollationKeyOrderMatchesEngine: for random strings (controls,
// trailing spaces, case and accent variants), keys of a column in each
// collation compare exactly as sqlgw compares the values, ASC and DESC:
// equal values share a key, and the order is sqlgw's. It includes the PAD
// SPACE collations, compared without trailing spaces ('a' = 'a ',
// 'a' < 'a\t').
func TestCollationKeyOrderMatchesEngine(t *testing.T) {
	ck := newCollationKeys(t)
	for _, p := range [][2]string{{"a", "A"}, {"a", "a "}, {"a", "a  "}, {"a ", "A "}, {"a\t", "a"}, {"a", "a\x00"}, {"", " "},
		{"ß", "s"}, {"ß", "ss"}, {"é", "E"}, {"a b", "a  b"}, {"a\tb", "a b"}, {"😀", "𝔸"}, {"σ", "ς"}, {"Σ", "σ"}} {
		ck.check(t, p[0], p[1])
		ck.check(t, p[1], p[0])
	}
	r := rand.New(rand.NewSource(34))
	for i := 0; i < 3000; i++ {
		ck.check(t, randomKeyString(r), randomKeyString(r))
	}
	// Sorted by key, a set of values is in the engine's order, and
	// neighbours share a key exactly when the engine finds them equal.
	for _, id := range keyCollations {
		vals := make([]string, 400)
		for i := range vals {
			vals[i] = randomKeyString(r)
		}
		tbl := ck.asc[id]
		sort.SliceStable(vals, func(i, j int) bool { return compareKey(ck.key(t, tbl, vals[i]), ck.key(t, tbl, vals[j])) < 0 })
		distinct := 0
		for i := 1; i < len(vals); i++ {
			e := engineCompare(t, id, vals[i-1], vals[i])
			k := compareKey(ck.key(t, tbl, vals[i-1]), ck.key(t, tbl, vals[i]))
			if e > 0 || e != k {
				t.Fatalf("%s: sorted by key, %q then %q: engine %d, keys %d", id.Name(), vals[i-1], vals[i], e, k)
			}
			if e != 0 {
				distinct++
			}
		}
		if distinct < 100 {
			t.Fatalf("%s: only %d distinct neighbours: the check is vacuous", id.Name(), distinct)
		}
	}
}

// FuzzCollationKeyOrder is TestCollationKeyOrderMatchesEngine's pair check
// over fuzzed strings (go test -fuzz FuzzCollationKeyOrder ./sqlgw).
func FuzzCollationKeyOrder(f *testing.F) {
	for _, p := range [][2]string{{"a", "A  "}, {"a\t", "a"}, {"a ", "a\x00"}, {"ß", "ss"}, {" ", ""}, {"Ab\u0300", "ab"}} {
		f.Add(p[0], p[1])
	}
	ck := newCollationKeys(f)
	f.Fuzz(func(t *testing.T, a, b string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) || len(a) > 120 || len(b) > 120 {
			return // the catalog refuses invalid UTF-8, the engine errors on it
		}
		ck.check(t, a, b)
	})
}
