package engine

import (
	"fmt"
	"strings"
	"testing"
)

func TestScanHints(t *testing.T) {
	for _, tc := range []struct {
		q       string
		refs    string // db.table/alias: kind names..., per reference
		blanked string // q as the engine's parser sees it
	}{
		{q: "SELECT * FROM t WHERE r = 2", refs: "", blanked: "SELECT * FROM t WHERE r = 2"},
		{q: "SELECT * FROM t IGNORE INDEX (ir) WHERE r = 2", refs: ".t/ i[ir]",
			blanked: "SELECT * FROM t                   WHERE r = 2"},
		{q: "select * from d.t as x use key for join (a, `b c`) force index for order by (PRIMARY) where 1",
			refs: "d.t/x u[a,b c] f*[PRIMARY]"},
		{q: "SELECT * FROM t1 a USE INDEX () JOIN `my t` FORCE INDEX (i) ON 1, d.u ignore index for group by (j)",
			refs: ".t1/a u[] .my t/ f[i] d.u/ i*[j]"},
		{q: "SELECT * FROM t PARTITION (p0, p1) USE INDEX (a)", refs: ".t/ u[a]"},
		{q: "SELECT * FROM d.t PARTITION (p0) AS x USE INDEX (a)", refs: "d.t/x u[a]"},
		{q: "SELECT * FROM d.t PARTITION (p0) x USE INDEX (a)", refs: "d.t/x u[a]"},
		{q: "UPDATE IGNORE t FORCE INDEX (ir) SET s = 1", refs: ".t/ f[ir]"},
		{q: "DELETE t FROM t IGNORE INDEX (ir) WHERE r = 2", refs: ".t/ i[ir]"},
		// Not hints: strings, comments, other uses of the words.
		{q: "SELECT 'FROM t USE INDEX (a)', \"IGNORE INDEX (b)\" -- t force index (c)\n", refs: ""},
		{q: "SELECT 1 /* t use index (a) */ # t use index (b)", refs: ""},
		{q: "INSERT IGNORE INTO t VALUES (1) ON DUPLICATE KEY UPDATE a = 1", refs: ""},
		{q: "CREATE TABLE t (a INT, KEY k (a), INDEX i (a))", refs: ""},
		{q: "SHOW INDEX FROM t", refs: ""},
		{q: "SELECT * FROM t IGNORE INDEX ()", refs: ""}, // MySQL: a syntax error, left to the parser
		{q: "SELECT * FROM t FORCE INDEX FOR SORT (a)", refs: ""},
	} {
		refs, spans := scanHints(tc.q)
		var got []string
		for _, r := range refs {
			s := fmt.Sprintf("%s.%s/%s", r.db, r.table, r.alias)
			for _, c := range r.clauses {
				k := map[hintKind]string{hintUse: "u", hintIgnore: "i", hintForce: "f"}[c.kind]
				if c.scoped {
					k += "*"
				}
				s += fmt.Sprintf(" %s[%s]", k, strings.Join(c.names, ","))
			}
			got = append(got, s)
		}
		if g := strings.Join(got, " "); g != tc.refs {
			t.Errorf("%q: refs %q, want %q", tc.q, g, tc.refs)
		}
		b := []byte(tc.q)
		for _, s := range spans {
			for i := s[0]; i < s[1]; i++ {
				b[i] = ' '
			}
		}
		if tc.blanked != "" && string(b) != tc.blanked {
			t.Errorf("%q: blanked %q, want %q", tc.q, b, tc.blanked)
		}
		if len(refs) > 0 && !mayHaveHints(tc.q) {
			t.Errorf("%q: mayHaveHints false", tc.q)
		}
	}
}

func TestMayHaveHints(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT * FROM t": false,
		"INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE a=1": false,
		"CREATE TABLE t (a INT, KEY k (a), INDEX i (a))":       false,
		"SHOW INDEX FROM t":                     false,
		"SELECT * FROM t use\n\tINDEX (a)":      true,
		"SELECT * FROM t IGNORE KEY (a)":        true,
		"SELECT * FROM t FORCE  index (a)":      true,
		"SELECT * FROM t USE /* c */ INDEX (a)": true,
		"SELECT 'force index'":                  true, // the scanner finds no hint
	} {
		if got := mayHaveHints(q); got != want {
			t.Errorf("mayHaveHints(%q) = %v", q, got)
		}
	}
}

func TestHintEffect(t *testing.T) {
	r := &hintRef{table: "t", clauses: []hintClause{
		{kind: hintUse, names: []string{"A", "b"}},
		{kind: hintIgnore, names: []string{"B"}},
		{kind: hintIgnore, scoped: true, names: []string{"a"}},
	}}
	h := effectOf(r)
	if !h.allows("a") || h.allows("b") || h.allows("c") || h.force {
		t.Errorf("USE (A, b) IGNORE (B) IGNORE FOR ORDER BY (a): %+v", h)
	}
	hs := &hintSet{refs: []*tableHint{h, effectOf(&hintRef{clauses: []hintClause{{kind: hintForce, names: []string{"c"}}}})}}
	if !hs.allows("c") || !hs.allows("a") || hs.allows("b") || hs.force() {
		t.Errorf("two references: least restrictive, FORCE only if all force")
	}
	if h := effectOf(&hintRef{clauses: []hintClause{{kind: hintUse}}}); h.allows("a") {
		t.Errorf("USE INDEX () allows a")
	}
}

func TestReadOnlyStatement(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT * FROM t USE INDEX (a)":                         true,
		" /* c */ (SELECT 1) UNION (SELECT 2)":                  true,
		"WITH x AS (SELECT 1) SELECT * FROM x":                  true,
		"EXPLAIN FORMAT=tree SELECT * FROM t":                   true,
		"EXPLAIN UPDATE t FORCE INDEX (a) SET b = 1":            false,
		"UPDATE t FORCE INDEX (a) SET b = 1":                    false,
		"DELETE t FROM t IGNORE INDEX (a) WHERE b = 1":          false,
		"INSERT INTO u SELECT * FROM t IGNORE INDEX (a)":        false,
		"CREATE VIEW v AS SELECT * FROM t IGNORE INDEX (a)":     false,
		"EXPLAIN ANALYZE SELECT * FROM t IGNORE INDEX (a)":      true,
		"DESCRIBE DELETE t FROM t IGNORE INDEX (a) WHERE b = 1": false,
	} {
		if got := readOnlyStatement(q); got != want {
			t.Errorf("readOnlyStatement(%q) = %v", q, got)
		}
	}
}
