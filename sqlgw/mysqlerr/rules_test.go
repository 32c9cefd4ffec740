package mysqlerr

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// TestRules gives, for every rule, the exact go-mysql-server text it
// matches and what the client gets; every rule must have a case.
func TestRules(t *testing.T) {
	cases := []struct {
		query       string
		num         int
		msg, db     string
		wantNum     int
		wantState   string
		wantMessage string
	}{
		{"DROP TABLE t", 1146, "table not found: t", "shop", 1051, "42S02", "Unknown table 'shop.t'"},
		{"drop view v", 1146, "table not found: v", "", 1051, "42S02", "Unknown table 'v'"},
		{"DROP DATABASE nodb", 1049, "database not found: nodb", "", 1008, "HY000", "Can't drop database 'nodb'; database doesn't exist"},
		{"", 1007, "can't create database shop; database exists", "", 1007, "HY000", "Can't create database 'shop'; database exists"},
		{"", 1007, `catalog: database exists: "shop"`, "", 1007, "HY000", "Can't create database 'shop'; database exists"},
		{"", 1054, "Unknown column 'x' in 't'", "", 1054, "42S22", "Unknown column 'x' in 'field list'"},
		{"", 1105, `column "nope" could not be found in any table in scope`, "", 1054, "42S22", "Unknown column 'nope' in 'field list'"},
		{"", 1105, `table "t" does not have column "c"`, "", 1054, "42S22", "Unknown column 't.c' in 'field list'"},
		{"", 1105, "string 'abcd' is too large for column 's'", "", 1406, "22001", "Data too long for column 's'"},
		{"", 1105, "300 out of range for tinyint", "", 1264, "22003", "Out of range value for column of type tinyint: 300"},
		{"", 1105, "Out of range value for column of Decimal type ", "", 1264, "22003", "Out of range value for column of type decimal"},
		{"", 1105, "the view d.v does not exist", "", 1051, "42S02", "Unknown table 'd.v'"},
		{"", 1105, "Unknown table 't'", "shop", 1051, "42S02", "Unknown table 'shop.t'"},
		{"", 1105, "cannot execute statement in a READ ONLY transaction", "", 1792, "25006", "Cannot execute statement in a READ ONLY transaction."},
		{"", 1105, "Variable 'version' is a read only variable", "", 1238, "HY000", "Variable 'version' is a read only variable"},
		{"", 1105, "unresolved table name `u` in locking clause.", "", 3568, "HY000", "Unresolved table name `u` in locking clause."},
		{"select * fro a", 1105, "syntax error at position 13 near 'fro'", "", 1064, "42000", syntax1064("fro a", 1)},
		{"", 1105, "no database selected", "", 1046, "3D000", "No database selected"},
		{"", 1105, "function: 'nosuch' not found", "shop", 1305, "42000", "FUNCTION shop.nosuch does not exist"},
		{"", 1062, "duplicate primary key given: [x,1]", "", 1062, "23000", "Duplicate entry 'x-1' for key 'PRIMARY'"},
		{"", 1062, "duplicate unique key given: [Duplicate entry 'a' for key 'ux']", "", 1062, "23000", "Duplicate entry 'a' for key 'ux'"},
		{"", 1048, "column name 'id' is non-nullable but attempted to set a value of null", "", 1048, "23000", "Column 'id' cannot be null"},
		{"", 1146, "table not found: nosuch", "shop", 1146, "42S02", "Table 'shop.nosuch' doesn't exist"},
		{"", 1049, "database not found: nodb", "", 1049, "42000", "Unknown database 'nodb'"},
		{"", 1105, "Field 'owner' doesn't have a default value", "", 1364, "HY000", "Field 'owner' doesn't have a default value"},
		{"", 1050, "table with name accounts already exists", "", 1050, "42S01", "Table 'accounts' already exists"},
		{"", 1105, "error: table is not primary key alterable", "", 1235, "42000", "sqlgw: changing the primary key of a table is not supported yet"},
		{"", 1105, "the table does not support foreign key operations: t", "", 1235, "42000", "sqlgw: foreign keys (on table t) are not supported yet"},
		{"", 1105, "the view d.v already exists", "", 1050, "42S01", "Table 'v' already exists"},
		{"", 1105, `Check constraint "chk" violated`, "", 3819, "HY000", "Check constraint 'chk' is violated."},
		{"", 1105, `The value specified for generated column "g" in table "t" is not allowed.`, "", 3105, "HY000", "The value specified for generated column 'g' in table 't' is not allowed."},
		{"", 1105, `can't alter column "a" because it would invalidate check constraint "chk"`, "", 3959, "HY000", "Check constraint 'chk' uses column 'a', hence column cannot be dropped or renamed."},
		{"", 1105, `Constraint "chk" does not exist`, "", 3940, "HY000", "Constraint 'chk' does not exist."},
		{"", 1105, `trigger "tr" does not exist`, "", 1360, "HY000", "Trigger does not exist"},
		{"", 1105, sql.ErrVirtualColumnPrimaryKey.New().Error(), "", 3106, "HY000", "'Defining a virtual generated column as primary key' is not supported for generated columns."},
		{"", 1105, sql.ErrGeneratedColumnWithDefault.New().Error(), "", 1221, "HY000", "Incorrect usage of DEFAULT and generated column"},
		{"EXECUTE Stmt1 USING @a", 1105, "Unknown prepared statement handler (stmt1) given to EXECUTE", "", 1243, "HY000", "Unknown prepared statement handler (Stmt1) given to EXECUTE"},
		{"deallocate prepare `My S`", 1105, "Unknown prepared statement handler (my s) given to EXECUTE", "", 1243, "HY000", "Unknown prepared statement handler (My S) given to DEALLOCATE PREPARE"},
		{"DROP PREPARE x", 1105, "Unknown prepared statement handler (x) given to EXECUTE", "", 1243, "HY000", "Unknown prepared statement handler (x) given to DEALLOCATE PREPARE"},
		{"SELECT 1; EXECUTE Y", 1105, "Unknown prepared statement handler (y) given to EXECUTE", "", 1243, "HY000", "Unknown prepared statement handler (y) given to EXECUTE"},
	}
	covered := make([]bool, len(rules))
	for _, tc := range cases {
		if i, _ := ruleFor(tc.num, tc.query, tc.msg); i >= 0 {
			covered[i] = true
		} else {
			t.Errorf("%d %q: no rule", tc.num, tc.msg)
		}
		var out *mysql.SQLError
		if !errors.As(TranslateStatement(mysql.NewSQLError(tc.num, "", "%s", tc.msg), tc.query, tc.db, nil), &out) {
			t.Fatalf("%q: not a SQLError", tc.msg)
		}
		if int(out.Num) != tc.wantNum || out.State != tc.wantState || out.Message != tc.wantMessage {
			t.Errorf("%q %d %q -> %d %s %q; want %d %s %q", tc.query, tc.num, tc.msg, out.Num, out.State, out.Message, tc.wantNum, tc.wantState, tc.wantMessage)
		}
	}
	for i, c := range covered {
		if !c {
			t.Errorf("rule %d (%s) has no case", i, rules[i].re)
		}
	}
}

