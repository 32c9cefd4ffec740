package sqlgw_test

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/sqlgw"
)

// typesServer starts a gateway on an in-memory Pebble store, with direct
// execution off if noDirect (Config.NoDirect: cached plans then run
// through go-mysql-server's executor), and returns a vitess client
// connection (text protocol, every field attribute) and a database/sql
// one (server-side prepared statements: the binary protocol).
func typesServer(t *testing.T, noDirect bool) (*mysql.Conn, *sql.Conn) {
	t.Helper()
	srv := memoryServer(t, sqlgw.Config{NoDirect: noDirect})
	host, port, _ := net.SplitHostPort(srv.Addr().String())
	p, _ := strconv.Atoi(port)
	vt, err := mysql.Connect(context.Background(), &mysql.ConnParams{Host: host, Port: p, Uname: "root"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(vt.Close)
	db, err := sql.Open("mysql", fmt.Sprintf("root@tcp(%s)/", net.JoinHostPort(host, port)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return vt, c
}

// TestDirectTypesWire: rows read by direct execution (engine/direct.go,
// which decodes only the projected columns straight from the entity,
// engine/rowdecode.go) reach the client exactly as through
// go-mysql-server's executor (Config.NoDirect): every column type, NULLs,
// extreme values, fractional seconds, CHAR padding, generated columns and
// a value split over continuation entities (a table with a VIRTUAL
// generated column is not cached: go-mysql-server computes it above the
// table); field attributes (type,
// flags, length, charset, decimals) and value bytes over the text
// protocol, the binary protocol's values and column types over prepared
// statements; point gets, IN lists, ranges and single-column projections.
func TestDirectTypesWire(t *testing.T) {
	dvt, dc := typesServer(t, false)
	gvt, gc := typesServer(t, true)
	big := strings.Repeat("0123456789abcdéf", 8000) // 136 KB: split over chunks and continuations
	setup := []string{
		"CREATE DATABASE ty", "USE ty",
		`CREATE TABLE t (
			id INT PRIMARY KEY,
			ti TINYINT, si SMALLINT, mi MEDIUMINT, i INT, bi BIGINT,
			tu TINYINT UNSIGNED, su SMALLINT UNSIGNED, mu MEDIUMINT UNSIGNED, iu INT UNSIGNED, bu BIGINT UNSIGNED,
			bo BOOLEAN,
			d DECIMAL(30,10), d0 DECIMAL(5,0), du DECIMAL(10,2) UNSIGNED, f FLOAT, db DOUBLE,
			dt DATE, dtm DATETIME, dtm6 DATETIME(6), ts TIMESTAMP(3) NULL, tm TIME, tm6 TIME(6), y YEAR,
			b1 BIT(1), b5 BIT(5), b64 BIT(64),
			e ENUM('a','b','ccc'), st SET('x','y','z'),
			j JSON,
			bl BLOB, tb TINYBLOB, tx TEXT, mt MEDIUMTEXT, bin BINARY(4), vb VARBINARY(10),
			ch CHAR(5), vc VARCHAR(20), chl CHAR(3) CHARACTER SET latin1, vcb VARCHAR(10) COLLATE utf8mb4_bin,
			g BIGINT AS (i + 1) STORED,
			gs VARCHAR(40) AS (CONCAT(vc, '!')) STORED,
			KEY k_i (i)
		)`,
		"INSERT INTO t (id) VALUES (1)",
		`INSERT INTO t (id, ti, si, mi, i, bi, tu, su, mu, iu, bu, bo, d, d0, du, f, db, dt, dtm, dtm6, ts, tm, tm6, y, b1, b5, b64, e, st, j, bl, tb, tx, mt, bin, vb, ch, vc, chl, vcb) VALUES
			(2, -128, -32768, -8388608, -2147483648, -9223372036854775808, 0, 0, 0, 0, 0, false,
			 -99999999999999999999.9999999999, -99999, 0, -3.40282e38, -1.7976931348623157e308,
			 '1000-01-01', '1000-01-01 00:00:00', '1000-01-01 00:00:00.000001', '1970-01-01 00:00:01.000', '-838:59:59', '-838:59:58.999999', 1901,
			 b'0', b'0', b'0', 'a', '', 'null', '', '', '', '', '', '', '', '', '', ''),
			(3, 127, 32767, 8388607, 2147483647, 9223372036854775807, 255, 65535, 16777215, 4294967295, 18446744073709551615, true,
			 99999999999999999999.9999999999, 99999, 99999999.99, 3.40282e38, 1.7976931348623157e308,
			 '9999-12-31', '9999-12-31 23:59:59', '9999-12-31 23:59:59.999999', '2038-01-19 03:14:07.999', '838:59:59', '838:59:59.000000', 2155,
			 b'1', b'11111', b'1111111111111111111111111111111111111111111111111111111111111111', 'ccc', 'x,y,z',
			 '{"a": [1, 2.5, "é", null, true], "b": {"c": -1e-7}}', x'00ff10', x'ff', 'ünïcödé 😀', 'mid', 'ab', x'00ff', 'ab  ', 'trailing  ', 'é', 'Bin'),
			(4, 0, -1, 1, 12345, 1, 1, 256, 70000, 1, 9223372036854775808, NULL,
			 0.0000000001, 0, 0.5, 0.1, 0.1,
			 '2024-02-29', '2024-02-29 12:34:56', '2024-02-29 12:34:56.5', '2024-02-29 12:34:56.123', '00:00:00', '-00:00:00.000001', 0,
			 NULL, b'10', b'1000000000000000000000000000000000000000000000000000000000000000', 'b', 'y',
			 '[1, "two", {"three": 3}]', NULL, NULL, '', NULL, x'61', NULL, ' x', 'v', 'abc', NULL)`,
		"INSERT INTO t (id, i, mt, vc) VALUES (5, 7, '" + big + "', 'wide')",
	}
	for _, q := range setup {
		if a, b := rawRun(dvt, q), rawRun(gvt, q); a != b {
			t.Fatalf("%s:\n%s\n%s", q, a, b)
		}
	}
	for _, c := range []*sql.Conn{dc, gc} {
		if _, err := c.ExecContext(context.Background(), "USE ty"); err != nil {
			t.Fatal(err)
		}
	}
	cols := []string{"id", "ti", "si", "mi", "i", "bi", "tu", "su", "mu", "iu", "bu", "bo", "d", "d0", "du", "f", "db",
		"dt", "dtm", "dtm6", "ts", "tm", "tm6", "y", "b1", "b5", "b64", "e", "st", "j", "bl", "tb", "tx", "mt", "bin", "vb",
		"ch", "vc", "chl", "vcb", "g", "gs"}
	var texts []string
	for id := 1; id <= 6; id++ { // 6: no such row
		texts = append(texts, fmt.Sprintf("SELECT * FROM t WHERE id = %d", id))
	}
	for _, c := range cols {
		for id := 1; id <= 5; id++ {
			texts = append(texts, fmt.Sprintf("SELECT %s FROM t WHERE id = %d", c, id))
		}
	}
	texts = append(texts,
		"SELECT * FROM t WHERE id IN (1, 2, 3, 4, 5)",
		"SELECT tx, id, ch AS c2, ch FROM t WHERE id BETWEEN 2 AND 4",
		"SELECT * FROM t WHERE id > 1 ORDER BY id LIMIT 3",
		"SELECT id, mt FROM t WHERE i = 7",
		"SELECT * FROM t WHERE i IN (-2147483648, 2147483647, 12345)",
	)
	run := func(q string) {
		t.Helper()
		// Twice: the first execute builds the cached plan through
		// go-mysql-server, the second runs it (directly, on dvt).
		for range 2 {
			if a, b := rawRun(dvt, q), rawRun(gvt, q); a != b {
				t.Errorf("%s\ndirect:\n%s\nexecutor:\n%s", q, a, b)
				return
			}
		}
	}
	for _, q := range texts {
		run(q)
	}
	prepared := []struct {
		q    string
		args [][]any
	}{
		{"SELECT * FROM t WHERE id = ?", [][]any{{1}, {2}, {3}, {4}, {5}, {6}}},
		{"SELECT * FROM t WHERE id IN (?, ?, ?)", [][]any{{1, 2, 3}, {4, 5, 6}}},
		{"SELECT " + strings.Join(cols[1:], ", ") + " FROM t WHERE id BETWEEN ? AND ?", [][]any{{1, 5}}},
		{"SELECT * FROM t WHERE i = ?", [][]any{{-2147483648}, {2147483647}, {7}}},
	}
	for _, c := range cols {
		prepared = append(prepared, struct {
			q    string
			args [][]any
		}{"SELECT " + c + " FROM t WHERE id = ?", [][]any{{1}, {2}, {3}, {4}, {5}}})
	}
	for _, p := range prepared {
		for range 2 {
			for _, args := range p.args {
				if a, b := diffRun(dc, p.q, args...), diffRun(gc, p.q, args...); a != b {
					t.Errorf("%s %v\ndirect:\n%s\nexecutor:\n%s", p.q, args, a, b)
				}
			}
		}
	}
	// The comparison is only worth something if dvt ran them directly.
	count := func(c *mysql.Conn) int {
		r, err := c.ExecuteFetch("SHOW SESSION STATUS LIKE 'Plan_cache_direct'", 10, false)
		if err != nil || len(r.Rows) != 1 {
			t.Fatalf("Plan_cache_direct: %v %v", r, err)
		}
		n, _ := strconv.Atoi(r.Rows[0][1].ToString())
		return n
	}
	if n := count(dvt); n < len(texts) {
		t.Errorf("%d text statements ran directly, want at least %d", n, len(texts))
	}
	if n := directRuns(t, dc); n < int64(len(prepared)) {
		t.Errorf("%d prepared executes ran directly, want at least %d", n, len(prepared))
	}
	if n := count(gvt); n != 0 {
		t.Errorf("%d statements ran directly with NoDirect", n)
	}
}
