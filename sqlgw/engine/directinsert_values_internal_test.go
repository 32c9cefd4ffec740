package engine

import (
	"fmt"
	"reflect"
	"strconv"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// TestBulkIntValue: an integer literal's value is the binder's
// (planbuilder ConvertVal), Go type included, at every boundary of
// convertInt's types.
func TestBulkIntValue(t *testing.T) {
	b := planbuilder.New(sql.NewEmptyContext(), nil, nil)
	var digits []string
	for _, n := range []uint64{0, 1, 127, 128, 255, 256, 32767, 32768, 65535, 65536, 1<<31 - 1, 1 << 31, 1<<32 - 1, 1 << 32, 1<<63 - 1, 1 << 63, 1<<64 - 1} {
		digits = append(digits, strconv.FormatUint(n, 10))
	}
	digits = append(digits, "007", "000", "0000000000000000000000000255")
	for _, d := range digits {
		got, ok := bulkIntValue(d)
		lit, isLit := b.ConvertVal(ast.NewIntVal([]byte(d))).(*expression.Literal)
		if !ok || !isLit || !reflect.DeepEqual(got, lit.Value()) {
			t.Errorf("%s: %T(%v), binder %#v", d, got, got, lit)
		}
	}
	if v, ok := bulkIntValue("18446744073709551616"); ok {
		t.Errorf("beyond 64 bits: %T(%v), want declined (a DECIMAL)", v, v)
	}
}

// TestScanBulkValues: the head, first tuple and values scanBulkValues
// takes out of a bulk INSERT text, and the texts it leaves to the parser.
func TestScanBulkValues(t *testing.T) {
	for _, c := range []struct {
		q, head, first string
		rows           string // fmt's %v of the rows; "" if declined
	}{
		{"INSERT INTO sbtest1(k, c, pad) VALUES(5014,'1-2','p'),(7,'','q')", "INSERT INTO sbtest1(k, c, pad) VALUES", "(5014,'1-2','p')", "[[5014 1-2 p] [7  q]]"},
		{"  insert into `t values` values ( 1 , NULL ) ,\n(300,null);  ", "  insert into `t values` values", "( 1 , NULL )", "[[1 <nil>] [300 <nil>]]"},
		{"INSERT INTO myvalues VALUES (1), (2)", "INSERT INTO myvalues VALUES", "(1)", "[[1] [2]]"},
		{"INSERT INTO t VALUES (1, 'a'), (2)", "", "", ""}, // tuples of different lengths
		{"INSERT INTO t VALUES (1), (2) AS n", "", "", ""}, // something after the tuples
		{"INSERT INTO t VALUES (1), (2);;", "", "", ""},    // two semicolons
		{"INSERT INTO t VALUES (1), (-2)", "", "", ""},     // negative
		{"INSERT INTO t VALUES (1), (2.5)", "", "", ""},    // decimal
		{"INSERT INTO t VALUES (1), (2e1)", "", "", ""},    // float
		{"INSERT INTO t VALUES (1), (0x1F)", "", "", ""},   // hex
		{"INSERT INTO t VALUES (1), (18446744073709551616)", "", "", ""},
		{"INSERT INTO t VALUES ('a'), ('it''s')", "", "", ""},                                       // doubled quote
		{"INSERT INTO t VALUES ('a'), ('a\\'b')", "", "", ""},                                       // backslash
		{"INSERT INTO t VALUES ('a'), ('a' 'b')", "", "", ""},                                       // adjacent strings
		{"INSERT INTO t VALUES ('a'), (_utf8mb4'b')", "", "", ""},                                   // introducer
		{"INSERT INTO t VALUES ('a'), (N'b')", "", "", ""},                                          // national string
		{"INSERT INTO t VALUES ('a'), (\"b\")", "", "", ""},                                         // double quotes
		{"INSERT INTO t VALUES (1), (DEFAULT)", "", "", ""},                                         // DEFAULT
		{"INSERT INTO t VALUES (1), (NULLIF(1, 2))", "", "", ""},                                    // a function
		{"INSERT INTO t VALUES (1), ()", "", "", ""},                                                // empty tuple
		{"INSERT INTO t VALUES (1), (2) -- c", "", "", ""},                                          // comment
		{"INSERT /* c */ INTO t VALUES (1), (2)", "", "", ""},                                       // comment in the head
		{"INSERT INTO t SELECT 1", "", "", ""},                                                      // no VALUES
		{"INSERT IGNORE INTO t VALUES (1), (2)", "INSERT IGNORE INTO t VALUES", "(1)", "[[1] [2]]"}, // declined by the plan
		{"REPLACE INTO t VALUES (1), (2)", "", "", ""},
		{"INSERT INTO t VALUES ROW(1), ROW(2)", "", "", ""},
		{"INSERT INTO t VALUES (1), (2", "", "", ""},
	} {
		head, first, rows, ok := scanBulkValues(c.q)
		got := ""
		if ok {
			got = fmt.Sprintf("%v", rows)
		}
		if got != c.rows || ok && (head != c.head || first != c.first) {
			t.Errorf("%q: head %q, first %q, rows %s; want %q, %q, %s", c.q, head, first, got, c.head, c.first, c.rows)
		}
	}
	// The values' types are the binder's; strings share the text.
	_, _, rows, _ := scanBulkValues("INSERT INTO t VALUES (200, 'x', NULL), (70000, 'yy', 5)")
	want := []sql.Row{{uint8(200), "x", nil}, {int32(70000), "yy", int8(5)}}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows %#v, want %#v", rows, want)
	}
}
