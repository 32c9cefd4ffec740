package sqltext

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// run applies one step and returns the text.
func run(s Step, q string) *Text { return Run(q, []Step{s}) }

func TestMariaDBOnly(t *testing.T) {
	for _, tc := range []struct {
		in, out string
		empty   bool
	}{
		{"/*M!999999\\- enable the sandbox mode */", "", true},
		{"/*M!999999 x */;\n", "", true},
		{"  /*M!100000 anything */ SELECT 7", "SELECT 7", false},
		{"/*M!1 a */; /*M!2 b */ ;SELECT 1", "SELECT 1", false},
		{"SELECT 1 /*M!100000 x */", "SELECT 1 /*M!100000 x */", false}, // not leading: a comment to the lexer
		{"/*!40101 SET x=1 */", "/*!40101 SET x=1 */", false},
		{"/* c */ /*M!1 x */ SELECT 1", "/* c */ /*M!1 x */ SELECT 1", false}, // as before: only at the very start
		{"SELECT 1", "SELECT 1", false},
	} {
		res := run(MariaDBOnly, tc.in)
		if res.String() != tc.out || res.Empty != tc.empty {
			t.Errorf("%q: got %q empty=%v, want %q empty=%v", tc.in, res.String(), res.Empty, tc.out, tc.empty)
		}
	}
}

func TestAssignments(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT @a := 1", "SELECT sqlgw_assign('a', 1)"},
		{"SELECT @a:=1, @b := @a + 1 AS x FROM t", "SELECT sqlgw_assign('a',1), sqlgw_assign('b', sqlgw_var('a') + 1 )AS x FROM t"},
		{"SELECT @a := @b := 2", "SELECT sqlgw_assign('a', sqlgw_assign('b', 2))"},
		{"SELECT IF(x, @a := 1, @a := (2)) FROM t", "SELECT IF(x, sqlgw_assign('a', 1), sqlgw_assign('a', (2))) FROM t"},
		{"SELECT CASE d WHEN 'a' THEN @dt:= IF(p=1,(-7), (-2))  WHEN 'b' THEN @dt:=5 ELSE @dt:=(-4)END AS t",
			"SELECT CASE d WHEN 'a' THEN sqlgw_assign('dt', IF(p=1,(-7), (-2))  )WHEN 'b' THEN sqlgw_assign('dt',5 )ELSE sqlgw_assign('dt',(-4))END AS t"},
		{"SELECT @a := CASE WHEN x THEN 1 ELSE 2 END FROM t", "SELECT sqlgw_assign('a', CASE WHEN x THEN 1 ELSE 2 END )FROM t"},
		{"SELECT ':=', \"@a := 1\", `@b:=`, @c /* @d := 1 */ -- @e := 1\n", "SELECT ':=', \"@a := 1\", `@b:=`, @c /* @d := 1 */ -- @e := 1\n"},
		{"SELECT @`my var` := 'x''y'", "SELECT sqlgw_assign('my var', 'x''y')"},
		{"SELECT @'it''s' := 1, @\"b\\\\\" := 2", `SELECT sqlgw_assign('it''s', 1), sqlgw_assign('b\\\\', 2)`},
		{"SET @a := 1", "SET @a := 1"},
		{"SET @a := 1; SELECT @b := 2", "SET @a := 1; SELECT sqlgw_assign('b', 2)"},
		{"SELECT @@sql_mode, @a := 1", "SELECT @@sql_mode, sqlgw_assign('a', 1)"},
		{"SELECT 1", "SELECT 1"},
		{"SELECT @a := 1 a, @a + 1 b", "SELECT sqlgw_assign('a', 1 )a, sqlgw_var('a') + 1 b"},
		{"SET @a = 1; SELECT @a := @a + 1, @a, @b, @@a, '@a'; SELECT @a", "SET @a = 1; SELECT sqlgw_assign('a', sqlgw_var('a') + 1), sqlgw_var('a'), @b, @@a, '@a'; SELECT sqlgw_var('a')"},
		{"SELECT @a := t.x IS NOT NULL `y` FROM t", "SELECT sqlgw_assign('a', t.x IS NOT NULL )`y` FROM t"},
		{"SELECT @a := 1.5 * (2 + 3) z", "SELECT sqlgw_assign('a', 1.5 * (2 + 3) )z"},
		{"SELECT @a := CASE x WHEN 1 THEN 'a' ELSE 'b' END c", "SELECT sqlgw_assign('a', CASE x WHEN 1 THEN 'a' ELSE 'b' END )c"},
		{"WITH c AS (SELECT 1 x) SELECT @n := x FROM c", "WITH c AS (SELECT 1 x) SELECT sqlgw_assign('n', x )FROM c"},
		{"SELECT @A := 1, @a", "SELECT sqlgw_assign('A', 1), sqlgw_var('a')"},
		{"SELECT @a := 1 'alias'", "SELECT sqlgw_assign('a', 1 )'alias'"},
		{"SELECT (@a := 1); INSERT INTO t VALUES (@a)", "SELECT (sqlgw_assign('a', 1)); INSERT INTO t VALUES (@a)"},
	} {
		if got := run(Assignments, tc.in).String(); got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}

