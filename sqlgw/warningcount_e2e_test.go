package sqlgw_test

import (
	"context"
	"net"
	"strconv"
	"testing"

	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/sqlgw"
)

// TestWarningCountPacket: the warning count of a statement's OK or EOF
// packet (wire.Handler.WarningCount, read from the gateway's session map)
// is the statement's warnings, as SHOW WARNINGS lists them after it: a
// count that stayed 0 or kept an earlier statement's fails.
func TestWarningCountPacket(t *testing.T) {
	srv := memoryServer(t, sqlgw.Config{})
	host, port, _ := net.SplitHostPort(srv.Addr().String())
	p, _ := strconv.Atoi(port)
	vt, err := mysql.Connect(context.Background(), &mysql.ConnParams{Host: host, Port: p, Uname: "root"})
	if err != nil {
		t.Fatal(err)
	}
	defer vt.Close()
	exec := func(q string) uint16 {
		t.Helper()
		_, w, err := vt.ExecuteFetchWithWarningCount(q, 1000, false)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return w
	}
	exec("CREATE DATABASE wc")
	exec("USE wc")
	exec("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
	exec("INSERT INTO t VALUES (1, 1), (2, 2)")
	for _, c := range []struct {
		q    string
		want uint16
	}{
		{"SELECT 1/0", 1},
		{"SELECT v FROM t WHERE id = 1", 0},
		{"INSERT IGNORE INTO t VALUES (1, 5), (2, 6), (3, 7)", 2},
		{"SELECT 1", 0},
		{"SELECT CAST('1x' AS SIGNED)", 1},
		{"SELECT 1/0, 2/0", 2},
		{"SELECT v FROM t WHERE id = 2", 0},
	} {
		if got := exec(c.q); got != c.want {
			t.Errorf("%s: warning count %d, want %d", c.q, got, c.want)
		}
		res, err := vt.ExecuteFetch("SHOW WARNINGS", 100, false)
		if err != nil {
			t.Fatal(err)
		}
		if c.want > 0 && len(res.Rows) != int(c.want) {
			t.Errorf("%s: SHOW WARNINGS lists %d, want %d", c.q, len(res.Rows), c.want)
		}
	}
}
