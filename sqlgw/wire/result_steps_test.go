package wire

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"github.com/sqlgw/sqlgw/sqlgw/engine"
)

// TestResultStepOrder: the result and error rewrites are one list, in the
// order they see go-mysql-server's answer, each with the upstream
// behaviour it corrects and exactly one of Result and Error.
func TestResultStepOrder(t *testing.T) {
	want := []string{"time-precision", "time-fractions", "float-text", "insert-info", "ok-info", "show-like-header", "time-ddl",
		"warning-texts", "row-count", "read-only-transaction-flag", "interrupted", "foreign-key-errors", "mysql-errors"}
	var got []string
	for _, st := range resultSteps {
		got = append(got, st.Name)
		if st.Upstream == "" {
			t.Errorf("%s: no upstream behaviour", st.Name)
		}
		if (st.Result == nil) == (st.Error == nil) {
			t.Errorf("%s: want exactly one of Result and Error", st.Name)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("steps %v, want %v", got, want)
	}
}

func resultStep(t *testing.T, name string) ResultStep {
	t.Helper()
	for _, st := range resultSteps {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("no result step %q", name)
	return ResultStep{}
}

func timeResult(decimals uint32, values ...string) *sqltypes.Result {
	res := &sqltypes.Result{Fields: []*querypb.Field{{Name: "t", Type: querypb.Type_TIME, Decimals: decimals}}}
	for _, v := range values {
		res.Rows = append(res.Rows, []sqltypes.Value{sqltypes.MakeTrusted(sqltypes.Time, []byte(v))})
	}
	return res
}

func namesResult(first string) *sqltypes.Result {
	return &sqltypes.Result{Fields: []*querypb.Field{{Name: first, Type: querypb.Type_VARCHAR}},
		Rows: [][]sqltypes.Value{{sqltypes.NewVarChar("shop")}}}
}

// TestResultSteps: each Result step, alone, on a result and the statement
// that produced it. time-precision, insert-info and time-ddl need the
// catalog or a session for their rewrite; here they show they leave other
// answers alone, and TestMiscTimePrecision, TestTimeText and make clitest
// (INSERT's info) cover the rewrite end to end.
func TestResultSteps(t *testing.T) {
	for _, tc := range []struct {
		step, query string
		in, want    *sqltypes.Result
	}{
		{"time-precision", "SELECT t FROM x", timeResult(0, "12:34:56.000000"), timeResult(0, "12:34:56.000000")},
		{"time-fractions", "SELECT t FROM x", timeResult(0, "12:34:56.000000", "-01:00:00.000000"), timeResult(0, "12:34:56", "-01:00:00")},
		{"time-fractions", "SELECT t FROM x", timeResult(0, "12:34:56.500000"), timeResult(0, "12:34:56.500000")},
		{"time-fractions", "SELECT t FROM x", timeResult(6, "12:34:56.000000"), timeResult(6, "12:34:56.000000")},
		{"insert-info", "INSERT INTO x VALUES (1)", &sqltypes.Result{RowsAffected: 1}, &sqltypes.Result{RowsAffected: 1}},
		{"ok-info", "PREPARE s FROM 'SELECT 1'", &sqltypes.Result{Info: "Statement prepared"},
			&sqltypes.Result{Info: "Statement prepared" + strings.Repeat(" ", infoLen-len("Statement prepared"))}},
		{"ok-info", "UPDATE x SET a = 1", &sqltypes.Result{RowsAffected: 1, Info: "Rows matched: 2  Changed: 1  Warnings: 0"},
			&sqltypes.Result{RowsAffected: 1, Info: "Rows matched: 2  Changed: 1        Warnings: 0"}},
		{"ok-info", "SELECT 1", namesResult("1"), namesResult("1")},
		{"show-like-header", "SHOW DATABASES LIKE 'sh%'", namesResult("Database"), namesResult("Database (sh%)")},
		{"show-like-header", "show full tables like 'o%'", namesResult("Tables_in_shop"), namesResult("Tables_in_shop (o%)")},
		{"show-like-header", "SHOW DATABASES", namesResult("Database"), namesResult("Database")},
		{"show-like-header", "SHOW TABLES WHERE Tables_in_shop LIKE 'o%'", namesResult("Tables_in_shop"), namesResult("Tables_in_shop")},
		{"time-ddl", "SELECT 'SHOW CREATE TABLE x'", namesResult("x"), namesResult("x")},
	} {
		h := &Handler{GW: &engine.Gateway{}}
		s := &statement{ctx: context.Background(), c: &mysql.Conn{ConnectionID: 7}, query: tc.query}
		var got *sqltypes.Result
		cb := resultStep(t, tc.step).Result(h, s, func(res *sqltypes.Result, more bool) error {
			got = res
			return nil
		})
		if err := cb(tc.in, false); err != nil {
			t.Fatalf("%s %q: %v", tc.step, tc.query, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %q:\n got %v\nwant %v", tc.step, tc.query, got, tc.want)
		}
	}
}

// TestResultErrorSteps: each Error step, alone, on go-mysql-server's
// error and the statement that produced it.
func TestResultErrorSteps(t *testing.T) {
	unknown := func(msg string) error {
		return mysql.NewSQLError(mysql.ERUnknownError, mysql.SSUnknownSQLState, "%s", msg)
	}
	for _, tc := range []struct {
		step, query string
		killed      bool
		in          error
		num         int
		state, msg  string
	}{
		{"interrupted", "SELECT SLEEP(10)", false, context.Canceled, 1317, "70100", "Query execution was interrupted"},
		{"interrupted", "SELECT SLEEP(10)", false, unknown("context canceled"), 1317, "70100", "Query execution was interrupted"},
		{"interrupted", "SELECT SLEEP(10)", true, context.Canceled, 1927, "70100", "Connection was killed"},
		{"interrupted", "SELECT 1", false, unknown("table not found: t"), 1105, "HY000", "table not found: t"},
		{"foreign-key-errors", "ALTER TABLE c ADD CONSTRAINT fk FOREIGN KEY (p_id) REFERENCES p (id)", false, unknown("duplicate foreign key constraint name `fk`"),
			1826, "HY000", "Duplicate foreign key constraint name 'fk'"},
		{"foreign-key-errors", "SELECT 1", false, unknown("table not found: t"), 1105, "HY000", "table not found: t"},
		{"mysql-errors", "DROP TABLE t", false, mysql.NewSQLError(1146, "", "table not found: t"), 1051, "42S02", "Unknown table 't'"},
		{"mysql-errors", "SELECT * FROM t", false, mysql.NewSQLError(1146, "", "table not found: t"), 1146, "42S02", "Table 't' doesn't exist"},
	} {
		h := &Handler{GW: &engine.Gateway{}}
		c := &mysql.Conn{ConnectionID: 7}
		if tc.killed {
			h.kills.m.Store(c.ConnectionID, struct{}{})
		}
		err := resultStep(t, tc.step).Error(h, &statement{ctx: context.Background(), c: c, query: tc.query}, tc.in)
		var se *mysql.SQLError
		if !errors.As(err, &se) || se.Num != tc.num || se.State != tc.state || se.Message != tc.msg {
			t.Errorf("%s %q %v: %v, want %d (%s) %s", tc.step, tc.query, tc.in, err, tc.num, tc.state, tc.msg)
		}
	}
}

// TestWarningTextsStep: SHOW WARNINGS' 1292 rows get MySQL's words; other
// rows and other statements pass unchanged.
func TestWarningTextsStep(t *testing.T) {
	rows := func() *sqltypes.Result {
		return &sqltypes.Result{Fields: make([]*querypb.Field, 3), Rows: [][]sqltypes.Value{
			{sqltypes.NewVarChar("Warning"), sqltypes.NewInt64(1292), sqltypes.NewVarChar("Truncated incorrect bigint value: x1")},
			{sqltypes.NewVarChar("Warning"), sqltypes.NewInt64(1365), sqltypes.NewVarChar("Division by 0")},
		}}
	}
	var got *sqltypes.Result
	keep := func(res *sqltypes.Result, _ bool) error { got = res; return nil }
	if err := mysqlWarningTexts("show  Warnings limit 5", keep)(rows(), false); err != nil {
		t.Fatal(err)
	}
	if m := got.Rows[0][2].ToString(); m != "Truncated incorrect INTEGER value: 'x1'" {
		t.Errorf("SHOW WARNINGS 1292: %q", m)
	}
	if m := got.Rows[1][2].ToString(); m != "Division by 0" {
		t.Errorf("SHOW WARNINGS 1365: %q", m)
	}
	if err := mysqlWarningTexts("SELECT 'Truncated incorrect bigint value: x1'", keep)(rows(), false); err != nil {
		t.Fatal(err)
	}
	if m := got.Rows[0][2].ToString(); m != "Truncated incorrect bigint value: x1" {
		t.Errorf("a SELECT's row was rewritten: %q", m)
	}
}