func TestTimePrecision(t *testing.T) {
	for _, tc := range []struct {
		in, out string
		decl    map[string]int
	}{
		{"CREATE TABLE t (a TIME, b time(3), `C c` Time ( 0 ) NOT NULL, d TIME(6))",
			"CREATE TABLE t (a TIME, b time(6), `C c` Time (6) NOT NULL, d TIME(6))",
			map[string]int{"a": 0, "b": 3, "c c": 0, "d": 6}},
		// Strings, comments and quoted names are not types.
		{"CREATE TABLE t (a INT COMMENT 'x TIME(3)', /* b TIME(2) */ `time` TIME(1) DEFAULT '10:00')",
			"CREATE TABLE t (a INT COMMENT 'x TIME(3)', /* b TIME(2) */ `time` TIME(6) DEFAULT '10:00')",
			map[string]int{"time": 1}},
		{"ALTER TABLE t ADD COLUMN x TIME(2), CHANGE y z TIME(4)",
			"ALTER TABLE t ADD COLUMN x TIME(6), CHANGE y z TIME(6)",
			map[string]int{"x": 2, "z": 4}},
		{"/* x */ create table t (a time(3))", "/* x */ create table t (a time(6))", map[string]int{"a": 3}},
		{"create temporary table t (a time(3)) -- t time(2)", "create temporary table t (a time(6)) -- t time(2)", map[string]int{"a": 3}},
		// Only the first statement of a multi-statement text.
		{"CREATE TABLE t (a TIME(3)); CREATE TABLE u (a TIME)",
			"CREATE TABLE t (a TIME(6)); CREATE TABLE u (a TIME)",
			map[string]int{"a": 3}},
		// Invalid precisions are left to the engine's error.
		{"CREATE TABLE t (a TIME(7))", "CREATE TABLE t (a TIME(7))", nil},
		{"CREATE TABLE t (a TIME(3), b TIME(x))", "CREATE TABLE t (a TIME(3), b TIME(x))", nil},
		// Not a CREATE or ALTER TABLE.
		{"SELECT TIME('10:00')", "SELECT TIME('10:00')", nil},
		{"CREATE VIEW v AS SELECT CAST(x AS TIME(3))", "CREATE VIEW v AS SELECT CAST(x AS TIME(3))", nil},
		{"CREATE TABLE t (a INT)", "CREATE TABLE t (a INT)", nil},
	} {
		res := run(TimePrecision, tc.in)
		if res.String() != tc.out || !reflect.DeepEqual(res.TimePrecisions, tc.decl) && (len(res.TimePrecisions) > 0 || len(tc.decl) > 0) {
			t.Errorf("%s:\n got %s %v\nwant %s %v", tc.in, res.String(), res.TimePrecisions, tc.out, tc.decl)
		}
	}
}

