package sqlgw_test

import (
	"context"
	gosql "database/sql"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/sqlgw/engine"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// TestReview13bDirectInsertMore runs INSERT shapes TestDirectInsertDiff
// does not (character sets, generated columns, AUTO_INCREMENT steps and
// overflow, temporary tables, views, expression defaults, savepoints,
// non-strict omissions, time zones) against the direct INSERT
// (engine/directinsert.go), the cached plan executed by go-mysql-server
// and the uncached statement; everything a client sees must agree.
func TestReview13bDirectInsertMore(t *testing.T) {
	direct := insertDiffConn(t, sqlgw.Config{})
	cached := insertDiffConn(t, sqlgw.Config{NoDirect: true})
	general := insertDiffConn(t, sqlgw.Config{NoPlanCache: true})
	n0 := engine.DirectInsertCount()
	steps := []string{
		"CREATE DATABASE rb", "USE rb",
		"CREATE TABLE cs (id INT PRIMARY KEY, l VARCHAR(5) CHARACTER SET latin1, a VARCHAR(5) CHARACTER SET ascii, b VARBINARY(4), u VARCHAR(3) CHARACTER SET utf8mb4)",
		"INSERT INTO cs (id, l) VALUES (1, 'é')", "INSERT INTO cs (id, l) VALUES (2, '日本')",
		"INSERT INTO cs (id, a) VALUES (3, 'é')", "INSERT INTO cs (id, u) VALUES (4, '日本語')",
		"INSERT INTO cs (id, u) VALUES (5, '日本語x')", "INSERT INTO cs (id, l, a) VALUES (6, 'ok', 'é'), (7, 'ü', 'x')",
		"INSERT INTO cs (id, b) VALUES (8, 'ééé')", "SELECT id, l, a, HEX(b), u FROM cs ORDER BY id",
		"CREATE TABLE gc (id INT PRIMARY KEY, a INT, b INT AS (a*2) STORED, c INT AS (a+1) VIRTUAL, d VARCHAR(3) AS (CONCAT(a, 'x')) STORED)",
		"INSERT INTO gc (id, a) VALUES (1, 5)", "INSERT INTO gc (id, a) VALUES (2, 500)", "INSERT INTO gc (id, a) VALUES (3, NULL)",
		"INSERT INTO gc (id, a, b) VALUES (4, 1, 2)", "INSERT INTO gc (id, a) VALUES (5, 2147483647)",
		"SELECT * FROM gc ORDER BY id",
		"CREATE TABLE ai (id BIGINT AUTO_INCREMENT PRIMARY KEY, v INT)",
		"SET @@auto_increment_increment = 5", "SET @@auto_increment_offset = 3",
		"INSERT INTO ai (v) VALUES (1)", "INSERT INTO ai (v) VALUES (2), (3), (4)", "INSERT INTO ai (id, v) VALUES (100, 5)",
		"INSERT INTO ai (v) VALUES (6)", "INSERT INTO ai (id, v) VALUES (0, 7), (NULL, 8)",
		"SET @@auto_increment_increment = 1", "SET @@auto_increment_offset = 1",
		"INSERT INTO ai (v) VALUES (9)", "SELECT * FROM ai ORDER BY id",
		"CREATE TABLE ait (id TINYINT AUTO_INCREMENT PRIMARY KEY, v INT)",
		"INSERT INTO ait (id, v) VALUES (126, 1)", "INSERT INTO ait (v) VALUES (2)", "INSERT INTO ait (v) VALUES (3)",
		"INSERT INTO ait (v) VALUES (4)", "SELECT * FROM ait ORDER BY id",
		"CREATE TABLE aiu (id INT UNSIGNED AUTO_INCREMENT PRIMARY KEY, v INT)",
		"INSERT INTO aiu (id, v) VALUES (-1, 1)", "INSERT INTO aiu (id, v) VALUES (-5, 2)", "INSERT INTO aiu (v) VALUES (3)",
		"SELECT * FROM aiu ORDER BY id",
		"CREATE TEMPORARY TABLE tt (id INT PRIMARY KEY, v VARCHAR(3) NOT NULL)",
		"INSERT INTO tt (id, v) VALUES (1, 'a')", "INSERT INTO tt (id, v) VALUES (1, 'b')", "INSERT INTO tt (id, v) VALUES (2, 'long')",
		"INSERT INTO tt (id, v) VALUES (3, NULL)", "SELECT * FROM tt ORDER BY id",
		"CREATE TABLE vb (id INT PRIMARY KEY, v INT)", "CREATE VIEW vv AS SELECT id, v FROM vb",
		"INSERT INTO vv (id, v) VALUES (1, 1)", "INSERT INTO vv (id, v) VALUES (2, 2)", "SELECT * FROM vb ORDER BY id",
		"CREATE TABLE de (id INT PRIMARY KEY, a INT DEFAULT (1+2), d DOUBLE DEFAULT (PI()), e JSON DEFAULT ('[1]'), f ENUM('x','y') NOT NULL, g SET('a','b') DEFAULT 'a,b', h BIT(3) DEFAULT b'101', i INT NOT NULL)",
		"INSERT INTO de (id, i) VALUES (1, 1)", "INSERT INTO de (id, i, f) VALUES (2, 2, 'y')", "INSERT INTO de (id) VALUES (3)",
		"SET sql_mode = ''", "INSERT INTO de (id) VALUES (4)", "INSERT INTO de (id) VALUES (5)", "INSERT INTO de (id, a, i) VALUES (6, 'abc', '12x')",
		"INSERT INTO de (id, a, i) VALUES (7, 99999999999, 1.5)", "INSERT INTO de (id, f, i) VALUES (8, 'zz', 1)",
		"SET sql_mode = DEFAULT", "SELECT id, a, d, e, f, g, HEX(h), i FROM de ORDER BY id",
		"CREATE TABLE sp (id INT PRIMARY KEY, v INT, UNIQUE KEY uv (v))",
		"BEGIN", "INSERT INTO sp (id, v) VALUES (1, 1)", "SAVEPOINT s1", "INSERT INTO sp (id, v) VALUES (2, 2)",
		"INSERT INTO sp (id, v) VALUES (3, 1)", "INSERT INTO sp (id, v) VALUES (4, 4), (5, 2)", "ROLLBACK TO SAVEPOINT s1",
		"INSERT INTO sp (id, v) VALUES (6, 2)", "SELECT * FROM sp ORDER BY id", "COMMIT", "SELECT * FROM sp ORDER BY id",
		"CREATE TABLE tz (id INT PRIMARY KEY, ts TIMESTAMP NULL, dt DATETIME)",
		"INSERT INTO tz (id, ts, dt) VALUES (1, '2020-06-01 12:00:00', '2020-06-01 12:00:00')",
		"SET time_zone = '+05:00'",
		"INSERT INTO tz (id, ts, dt) VALUES (2, '2020-06-01 12:00:00', '2020-06-01 12:00:00')",
		"SET time_zone = DEFAULT", "SELECT id, ts, dt FROM tz ORDER BY id",
		"CREATE TABLE cl (id INT PRIMARY KEY, s VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, UNIQUE KEY us (s))",
		"INSERT INTO cl (id, s) VALUES (1, 'abc')", "INSERT INTO cl (id, s) VALUES (2, 'ABC')", "INSERT INTO cl (id, s) VALUES (3, 'ábc')",
		"INSERT INTO cl (id, s) VALUES (4, 'abd'), (5, 'abd')", "SELECT * FROM cl ORDER BY id",
		"CREATE TABLE cv (id INT PRIMARY KEY, i INT, d DATE, y YEAR, dc DECIMAL(5,2))",
		"INSERT INTO cv (id, i, d, y, dc) VALUES (1, '  12  ', '20200101', '0', '1.005')",
		"INSERT INTO cv (id, i, d, y, dc) VALUES (2, '1e3', 20200102, 0, '-0.001')",
		"INSERT INTO cv (id, i, d, y, dc) VALUES (3, '0x10', '2020-01-01 10:00:00', '70', '12.3456')",
		"SET sql_mode = ''",
		"INSERT INTO cv (id, i, d, y, dc) VALUES (4, '  12  ', '20200101', '69', '1.005')",
		"INSERT INTO cv (id, i, d, y, dc) VALUES (5, 'abc', '2020-02-30', '1800', '99999')",
		"SET sql_mode = DEFAULT", "SELECT * FROM cv ORDER BY id",
		"INSERT INTO cv (id, i, i) VALUES (9, 1, 2)", "INSERT INTO cv (i, id) VALUES (10, 10)", "SELECT * FROM cv WHERE id >= 9",
		"ALTER TABLE cv ADD COLUMN z INT NOT NULL DEFAULT 7", "INSERT INTO cv (id, i) VALUES (11, 1)", "INSERT INTO cv (id, i) VALUES (12, 1)",
		"SELECT id, z FROM cv ORDER BY id",
		"SELECT LAST_INSERT_ID()",
	}
	var all []string
	for _, s := range steps {
		all = append(all, s)
		if strings.HasPrefix(s, "INSERT") {
			all = append(all, s)
		}
	}
	compareWritePaths(t, direct, cached, general, all)
	// The non-strict INSERTs (sql_mode = '') take the general path
	// (engine/lenientwrite.go).
	if n := engine.DirectInsertCount() - n0; n < 50 {
		t.Errorf("only %d INSERTs were executed directly", n)
	}
}

// TestReview13bPreparedInsertTypes sends prepared INSERTs with binary
// protocol parameters of every Go type the driver sends to a server with
// the plan cache (direct INSERT) and one without.
func TestReview13bPreparedInsertTypes(t *testing.T) {
	with, without := diffServer(t, false), diffServer(t, true)
	ctx := context.Background()
	exec := func(which int, q string, args ...any) string {
		c := with
		if which == 1 {
			c = without
		}
		if strings.HasPrefix(q, "SELECT") {
			return diffRun(c, q)
		}
		return diffExec(ctx, c, q, args...)
	}
	ins := "INSERT INTO pt (id, ti, i, bi, f, d, dc, vc, lb, vb, bl, dt, da, tm, ts, yr, en, st, bt, js) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
	tm := time.Date(2021, 3, 4, 5, 6, 7, 891000000, time.UTC)
	n0 := engine.DirectInsertCount()
	steps := []preparedWrite{
		{q: "CREATE DATABASE pt"}, {q: "USE pt"},
		{q: "CREATE TABLE pt (id INT PRIMARY KEY, ti TINYINT, i INT, bi BIGINT UNSIGNED, f FLOAT, d DOUBLE, dc DECIMAL(6,3), vc VARCHAR(4), lb VARCHAR(4) CHARACTER SET latin1, vb VARBINARY(4), bl BLOB, dt DATETIME(3), da DATE, tm TIME, ts TIMESTAMP NULL, yr YEAR, en ENUM('a','b'), st SET('x','y'), bt BIT(4), js JSON)"},
		{q: ins, args: []any{1, 1, 2, 3, 1.5, 2.5, "1.234", "abcd", "éé", []byte{0, 1, 2}, []byte("blob"), tm, tm, "10:11:12", tm, 2021, "a", "x,y", 5, `{"k": 1}`}},
		{q: ins, args: []any{2, int64(300), 2, 3, 1.5, 2.5, "1.234", "abcd", "éé", []byte{0, 1, 2}, []byte("blob"), tm, tm, "10:11:12", tm, 2021, "a", "x,y", 5, `{"k": 1}`}},
		{q: ins, args: []any{3, 1.7, 2.5, -1, float32(1.25), 1e300, 12.3456, "abcde", "日本", []byte{0, 1, 2, 3, 4}, []byte{0xff, 0xfe}, "2021-13-01", "x", "25:00:00", "1960-01-01", 1800, "c", "z", 16, `{bad`}},
		{q: ins, args: []any{4, true, "12", uint64(18446744073709551615), "1e3", "abc", 123.4564, []byte{0xc3, 0xa9}, []byte{0xe9}, "abcd", nil, tm, tm, tm, nil, "2000", 2, 3, []byte{7}, `[]`}},
		{q: ins, args: []any{5, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil}},
		{q: ins, args: []any{6, 1, 2, 3, 1.5, 2.5, "1.234", []byte{0xff, 0x41}, "a", "a", "a", tm, tm, "10:11:12", tm, 2021, "a", "x", 1, `1`}},
		{q: ins, args: []any{1, 1, 2, 3, 1.5, 2.5, "1.234", "dup", "a", "a", "a", tm, tm, "10:11:12", tm, 2021, "a", "x", 1, `1`}},
		{q: "SET sql_mode = ''"},
		{q: ins, args: []any{7, int64(300), "x12", -1, 1.5, 2.5, "123456", "abcdef", "日本", []byte{0, 1, 2, 3, 4}, "b", "2021-13-01", "x", "25:00:00", "1960-01-01", 1800, "c", "z", 16, `1`}},
		{q: "SET sql_mode = DEFAULT"},
		{q: "SELECT id, ti, i, bi, f, d, dc, vc, HEX(lb), HEX(vb), HEX(bl), dt, da, tm, ts, yr, en, st, bt+0, js FROM pt ORDER BY id"},
		{q: "CREATE TABLE p2 (id INT PRIMARY KEY, ti TINYINT, vc VARCHAR(4), lb VARCHAR(4) CHARACTER SET latin1, vb VARBINARY(4), dt DATETIME)"},
	}
	ins2 := "INSERT INTO p2 (id, ti, vc, lb, vb, dt) VALUES (?, ?, ?, ?, ?, ?)"
	for i, r := range [][]any{
		{1, "a", "é", []byte{1}, "2021-01-01 00:00:00"}, {300, "abcde", "é", []byte{1}, "2021-01-01"},
		{1, string([]byte{0xff, 0x41}), "日", []byte{1, 2, 3, 4, 5}, "2021-13-01"}, {-129, "ok", "ok", []byte{}, "x"},
		{"12", "ok", "ü", []byte{0xff}, "2021-01-01 25:00:00"}, {1, nil, nil, nil, nil},
	} {
		steps = append(steps, preparedWrite{q: ins2, args: append([]any{i + 1}, r...)})
	}
	steps = append(steps, preparedWrite{q: "SET sql_mode = ''"})
	for i, r := range [][]any{
		{300, "abcde", "日", []byte{1, 2, 3, 4, 5}, "2021-13-01"}, {"x", "ok", "ok", []byte{1}, "2021-01-01"},
	} {
		steps = append(steps, preparedWrite{q: ins2, args: append([]any{i + 10}, r...)})
	}
	steps = append(steps, preparedWrite{q: "SET sql_mode = DEFAULT"}, preparedWrite{q: "SELECT id, ti, vc, HEX(lb), HEX(vb), dt FROM p2 ORDER BY id"})
	for i, st := range steps {
		if a, b := exec(0, st.q, st.args...), exec(1, st.q, st.args...); a != b {
			t.Errorf("step %d: %s %v\nwith the plan cache:\n%s\nwithout:\n%s", i, st.q, st.args, a, b)
		}
	}
	if n := engine.DirectInsertCount() - n0; n < 4 {
		t.Errorf("only %d prepared INSERTs were executed directly", n)
	}
}

// TestReview13bRangeStar: a range read whose analyzed plan is the table
// access alone (SELECT * with a range WHERE: no Project above it) is
// planned for the cache without a panic (a341577 indexed the operator
// chain below zero, and the server dropped the connection), and its rows
// are the general path's.
func TestReview13bRangeStar(t *testing.T) {
	direct := insertDiffConn(t, sqlgw.Config{})
	general := insertDiffConn(t, sqlgw.Config{NoPlanCache: true})
	steps := []string{
		"CREATE DATABASE rs", "USE rs", "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(3))",
		"INSERT INTO t VALUES (1, 'a'), (2, NULL), (3, 'c'), (9, 'i'), (10, 'j')",
		"SELECT * FROM t WHERE id >= 9", "SELECT * FROM t WHERE id >= 2", "SELECT * FROM t WHERE id BETWEEN 2 AND 9",
		"SELECT * FROM t WHERE id < 3", "SELECT * FROM t WHERE id > 100",
	}
	for i, q := range steps {
		for range 2 {
			if a, c := writeRun(direct, q), writeRun(general, q); a != c {
				t.Fatalf("step %d: %s\nwith the plan cache:\n%s\nwithout:\n%s", i, q, a, c)
			}
		}
	}
}

// TestReview13bBulkInsert: text INSERTs larger than the plan cache's text
// limit (run directly, engine/directinsert_bulk.go) give what the general
// path gives: duplicates in the middle, too long values, NULL into NOT
// NULL, non-strict conversions, inside a transaction rolled back, a
// unique index, AUTO_INCREMENT.
func TestReview13bBulkInsert(t *testing.T) {
	direct := insertDiffConn(t, sqlgw.Config{})
	general := insertDiffConn(t, sqlgw.Config{NoPlanCache: true})
	big := func(from, n int, row func(i int) string) string {
		var sb strings.Builder
		sb.WriteString("INSERT INTO b (id, k, c, u) VALUES ")
		for i := from; i < from+n; i++ {
			if i > from {
				sb.WriteString(", ")
			}
			sb.WriteString(row(i))
		}
		return sb.String()
	}
	plain := func(i int) string { return fmt.Sprintf("(%d, %d, '%s', %d)", i, i%7, strings.Repeat("c", 40), i) }
	n0 := engine.DirectInsertCount()
	steps := []string{
		"CREATE DATABASE bi", "USE bi",
		"CREATE TABLE b (id INT AUTO_INCREMENT PRIMARY KEY, k INT NOT NULL, c VARCHAR(50), u INT, KEY kk (k), UNIQUE KEY uu (u))",
		big(1, 200, plain),
		big(1000, 200, func(i int) string {
			if i == 1100 {
				return "(50, 1, 'dup', 5000)"
			}
			return plain(i)
		}),
		big(2000, 200, func(i int) string {
			if i == 2150 {
				return fmt.Sprintf("(%d, 1, '%s', %d)", i, strings.Repeat("x", 51), i)
			}
			return plain(i)
		}),
		big(3000, 200, func(i int) string {
			if i == 3199 {
				return fmt.Sprintf("(%d, NULL, 'n', %d)", i, i)
			}
			return plain(i)
		}),
		big(4000, 200, func(i int) string {
			if i == 4001 {
				return "(4001, 1, 'u', 7)"
			}
			return plain(i)
		}),
		big(5000, 200, func(i int) string { return fmt.Sprintf("(0, %d, 'auto', NULL)", i) }),
		"SELECT LAST_INSERT_ID()",
		"SET sql_mode = ''",
		big(6000, 200, func(i int) string {
			if i == 6005 {
				return fmt.Sprintf("(%d, '12abc', '%s', %d)", i, strings.Repeat("y", 60), i)
			}
			return plain(i)
		}),
		"SET sql_mode = DEFAULT",
		"BEGIN", big(7000, 200, plain), "SELECT COUNT(*) FROM b WHERE id >= 7000", "ROLLBACK",
		"BEGIN", big(8000, 200, plain), big(8100, 200, plain), "COMMIT",
		"SELECT COUNT(*), SUM(id), SUM(k), SUM(u), SUM(LENGTH(c)) FROM b",
		"SELECT id, k, c, u FROM b WHERE id IN (1, 50, 1100, 2150, 3199, 4001, 6005, 8000, 8299) ORDER BY id",
	}
	for i, q := range steps {
		if a, c := writeRun(direct, q), writeRun(general, q); a != c {
			t.Errorf("step %d: %.200s\ndirect:\n%s\nwithout the plan cache:\n%s", i, q, a, c)
		}
	}
	if n := engine.DirectInsertCount() - n0; n < 5 {
		t.Errorf("only %d bulk INSERTs were executed directly", n)
	}
}

// TestReview13bAcknowledgedWritesVisible: once an UPDATE is acknowledged,
// a statement another session starts after it sees it, through every read
// shape the fifth round made faster: the autocommit point select without
// a snapshot (586e0a3), the IN list through a non-unique index whose
// queries reuse the shared snapshot's iterators (903488b), a range with
// ORDER BY decoding only its columns (a341577) and a range scan whose page
// values come from shared chunks (67e71a7). Readers run concurrently
// (under -race: the pooled iterators and chunks are never shared between
// two statements).
func TestReview13bAcknowledgedWritesVisible(t *testing.T) {
	db := r13Server(t, false, false)
	ctx := context.Background()
	r := sqltest.NewRunner(t, db)
	r.ExecAll("CREATE DATABASE av", "USE av",
		"CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL, c VARCHAR(40) NOT NULL, KEY kk (k))")
	db.SetMaxOpenConns(8)
	const rows = 40
	for i := 1; i <= rows; i++ {
		if _, err := db.ExecContext(ctx, "INSERT INTO av.t VALUES (?, ?, ?)", i, i%10, "v0"); err != nil {
			t.Fatal(err)
		}
	}
	var acked [rows + 1]atomic.Int64
	done := make(chan struct{})
	var fail sqltest.FirstError
	var wg sync.WaitGroup
	// Writers: each owns some rows; c is "v<version>".
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for v := int64(1); ; v++ {
				select {
				case <-done:
					return
				default:
				}
				id := 1 + w + 2*int(v%(rows/2))
				if _, err := db.ExecContext(ctx, "UPDATE av.t SET c = ? WHERE id = ?", fmt.Sprintf("v%d", v), id); err != nil {
					fail.Set(err)
					return
				}
				for {
					old := acked[id].Load()
					if old >= v || acked[id].CompareAndSwap(old, v) {
						break
					}
				}
			}
		}(w)
	}
	queries := []string{
		"SELECT id, c FROM av.t WHERE id = ?",
		"SELECT id, c FROM av.t WHERE k IN (?, ?, ?, ?)",
		"SELECT id, c FROM av.t WHERE id BETWEEN ? AND ? ORDER BY c",
		"SELECT id, c FROM av.t WHERE id >= ?",
	}
	for rd := 0; rd < 4; rd++ {
		wg.Add(1)
		go func(rd int) {
			defer wg.Done()
			st, err := db.PrepareContext(ctx, queries[rd])
			if err != nil {
				fail.Set(err)
				return
			}
			defer st.Close()
			for n := 0; ; n++ {
				select {
				case <-done:
					return
				default:
				}
				var before [rows + 1]int64
				for i := range before {
					before[i] = acked[i].Load()
				}
				var args []any
				switch rd {
				case 0:
					args = []any{1 + n%rows}
				case 1:
					args = []any{n % 10, (n + 3) % 10, (n + 5) % 10, (n + 7) % 10}
				case 2:
					args = []any{1 + n%rows, 1 + n%rows + 15}
				case 3:
					args = []any{1 + n%rows}
				}
				// Text and prepared alternately (text goes through the text
				// cache, prepared through the bound plans).
				var rs *gosql.Rows
				if n%2 == 0 {
					rs, err = st.QueryContext(ctx, args...)
				} else {
					q := queries[rd]
					for _, a := range args {
						q = strings.Replace(q, "?", fmt.Sprint(a), 1)
					}
					rs, err = db.QueryContext(ctx, q)
				}
				if err != nil {
					fail.Set(err)
					return
				}
				for rs.Next() {
					var id int
					var c string
					if err := rs.Scan(&id, &c); err != nil {
						fail.Set(err)
						return
					}
					var v int64
					fmt.Sscanf(c, "v%d", &v)
					if v < before[id] {
						fail.Set(fmt.Errorf("%s %v: row %d has %s, but v%d was acknowledged before the statement", queries[rd], args, id, c, before[id]))
					}
				}
				rs.Close()
			}
		}(rd)
	}
	time.Sleep(4 * time.Second)
	close(done)
	wg.Wait()
	if err := fail.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestReview13bPrivilegeMemoOtherGateway: a privilege check a cached plan