// TestRulesMatchKinds formats each rule's go-mysql-server kind and checks
// the rule's pattern matches it: a change of wording upstream fails here.
func TestRulesMatchKinds(t *testing.T) {
	for i, r := range rules {
		if r.kind == nil {
			continue
		}
		args := make([]any, strings.Count(r.kind.Message, "%")-2*strings.Count(r.kind.Message, "%%"))
		for j := range args {
			args[j] = fmt.Sprintf("a%d", j)
		}
		var text string
		if wrappedKinds[r.kind] {
			text = r.kind.Wrap(errors.New("[a0]")).Error()
		} else {
			text = r.kind.New(args...).Error()
		}
		if !r.re.MatchString(text) {
			t.Errorf("rule %d: %q does not match the kind's text %q", i, r.re, text)
		}
	}
}

func syntax1064(near string, line int) string {
	return fmt.Sprintf("You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '%s' at line %d", near, line)
}

// TestSyntaxErrorNear: the 1064 text is the statement from the token the
// parser stopped at (empty when the statement ended too early), at most 80
// characters, with that token's line, from vitess's position and token.
func TestSyntaxErrorNear(t *testing.T) {
	long := "SELECT 1 frm " + strings.Repeat("x", 100)
	cases := []struct {
		query    string
		pos      int
		tok      string
		wantNear string
		wantLine int
	}{
		{"select * fro a", 13, "fro", "fro a", 1},
		{"selec", 6, "selec", "selec", 1},
		{"select * from a where", 22, "where", "", 1},
		{"select * from a where ;", 22, "where", "", 1},
		{"select 1 from t where a = 1 and", 32, "and", "", 1},
		{"insert into t values (1,2", 26, "2", "", 1},
		{"select 1,\n2 frm t", 18, "t", "t", 2},
		{"select 1,\n2 frm t;  ", 18, "t", "t", 2},
		{"select 1,\n2 +", 14, "2", "", 2},
		{long, 114, strings.Repeat("x", 100), strings.Repeat("x", 80), 1},
		{"", 6, "selec", "selec", 1},            // statement not known
		{"show tables", 6, "selec", "selec", 1}, // not the statement vitess parsed
	}
	for _, c := range cases {
		near, line := nearSyntax(c.query, c.pos, c.tok)
		msg := syntaxErrorText(near, line)
		if want := syntax1064(c.wantNear, c.wantLine); msg != want {
			t.Errorf("%q at %d near %q:\n got %s\nwant %s", c.query, c.pos, c.tok, msg, want)
		}
	}
}

// TestSyntaxErrorFromParser: the 1064 text for vitess's own errors on
// statements where its token is not the one it stopped at.
func TestSyntaxErrorFromParser(t *testing.T) {
	for _, c := range []struct{ query, near string }{
		{"select a from b where c = = 1", "= 1"},
		{"create table x (id int primary key,)", ")"},
		{"select 1 from t order by", ""},
		{"select * fro a", "fro a"},
		{"SELECT 1,\n  2 frm t", "t"},
	} {
		_, err := sqlparser.Parse(c.query)
		if err == nil {
			t.Fatalf("%q parsed", c.query)
		}
		m := syntaxPattern.FindStringSubmatch(err.Error())
		if m == nil {
			t.Fatalf("%q: %v", c.query, err)
		}
		num, state, msg := syntaxError(m, &context{query: c.query})
		line := 1 + strings.Count(c.query[:len(c.query)-len(c.near)], "\n")
		if c.near == "" {
			line = 1 + strings.Count(c.query, "\n")
		}
		if want := syntax1064(c.near, line); num != 1064 || state != "42000" || msg != want {
			t.Errorf("%q (%v):\n got %d %s %s\nwant %s", c.query, err, num, state, msg, want)
		}
	}
}