func TestIndexHints(t *testing.T) {
	for _, tc := range []struct {
		q       string
		refs    string // db.table/alias: kind names..., per reference
		blanked string // q as the engine's parser sees it ("": unchanged)
	}{
		{q: "SELECT * FROM t WHERE r = 2", refs: ""},
		{q: "SELECT * FROM t IGNORE INDEX (ir) WHERE r = 2", refs: ".t/ i[ir]",
			blanked: "SELECT * FROM t                   WHERE r = 2"},
		{q: "select * from d.t as x use key for join (a, `b c`) force index for order by (PRIMARY) where 1",
			refs:    "d.t/x u[a,b c] f*[PRIMARY]",
			blanked: "select * from d.t as x                                                                where 1"},
		{q: "SELECT * FROM t1 a USE INDEX () JOIN `my t` FORCE INDEX (i) ON 1, d.u ignore index for group by (j)",
			refs: ".t1/a u[] .my t/ f[i] d.u/ i*[j]"},
		{q: "SELECT * FROM t PARTITION (p0, p1) USE INDEX (a)", refs: ".t/ u[a]"},
		{q: "SELECT * FROM d.t PARTITION (p0) AS x USE INDEX (a)", refs: "d.t/x u[a]"},
		{q: "SELECT * FROM d.t PARTITION (p0) x USE INDEX (a)", refs: "d.t/x u[a]"},
		{q: "UPDATE IGNORE t FORCE INDEX (ir) SET s = 1", refs: ".t/ f[ir]"},
		{q: "DELETE t FROM t IGNORE INDEX (ir) WHERE r = 2", refs: ".t/ i[ir]"},
		{q: "SELECT * FROM t USE\nINDEX (a)", refs: ".t/ u[a]", blanked: "SELECT * FROM t    \n         "},
		{q: "SELECT * FROM t USE /* c */ INDEX (a)", refs: ".t/ u[a]"},
		// Not hints: strings, comments, other uses of the words.
		{q: "SELECT 'FROM t USE INDEX (a)', \"IGNORE INDEX (b)\" -- t force index (c)\n", refs: ""},
		{q: "SELECT 1 /* t use index (a) */ # t use index (b)", refs: ""},
		{q: "SELECT * FROM t /*! use index (a) */", refs: ""}, // as before: executable comments are skipped
		{q: "INSERT IGNORE INTO t VALUES (1) ON DUPLICATE KEY UPDATE a = 1", refs: ""},
		{q: "CREATE TABLE t (a INT, KEY k (a), INDEX i (a))", refs: ""},
		{q: "SHOW INDEX FROM t", refs: ""},
		{q: "SELECT * FROM t IGNORE INDEX ()", refs: ""}, // MySQL: a syntax error, left to the parser
		{q: "SELECT * FROM t FORCE INDEX FOR SORT (a)", refs: ""},
	} {
		res := run(IndexHints, tc.q)
		var got []string
		for _, r := range res.Hints {
			s := fmt.Sprintf("%s.%s/%s", r.DB, r.Table, r.Alias)
			for _, c := range r.Clauses {
				k := map[HintKind]string{HintUse: "u", HintIgnore: "i", HintForce: "f"}[c.Kind]
				if c.Scoped {
					k += "*"
				}
				s += fmt.Sprintf(" %s[%s]", k, strings.Join(c.Names, ","))
			}
			got = append(got, s)
		}
		if g := strings.Join(got, " "); g != tc.refs {
			t.Errorf("%q: refs %q, want %q", tc.q, g, tc.refs)
		}
		if g := ScanHints(tc.q); len(g) != len(res.Hints) {
			t.Errorf("%q: ScanHints found %d references, the step %d", tc.q, len(g), len(res.Hints))
		}
		want := tc.blanked
		if want == "" && tc.refs == "" {
			want = tc.q
		}
		if out := res.String(); len(out) != len(tc.q) || want != "" && out != want {
			t.Errorf("%q: blanked %q, want %q", tc.q, out, want)
		}
		if tc.refs != "" && !MayHaveHints(tc.q) {
			t.Errorf("%q: MayHaveHints false", tc.q)
		}
	}
	for _, q := range []string{"SELECT 1", "SELECT * FROM t WHERE usekey = 1", "SELECT index FROM keys"} {
		if MayHaveHints(q) {
			t.Errorf("MayHaveHints(%q) = true", q)
		}
	}
}

// TestWire runs the connection handler's pipeline: each step acts on its
// own statement or clause, in one pass.
func TestWire(t *testing.T) {
	for _, tc := range []struct {
		in, out string
		decl    map[string]int
		empty   bool
	}{
		{"/*M!100000 x */ SELECT @a := 1, @a", "SELECT sqlgw_assign('a', 1), sqlgw_var('a')", nil, false},
		{"/*M!100000 x */ CREATE TABLE t (a TIME(3))", "CREATE TABLE t (a TIME(6))", map[string]int{"a": 3}, false},
		{"/*M!100000 x */;", "", nil, true},
		{"SELECT 1", "SELECT 1", nil, false},
	} {
		res := Run(tc.in, Wire)
		if res.String() != tc.out || res.Empty != tc.empty || !reflect.DeepEqual(res.TimePrecisions, tc.decl) {
			t.Errorf("%q: got %q %v empty=%v", tc.in, res.String(), res.TimePrecisions, res.Empty)
		}
	}
	for _, pl := range [][]Step{Wire, Parse} {
		for _, s := range pl {
			if s.Name == "" || s.Upstream == "" || s.Apply == nil {
				t.Errorf("step %q: needs a name, the upstream behaviour it corrects and Apply", s.Name)
			}
		}
	}
}

// TestRunOverlapping: steps whose edits touch the same text run one after
// the other, each on the previous one's output.
func TestRunOverlapping(t *testing.T) {
	upper := Step{Name: "upper", Apply: func(t *Text) {
		for _, tok := range t.Tokens() {
			if tok.Kind == Word {
				t.Replace(tok.Start, tok.End, strings.ToUpper(tok.Text(t.Src)))
			}
		}
	}}
	wrap := Step{Name: "wrap-select", Apply: func(t *Text) {
		for _, tok := range t.Tokens() {
			if tok.Is(t.Src, "select") {
				t.Replace(tok.Start, tok.End, "("+tok.Text(t.Src)+")")
			}
		}
	}}
	if got := Run("select a", []Step{upper, wrap}).String(); got != "(SELECT) A" {
		t.Errorf("overlapping steps: %q", got)
	}
	ins := Step{Name: "insert", Apply: func(t *Text) { t.Insert(0, "/* x */ ") }}
	if got := Run("select a", []Step{upper, ins}).String(); got != "/* x */ SELECT A" {
		t.Errorf("insertion at a replaced token's start: %q", got)
	}
}

func TestMayHaveHintsReadOnly(t *testing.T) {
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
		if got := MayHaveHints(q); got != want {
			t.Errorf("MayHaveHints(%q) = %v", q, got)
		}
	}
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
		if got := ReadOnly(q); got != want {
			t.Errorf("ReadOnly(%q) = %v", q, got)
		}
	}
}
