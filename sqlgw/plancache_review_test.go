package sqlgw_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/storage/pebble"
)

// diffSteps runs each step on a server with the plan cache (text
// statements, direct execution) and one without, and fails at the first
// step whose outcome (columns, metadata, rows, error, warnings) differs.
// A step with a "?" runs as a server-side prepared statement with args.
type diffStep struct {
	q    string
	args []any
}

func diffSteps(t *testing.T, steps []diffStep) {
	t.Helper()
	with, without := diffServer(t, false), diffServer(t, true)
	for i, s := range steps {
		a, b := diffRun(with, s.q, s.args...), diffRun(without, s.q, s.args...)
		if a != b {
			t.Errorf("step %d: %s %v\nwith the plan cache:\n%s\nwithout:\n%s", i, s.q, s.args, a, b)
		}
	}
}

func texts(qs ...string) []diffStep {
	out := make([]diffStep, len(qs))
	for i, q := range qs {
		out[i] = diffStep{q: q}
	}
	return out
}

// TestPlanCacheSessionSettings: session variables that change a SELECT's
// result but not its text: sql_select_limit (go-mysql-server's analyzer
// puts a LIMIT on the plan) and character_set_results (the result fields'
// charset and length). A plan cached before the SET must not answer after
// it, for text statements and prepared ones.
func TestPlanCacheSessionSettings(t *testing.T) {
	steps := texts("CREATE DATABASE ss", "USE ss",
		"CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))",
		"INSERT INTO t VALUES (1, 'one'), (2, 'two'), (3, 'three'), (4, 'four')")
	queries := []diffStep{
		{q: "SELECT v FROM t WHERE id > 0"},
		{q: "SELECT v FROM t WHERE id = 2"},
		{q: "SELECT id, v FROM t WHERE id IN (1, 3, 4)"},
		{q: "SELECT v FROM t WHERE id > ?", args: []any{0}},
		{q: "SELECT id, v FROM t WHERE id BETWEEN ? AND ?", args: []any{1, 4}},
		{q: "SELECT v FROM t WHERE id = ?", args: []any{2}},
	}
	for _, set := range []string{
		"SET sql_select_limit = 2", "SET sql_select_limit = DEFAULT",
		"SET character_set_results = latin1", "SET character_set_results = binary", "SET character_set_results = NULL", "SET NAMES utf8mb4",
	} {
		steps = append(steps, queries...)
		steps = append(steps, queries...)
		steps = append(steps, diffStep{q: set})
	}
	steps = append(steps, queries...)
	diffSteps(t, steps)
}

// vtConn starts a server (with or without the plan cache) and connects
// go-mysql-server's vitess client to it, which shows every field of the
// result metadata (charset, length, flags, decimals) that database/sql
// does not.
func vtConn(t *testing.T, noCache bool) *mysql.Conn {
	t.Helper()
	st, err := pebble.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := sqlgw.NewServer(context.Background(), sqlgw.Config{
		Listen: "127.0.0.1:0", Store: st, NoPlanCache: noCache,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve()
	t.Cleanup(func() { srv.Close(context.Background()) })
	host, port, _ := net.SplitHostPort(srv.Addr().String())
	p, _ := strconv.Atoi(port)
	c, err := mysql.Connect(context.Background(), &mysql.ConnParams{Host: host, Port: p, Uname: "root"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// rawRun runs text query q and renders its fields, rows, status and
// warning count, or its error.
func rawRun(c *mysql.Conn, q string) string {
	res, err := c.ExecuteFetch(q, 10000, true)
	if err != nil {
		return "error: " + err.Error()
	}
	var sb strings.Builder
	for _, f := range res.Fields {
		fmt.Fprintf(&sb, "field %s/%s table %s/%s db %s type %v charset %d len %d flags %d dec %d\n",
			f.Name, f.OrgName, f.Table, f.OrgTable, f.Database, f.Type, f.Charset, f.ColumnLength, f.Flags, f.Decimals)
	}
	for _, r := range res.Rows {
		fmt.Fprintf(&sb, "row %v\n", r)
	}
	fmt.Fprintf(&sb, "affected %d insert id %d\n", res.RowsAffected, res.InsertID)
	return sb.String()
}

// rawDiff runs text statements on a server with the plan cache and one
// without, over the vitess client, and fails at each that differs.
func rawDiff(t *testing.T, qs []string) {
	t.Helper()
	with, without := vtConn(t, false), vtConn(t, true)
	for i, q := range qs {
		if a, b := rawRun(with, q), rawRun(without, q); a != b {
			t.Errorf("step %d: %s\nwith the plan cache:\n%s\nwithout:\n%s", i, q, a, b)
		}
	}
}

// TestTextPlanCacheCharsetResults: the result fields' charset and length
// follow character_set_results (go-mysql-server's schemaToFields); a text
// shape cached before SET NAMES / SET character_set_results must not send
// the fields of the old setting.
func TestTextPlanCacheCharsetResults(t *testing.T) {
	qs := []string{"CREATE DATABASE cr", "USE cr",
		"CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20), b VARBINARY(8))",
		"INSERT INTO t VALUES (1, 'one', 'x'), (2, 'two', 'y')"}
	sel := []string{"SELECT v, b FROM t WHERE id = 1", "SELECT id, v FROM t WHERE id > 0"}
	for _, set := range []string{"SET NAMES latin1", "SET character_set_results = NULL", "SET character_set_results = binary", "SET NAMES utf8mb4"} {
		qs = append(qs, sel...)
		qs = append(qs, sel...)
		qs = append(qs, set)
	}
	qs = append(qs, sel...)
	rawDiff(t, qs)
}
