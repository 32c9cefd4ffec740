package admin

import (
	"errors"
	"fmt"
	"testing"

	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/sqlgw/sqltext"
)

func TestParseAdmin(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want string // fmt of the statement, "" if not taken, "E<code>" for an error
		rest string
	}{
		{"CHECK TABLE t", "check [{ t}] []", ""},
		{"  check tables `d`.`t``x`, e QUICK extended ;", "check [{d t`x} { e}] [QUICK EXTENDED]", ""},
		{"CHECK TABLE t FOR UPGRADE", "check [{ t}] [FOR UPGRADE]", ""},
		{"/* mysqlcheck */ REPAIR NO_WRITE_TO_BINLOG TABLE d.t USE_FRM", "repair [{d t}] [USE_FRM]", ""},
		{"optimize local table a,b", "optimize [{ a} { b}] []", ""},
		{"ANALYZE TABLE t; SELECT 1", "analyze [{ t}] []", " SELECT 1"},
		{"ANALYZE TABLE t;  -- done\n", "analyze [{ t}] []", ""},
		{"CHECKSUM TABLE t EXTENDED", "checksum [{ t}] [EXTENDED]", ""},
		{"ANALYZE TABLE t UPDATE HISTOGRAM ON a", "", ""},
		{"ANALYZE TABLE t DROP HISTOGRAM ON a", "", ""},
		{"SELECT 1", "", ""},
		{"CHECKPOINT", "", ""},
		{"check (a > 1)", "", ""},
		{"CHECK TABLE", "E1064", ""},
		{"CHECK TABLE t foo", "E1064", ""},
		{"CHECK TABLE t FOR", "E1064", ""},
		{"OPTIMIZE TABLE t QUICK", "E1064", ""},
		{"CHECK TABLE d.", "E1064", ""},
		{"CHECK TABLE `unterminated", "E1064", ""},
		{"CHECKSUM TABLE t QUICK EXTENDED", "E1064", ""},
	} {
		st, rest, ok, err := parseAdmin(tc.q)
		var got string
		var se *mysql.SQLError
		switch {
		case !ok:
		case errors.As(err, &se):
			got = fmt.Sprintf("E%d", se.Num)
		case err != nil:
			got = err.Error()
		default:
			got = fmt.Sprintf("%s %v %v", st.op, st.tables, st.options)
		}
		if got != tc.want || rest != tc.rest {
			t.Errorf("parseAdmin(%q) = %q, rest %q; want %q, rest %q", tc.q, got, rest, tc.want, tc.rest)
		}
	}
}

func TestAdminPlaceholder(t *testing.T) {
	for _, q := range []string{"CHECK TABLE t", "repair table `a'b`", "CHECK TABLE t foo"} {
		p := Placeholder(q)
		if p == q {
			t.Fatalf("%q: no placeholder", q)
		}
		if back, ok := adminFromPlaceholder(p); !ok || back != q {
			t.Fatalf("%q: placeholder %q gives %q %v", q, p, back, ok)
		}
	}
	if q := "SELECT 'a := 1'"; Placeholder(q) != q {
		t.Fatal("a non-admin statement was replaced")
	}
	if _, ok := adminFromPlaceholder("SELECT 'sqlgw-admin:zz'"); ok {
		t.Fatal("bad hex accepted")
	}
}

// TestPrepareTextUnquote: the text of PREPARE ... FROM is decoded by
// sqltext.Unquote, as every other literal.
func TestPrepareTextUnquote(t *testing.T) {
	for in, want := range map[string]string{
		`'CHECK TABLE t'`:     "CHECK TABLE t",
		`'CHECK TABLE ''t'''`: "CHECK TABLE 't'",
		`"a\"b\\c\n"`:         "a\"b\\c\n",
	} {
		if got := sqltext.Unquote(in); got != want {
			t.Errorf("sqltext.Unquote(%s) = %q, want %q", in, got, want)
		}
	}
}
