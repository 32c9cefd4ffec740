package mysqlerr

import (
	"errors"
	"testing"

	"github.com/dolthub/vitess/go/mysql"
)

func TestTranslateError(t *testing.T) {
	for _, tc := range []struct {
		num         int
		state, msg  string
		db          string
		wantNum     int
		wantState   string
		wantMessage string
	}{
		{1062, "", "duplicate primary key given: [x,1]", "", 1062, "23000", "Duplicate entry 'x-1' for key 'PRIMARY'"},
		{1062, "", "duplicate primary key given: a", "", 1062, "23000", "Duplicate entry 'a' for key 'PRIMARY'"},
		{1048, "", "column name 'id' is non-nullable but attempted to set a value of null", "", 1048, "23000", "Column 'id' cannot be null"},
		{1146, "", "table not found: nosuch", "shop", 1146, "42S02", "Table 'shop.nosuch' doesn't exist"},
		{1105, "", "Field 'owner' doesn't have a default value", "", 1364, "HY000", "Field 'owner' doesn't have a default value"},
		{1105, "", "table with name accounts already exists", "", 1050, "42S01", "Table 'accounts' already exists"},
		{1105, "", "the view d.v already exists", "", 1050, "42S01", "Table 'v' already exists"},
		{1049, "", "database not found: nodb", "", 1049, "42000", "Unknown database 'nodb'"},
		{1213, "40001", "Deadlock found", "", 1213, "40001", "Deadlock found"},
		{1105, "", "something else", "", 1105, "HY000", "something else"},
		{1105, "", "300 out of range for tinyint", "", 1264, "22003", "Out of range value for column of type tinyint: 300"},
		{1105, "", "string 'it's' is too large for column 's'", "", 1406, "22001", "Data too long for column 's'"},
		{1105, "", `column "nope" could not be found in any table in scope`, "", 1054, "42S22", "Unknown column 'nope' in 'field list'"},
		{1105, "", "cannot execute statement in a READ ONLY transaction", "", 1792, "25006", "Cannot execute statement in a READ ONLY transaction."},
		{1792, "25006", "cannot execute statement in a READ ONLY transaction", "", 1792, "25006", "Cannot execute statement in a READ ONLY transaction."},
		{1068, "", "error: Multiple primary keys defined", "", 1068, "42000", "Multiple primary key defined"},
	} {
		in := mysql.NewSQLError(tc.num, tc.state, "%s", tc.msg)
		var out *mysql.SQLError
		if !errors.As(Translate(in, tc.db), &out) {
			t.Fatalf("%q: not a SQLError", tc.msg)
		}
		if out.Num != tc.wantNum || out.State != tc.wantState || out.Message != tc.wantMessage {
			t.Errorf("%d %q -> %d %s %q; want %d %s %q", tc.num, tc.msg, out.Num, out.State, out.Message, tc.wantNum, tc.wantState, tc.wantMessage)
		}
	}
	// With the write's detail (strictwrite.go): MySQL's column and row.
	for _, tc := range []struct{ msg, want string }{
		{"1000 out of range for tinyint", "Out of range value for column 'ti' at row 2"},
		{"Out of range value for column of Decimal type ", "Out of range value for column 'ti' at row 2"},
		{"string 'abcd' is too large for column 'ti'", "Data too long for column 'ti' at row 2"},
	} {
		var out *mysql.SQLError
		in := mysql.NewSQLError(1105, "", "%s", tc.msg)
		if !errors.As(TranslateStatement(in, "", "", &WriteError{Column: "ti", Row: 2}), &out) || out.Message != tc.want {
			t.Errorf("%q with detail: %v, want %q", tc.msg, out, tc.want)
		}
	}
	plain := errors.New("not a SQL error")
	if Translate(plain, "") != plain {
		t.Error("a plain error was changed")
	}
}