// remembers (869d0ba) holds only while the privilege tables are
// unchanged, and a REVOKE made through another gateway changes them when
// this gateway loads it (FLUSH PRIVILEGES here, or its periodic refresh):
// the next execute of a prepared SELECT and INSERT cached before is
// denied, and a GRANT back makes them run again.
func TestReview13bPrivilegeMemoOtherGateway(t *testing.T) {
	store, co := sqltest.Memory.Open(t)
	t.Cleanup(func() { store.Close() })
	a, _ := startAccountsServer(t, sqltest.NoClose(store), co, "", nil)
	gb, _ := startAccountsServer(t, sqltest.NoClose(store), co, "", func(c *sqlgw.Config) { c.AccountsRefresh = time.Hour })
	for _, q := range []string{"CREATE DATABASE app", "CREATE TABLE app.t (id INT PRIMARY KEY, v INT)", "INSERT INTO app.t VALUES (1, 1), (2, 2)",
		"CREATE USER 'w'@'%' IDENTIFIED BY 'w-pw'", "GRANT SELECT, INSERT ON app.t TO 'w'@'%'"} {
		sqltest.NewRunner(t, a.DB).Exec(q)
	}
	waitFor(t, "B sees the table (catalog refresh)", func() bool {
		_, err := gb.DB.Exec("SELECT id FROM app.t")
		return err == nil
	})
	ctx := context.Background()
	w := as(t, gb, "w", "w-pw", "app")
	sel, err := w.PrepareContext(ctx, "SELECT v FROM t WHERE id = ?")
	if err != nil {
		t.Fatal(err)
	}
	ins, err := w.PrepareContext(ctx, "INSERT INTO t (id, v) VALUES (?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	next := 10
	run := func() (selErr, insErr error) {
		var v int
		selErr = sel.QueryRowContext(ctx, 1).Scan(&v)
		next++
		_, insErr = ins.ExecContext(ctx, next, next)
		return selErr, insErr
	}
	for range 4 {
		if s, i := run(); s != nil || i != nil {
			t.Fatalf("granted: select %v, insert %v", s, i)
		}
	}
	sqltest.NewRunner(t, a.DB).Exec("REVOKE SELECT, INSERT ON app.t FROM 'w'@'%'")
	sqltest.NewRunner(t, gb.DB).Exec("FLUSH PRIVILEGES")
	for range 2 {
		s, i := run()
		if code := sqltest.Errno(s); code != 1044 && code != 1142 {
			t.Fatalf("after the REVOKE through A: select %v (errno %d), want access denied (1044 or 1142)", s, code)
		}
		if code := sqltest.Errno(i); code != 1044 && code != 1142 {
			t.Fatalf("after the REVOKE through A: insert %v (errno %d), want access denied (1044 or 1142)", i, code)
		}
	}
	sqltest.NewRunner(t, a.DB).Exec("GRANT SELECT, INSERT ON app.* TO 'w'@'%'")
	sqltest.NewRunner(t, gb.DB).Exec("FLUSH PRIVILEGES")
	if s, i := run(); s != nil || i != nil {
		t.Fatalf("granted again: select %v, insert %v", s, i)
	}
}

// TestReview13bInsertTextTemplates: text INSERTs run from a remembered
// template without a parse (directinsert_text.go, 6548695) must be the
// statements the parser would have made of them: the same text after USE
// of another database, after SET NAMES, negative numbers, adjacent string
// literals, an introducer followed by a space, a trailing semicolon,
// leading zeros, 64-bit limits, identifiers with digits.
func TestReview13bInsertTextTemplates(t *testing.T) {
	direct := insertDiffConn(t, sqlgw.Config{})
	general := insertDiffConn(t, sqlgw.Config{NoPlanCache: true})
	n0 := engine.InsertTextCount()
	steps := []string{
		"CREATE DATABASE tx1", "CREATE DATABASE tx2",
		"CREATE TABLE tx1.t (id BIGINT PRIMARY KEY, u BIGINT UNSIGNED, s VARCHAR(10), b VARBINARY(10))",
		"CREATE TABLE tx2.t (id BIGINT PRIMARY KEY, u BIGINT UNSIGNED, s VARCHAR(10), b VARBINARY(10))",
		"USE tx1",
	}
	ins := func(format string, n int) {
		for i := 0; i < n; i++ {
			steps = append(steps, fmt.Sprintf(format, len(steps)))
		}
	}
	ins("INSERT INTO t (id, u, s, b) VALUES (%d, 1, 'a', 'b')", 3)
	ins("INSERT INTO t (id, u, s, b) VALUES (%d, -1, 'a', 'b')", 2)
	ins("INSERT INTO t (id, u, s, b) VALUES (-%d, 1, 'a', 'b')", 2)
	ins("INSERT INTO t (id, u, s, b) VALUES (%d, 1, 'a' 'z', 'b')", 2)
	ins("INSERT INTO t (id, u, s, b) VALUES (%d, 1, _latin1 'é', _binary 'b')", 2)
	ins("INSERT INTO t (id, u, s, b) VALUES (%d, 1, 'a', 'b');", 2)
	ins("INSERT INTO t (id, u, s, b) VALUES (%d, 007, '0x41', '')", 2)
	ins("INSERT INTO t (id, u, s, b) VALUES (%d, 18446744073709551615, 'max', 'b')", 2)
	ins("INSERT INTO t (id, u, s, b) VALUES (%d, 18446744073709551616, 'over', 'b')", 2)
	ins("INSERT INTO t (id, u, s, b) VALUES (%d, 9223372036854775808, 'big', 'b')", 2)
	ins("INSERT INTO t (id, u, s, b) VALUES (%d, 1, 'toolongvalue', 'b')", 2)
	ins("INSERT INTO t (id, u, s, b) VALUES (%d, 1, 'é', 'é')", 2)
	steps = append(steps, "USE tx2")
	ins("INSERT INTO t (id, u, s, b) VALUES (%d, 1, 'a', 'b')", 3)
	steps = append(steps, "SET NAMES latin1")
	ins("INSERT INTO t (id, u, s, b) VALUES (%d, 1, 'é', 'é')", 2)
	steps = append(steps, "SET NAMES utf8mb4", "SET sql_mode = 'NO_BACKSLASH_ESCAPES'")
	ins("INSERT INTO t (id, u, s, b) VALUES (%d, 1, 'a', 'b')", 2)
	steps = append(steps, "SET sql_mode = DEFAULT", "DROP TABLE tx2.t",
		"CREATE TABLE tx2.t (id BIGINT PRIMARY KEY, u TINYINT, s CHAR(2), b INT)")
	ins("INSERT INTO t (id, u, s, b) VALUES (%d, 1, 'a', 'b')", 2)
	ins("INSERT INTO t (id, u, s, b) VALUES (%d, 1, 'a', '7')", 2)
	steps = append(steps, "SELECT * FROM tx1.t ORDER BY id", "SELECT id, u, s, HEX(s), b FROM tx2.t ORDER BY id", "SELECT LAST_INSERT_ID()")
	for i, q := range steps {
		if a, c := writeRun(direct, q), writeRun(general, q); a != c {
			t.Errorf("step %d: %s\nwith the plan cache:\n%s\nwithout:\n%s", i, q, a, c)
		}
	}
	t.Logf("%d INSERTs ran from their template", engine.InsertTextCount()-n0)
	if n := engine.InsertTextCount() - n0; n < 5 {
		t.Errorf("only %d INSERTs ran from their template", n)
	}
}

// TestReview13bDirectUpdateMore runs UPDATE shapes of the direct UPDATE
// (directupdate.go, 6c46280) against a gateway executing the cached plan
// through go-mysql-server and one without the plan cache: rows moving
// within the index they are read through, unique values swapped in a
// transaction, a savepoint, non-strict conversions and NULL into NOT
// NULL, ENUM/SET/JSON/DECIMAL assignments,
// updates to the same value.
func TestReview13bDirectUpdateMore(t *testing.T) {
	direct := insertDiffConn(t, sqlgw.Config{})
	cached := insertDiffConn(t, sqlgw.Config{NoDirect: true})
	general := insertDiffConn(t, sqlgw.Config{NoPlanCache: true})
	u0 := engine.DirectUpdates()
	steps := []string{
		"CREATE DATABASE du", "USE du",
		"CREATE TABLE t (id INT PRIMARY KEY, k INT NOT NULL, u INT, e ENUM('a','b') NOT NULL DEFAULT 'a', st SET('x','y'), j JSON, d DECIMAL(5,2), s VARCHAR(5) NOT NULL DEFAULT '', KEY kk (k), UNIQUE KEY uu (u))",
		"INSERT INTO t (id, k, u) VALUES (1, 1, 1), (2, 1, 2), (3, 2, 3), (4, 2, 4), (5, 3, NULL)",
		"UPDATE t SET k = k + 1 WHERE k = 1", "UPDATE t SET k = k + 1 WHERE k = 2", "SELECT id, k FROM t ORDER BY id",
		"UPDATE t SET u = 2 WHERE id = 1", "UPDATE t SET u = u WHERE id = 1", "UPDATE t SET u = NULL WHERE id = 1", "UPDATE t SET u = 1 WHERE id = 1",
		"BEGIN", "UPDATE t SET u = 100 WHERE id = 1", "UPDATE t SET u = 1 WHERE id = 2", "UPDATE t SET u = 2 WHERE id = 1", "SAVEPOINT s",
		"UPDATE t SET u = 3 WHERE id = 1", "UPDATE t SET u = 7 WHERE id = 4", "ROLLBACK TO SAVEPOINT s", "SELECT id, u FROM t ORDER BY id", "COMMIT",
		"SELECT id, u FROM t ORDER BY id",
		"UPDATE t SET e = 'b' WHERE id = 1", "UPDATE t SET e = 'c' WHERE id = 1", "UPDATE t SET e = 2 WHERE id = 2", "UPDATE t SET st = 'y,x' WHERE id = 1",
		"UPDATE t SET j = '{\"a\": 1}' WHERE id = 1", "UPDATE t SET j = '{bad' WHERE id = 1", "UPDATE t SET d = '1.005' WHERE id = 1", "UPDATE t SET d = '12345' WHERE id = 1",
		"UPDATE t SET s = 'abcdef' WHERE id = 1", "UPDATE t SET s = NULL WHERE id = 1", "UPDATE t SET k = 'x' WHERE id = 1",
		"SET sql_mode = ''",
		"UPDATE t SET s = 'abcdef' WHERE id = 2", "UPDATE t SET s = NULL WHERE id = 2", "UPDATE t SET k = '12x' WHERE id = 2", "UPDATE t SET d = '12345' WHERE id = 2",
		"UPDATE t SET e = 'c' WHERE id = 2", "UPDATE t SET u = 'abc' WHERE id = 3",
		"SET sql_mode = DEFAULT",
		"UPDATE t SET k = 9 WHERE k = 3", "UPDATE t SET k = 9 WHERE k = 9", "UPDATE t SET k = 10 WHERE k = 9",
		"SELECT id, k, u, e, st, j, d, s FROM t ORDER BY id",
		"SELECT id FROM t WHERE k = 10 ORDER BY id", "SELECT id FROM t WHERE u = 2",
	}
	var all []string
	for _, s := range steps {
		all = append(all, s)
		if strings.HasPrefix(s, "UPDATE") {
			all = append(all, s)
		}
	}
	compareWritePaths(t, direct, cached, general, all)
	if n := engine.DirectUpdates() - u0; n < 20 {
		t.Errorf("only %d UPDATEs were executed directly", n)
	}
}

// TestReview13bDuplicateOfFirstRow: a multi-row INSERT whose rows both
// hit a unique value names the first row's value in its 1062, as MySQL
// does, every time: the commit's global index writes run in parallel per
// partition, and the error reported was the first to arrive (which made
// TestDirectInsertDiff's step "VALUES (27, 5), (28, 2)" flaky).
func TestReview13bDuplicateOfFirstRow(t *testing.T) {
	for _, cfg := range []sqlgw.Config{{}, {NoPlanCache: true}} {
		c := insertDiffConn(t, cfg)
		for _, q := range []string{"CREATE DATABASE z", "USE z", "CREATE TABLE nn (id INT AUTO_INCREMENT PRIMARY KEY, a INT NOT NULL, u INT, UNIQUE KEY uu (u))",
			"INSERT INTO nn (a, u) VALUES (27, 5), (28, 2)"} {
			writeRun(c, q)
		}
		for i := 0; i < 30; i++ {
			r := writeRun(c, "INSERT INTO nn (a, u) VALUES (27, 5), (28, 2)")
			if !strings.Contains(r, "Duplicate entry '5' for key 'nn.uu'") {
				t.Fatalf("plan cache off %v, try %d: %s", cfg.NoPlanCache, i, r)
			}
		}
	}
}

// TestReview13bSnapshotIteratorsRepeatable: inside a transaction, IN
// lists through a non-unique index (one Query per value, on iterators the
// shared snapshot keeps for the next query, 903488b) and ranges keep
// reading the transaction's snapshot while another session commits
// changes, including rows moving between index values; after COMMIT the
// next statements see the changes.
func TestReview13bSnapshotIteratorsRepeatable(t *testing.T) {
	db := r13Server(t, false, false)
	ctx := context.Background()
	r := sqltest.NewRunner(t, db)
	r.ExecAll("CREATE DATABASE sr", "CREATE TABLE sr.t (id INT PRIMARY KEY, k INT NOT NULL, c VARCHAR(20) NOT NULL, KEY kk (k))")
	for i := 1; i <= 30; i++ {
		r.Exec("INSERT INTO sr.t VALUES (?, ?, ?)", i, i%5, fmt.Sprintf("c%d", i))
	}
	reader, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	queries := []string{
		"SELECT id, k, c FROM sr.t WHERE k IN (1, 2, 3) ORDER BY id",
		"SELECT id, k, c FROM sr.t WHERE id BETWEEN 5 AND 20 ORDER BY c",
		"SELECT id, k, c FROM sr.t WHERE k = 4 ORDER BY id",
	}
	read := func() string {
		var sb strings.Builder
		for _, q := range queries {
			sb.WriteString(diffRun(reader, q))
		}
		return sb.String()
	}
	if _, err := reader.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	before := read()
	for round := 0; round < 3; round++ {
		r.Exec("UPDATE sr.t SET c = ? WHERE id = ?", fmt.Sprintf("x%d", round), 7+round)
		r.Exec("UPDATE sr.t SET k = ? WHERE id = ?", 4, 11+round)
		r.Exec("INSERT INTO sr.t VALUES (?, 1, 'new')", 100+round)
		r.Exec("DELETE FROM sr.t WHERE id = ?", 20-round)
		if got := read(); got != before {
			t.Fatalf("round %d: the transaction's reads changed:\nbefore:\n%s\nnow:\n%s", round, before, got)
		}
	}
	if _, err := reader.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}
	after := read()
	if after == before || !strings.Contains(after, "x2") || !strings.Contains(after, "new") {
		t.Fatalf("after COMMIT the changes are not seen:\n%s", after)
	}
}
