package sqlgw_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw"
)

// TestNonStrictWrites: with an empty sql_mode MySQL stores the closest value a
// column holds and warns (1265 truncated, 1366 not a number, 1264 out of
// range) where strict mode rejects; go-mysql-server rejected in every
// mode. Every path that writes: INSERT ... VALUES (one row, many rows,
// a long one taken by the bulk path), INSERT ... SELECT, UPDATE,
// ON DUPLICATE KEY UPDATE, PREPARE/EXECUTE; with the direct paths on and
// off (Config.NoDirect), which must agree. Strict mode keeps rejecting.
func TestNonStrictWrites(t *testing.T) {
	for _, cfg := range []sqlgw.Config{{}, {NoDirect: true}, {NoPlanCache: true, NoTextPlanCache: true}} {
		t.Run(fmt.Sprintf("NoDirect=%v,NoCache=%v", cfg.NoDirect, cfg.NoPlanCache), func(t *testing.T) {
			w := newWarningsConn(t, cfg)
			w.exec("CREATE DATABASE ns")
			w.exec("USE ns")
			w.exec("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(3), n INT, ti TINYINT, u TINYINT UNSIGNED, d DECIMAL(4,1), f FLOAT, b VARBINARY(2))")
			// Strict (the default) rejects.
			for _, q := range []string{
				"INSERT INTO t (id, v) VALUES (1, 'abcdef')",
				"INSERT INTO t (id, n) VALUES (1, 'x')",
				"INSERT INTO t (id, ti) VALUES (1, 1000)",
			} {
				if _, err := w.vt.ExecuteFetch(q, 10, false); err == nil {
					t.Errorf("strict: %s succeeded", q)
				}
			}
			w.exec("SET sql_mode = ''")
			// Twice: the second from the plan cache.
			for i := 1; i <= 2; i++ {
				id := fmt.Sprint(i)
				w.expect("INSERT INTO t (id, v, n, ti) VALUES ("+id+", 'abcdef', 'x', 1000)",
					"Warning|1265|Data truncated for column 'v' at row 1",
					"Warning|1366|Incorrect integer value: 'x' for column 'n' at row 1",
					"Warning|1264|Out of range value for column 'ti' at row 1")
			}
			w.expect("INSERT INTO t (id, v, n, ti, u) VALUES (3, 'ab', '12abc', -1000, -5), (4, 'äöüß', '7', 5, 300)",
				"Warning|1265|Data truncated for column 'n' at row 1",
				"Warning|1264|Out of range value for column 'ti' at row 1",
				"Warning|1264|Out of range value for column 'u' at row 1",
				"Warning|1265|Data truncated for column 'v' at row 2",
				"Warning|1264|Out of range value for column 'u' at row 2")
			w.expect("INSERT INTO t (id, d, f, b) VALUES (5, 12345.6, 'q', 'xyz'), (6, '-99999', '1.5e', 'a')",
				"Warning|1264|Out of range value for column 'd' at row 1",
				"Warning|1265|Data truncated for column 'f' at row 1",
				"Warning|1265|Data truncated for column 'b' at row 1",
				"Warning|1264|Out of range value for column 'd' at row 2",
				"Warning|1265|Data truncated for column 'f' at row 2")
			want := []string{
				"1|abc|0|127|NULL|NULL|NULL|NULL",
				"2|abc|0|127|NULL|NULL|NULL|NULL",
				"3|ab|12|-128|0|NULL|NULL|NULL",
				"4|äöü|7|5|255|NULL|NULL|NULL",
				"5|NULL|NULL|NULL|NULL|999.9|0|xy",
				"6|NULL|NULL|NULL|NULL|-999.9|1.5|a",
			}
			if got := w.rows("SELECT * FROM t ORDER BY id"); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			// UPDATE, twice (the second from the plan cache).
			for i := 0; i < 2; i++ {
				w.expect("UPDATE t SET v = 'zzzzzz', n = 'y', ti = 300 WHERE id = 1",
					"Warning|1265|Data truncated for column 'v' at row 1",
					"Warning|1366|Incorrect integer value: 'y' for column 'n' at row 1",
					"Warning|1264|Out of range value for column 'ti' at row 1")
			}
			w.expect("UPDATE t SET ti = ti * 100 WHERE id IN (3, 4) ORDER BY id",
				"Warning|1264|Out of range value for column 'ti' at row 1",
				"Warning|1264|Out of range value for column 'ti' at row 2")
			w.expect("INSERT INTO t (id, v, n) SELECT id + 10, CONCAT(v, 'long'), 'q' FROM t WHERE id IN (1, 2) ORDER BY id",
				"Warning|1265|Data truncated for column 'v' at row 1",
				"Warning|1366|Incorrect integer value: 'q' for column 'n' at row 1",
				"Warning|1265|Data truncated for column 'v' at row 2",
				"Warning|1366|Incorrect integer value: 'q' for column 'n' at row 2")
			w.expect("INSERT INTO t (id, v) VALUES (1, 'a') ON DUPLICATE KEY UPDATE v = 'long', ti = 999",
				"Warning|1265|Data truncated for column 'v' at row 1",
				"Warning|1264|Out of range value for column 'ti' at row 1")
			w.exec("PREPARE s FROM 'INSERT INTO t (id, v, n, ti) VALUES (?, ?, ?, ?)'")
			w.exec("SET @a = 20, @b = 'abcdefgh', @c = 'w', @d = 5000")
			w.expect("EXECUTE s USING @a, @b, @c, @d",
				"Warning|1265|Data truncated for column 'v' at row 1",
				"Warning|1366|Incorrect integer value: 'w' for column 'n' at row 1",
				"Warning|1264|Out of range value for column 'ti' at row 1")
			// A long statement (the bulk path's).
			var vals []string
			for i := 100; i < 400; i++ {
				vals = append(vals, fmt.Sprintf("(%d, 'long value', 100000)", i))
			}
			if n := w.exec("INSERT INTO t (id, v, ti) VALUES " + strings.Join(vals, ",")); n != 600 {
				t.Errorf("bulk INSERT: %d warnings, want 600", n)
			}
			want = []string{
				"1|lon|0|127|NULL|NULL|NULL|NULL",
				"3|ab|12|-128|0|NULL|NULL|NULL",
				"4|äöü|7|127|255|NULL|NULL|NULL",
				"11|zzz|0|NULL|NULL|NULL|NULL|NULL",
				"12|abc|0|NULL|NULL|NULL|NULL|NULL",
				"20|abc|0|127|NULL|NULL|NULL|NULL",
				"399|lon|NULL|127|NULL|NULL|NULL|NULL",
			}
			if got := w.rows("SELECT * FROM t WHERE id IN (1, 3, 4, 11, 12, 20, 399) ORDER BY id"); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			// Back to strict: rejected again, cached plans or not.
			w.exec("SET sql_mode = DEFAULT")
			for _, q := range []string{
				"INSERT INTO t (id, v, n, ti) VALUES (1000, 'abcdef', 'x', 1000)",
				"UPDATE t SET v = 'zzzzzz', n = 'y', ti = 300 WHERE id = 1",
			} {
				if _, err := w.vt.ExecuteFetch(q, 10, false); err == nil {
					t.Errorf("strict again: %s succeeded", q)
				}
			}
		})
	}
}

// TestNumericDates: MySQL takes a DATE, DATETIME or TIMESTAMP as a number
// (YYYYMMDD, YYMMDD, YYYYMMDDhhmmss, YYMMDDhhmmss, a fraction for
// microseconds) or a string of 6 or 12 digits; go-mysql-server rejected
// them. INSERT (direct and general, text and prepared), UPDATE, strict
// and not; an impossible date is still rejected.
func TestNumericDates(t *testing.T) {
	for _, cfg := range []sqlgw.Config{{}, {NoDirect: true}} {
		t.Run(fmt.Sprintf("NoDirect=%v", cfg.NoDirect), func(t *testing.T) {
			w := newWarningsConn(t, cfg)
			w.exec("CREATE DATABASE nd")
			w.exec("USE nd")
			w.exec("CREATE TABLE t (id INT PRIMARY KEY, d DATE, dt DATETIME(6), ts TIMESTAMP NULL)")
			w.exec("CREATE TABLE src (id INT PRIMARY KEY, n BIGINT)")
			w.exec("INSERT INTO src VALUES (1, 20240229), (2, 991231)")
			for _, q := range []string{
				"INSERT INTO t VALUES (1, 20240229, 20240229, 20240229)",
				"INSERT INTO t VALUES (2, 240229, 240229123456, '240229')",
				"INSERT INTO t VALUES (3, '240229', 20240229123456.5, '240229123456')",
				"INSERT INTO t VALUES (4, 700101, 19991231235959, 20240229123456), (5, 691231, 0101, NULL)",
				"INSERT INTO t (id, d) SELECT id + 10, n FROM src",
			} {
				w.expect(q)
			}
			w.exec("PREPARE s FROM 'INSERT INTO t (id, d, dt) VALUES (?, ?, ?)'")
			w.exec("SET @a = 20, @b = 20240301, @c = 240301101112")
			w.expect("EXECUTE s USING @a, @b, @c")
			w.expect("UPDATE t SET d = 20250101, dt = 250102030405 WHERE id = 1")
			w.exec("SET sql_mode = ''")
			w.expect("UPDATE t SET ts = 20250103 WHERE id = 1")
			w.expect("INSERT INTO t (id, d) VALUES (30, 251231)")
			want := []string{
				"1|2025-01-01|2025-01-02 03:04:05.000000|2025-01-03 00:00:00",
				"2|2024-02-29|2024-02-29 12:34:56.000000|2024-02-29 00:00:00",
				"3|2024-02-29|2024-02-29 12:34:56.500000|2024-02-29 12:34:56",
				"4|1970-01-01|1999-12-31 23:59:59.000000|2024-02-29 12:34:56",
				"5|2069-12-31|2000-01-01 00:00:00.000000|NULL",
				"11|2024-02-29|NULL|NULL",
				"12|1999-12-31|NULL|NULL",
				"20|2024-03-01|2024-03-01 10:11:12.000000|NULL",
				"30|2025-12-31|NULL|NULL",
			}
			if got := w.rows("SELECT * FROM t ORDER BY id"); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			w.exec("SET sql_mode = DEFAULT")
			for _, q := range []string{
				"INSERT INTO t (id, d) VALUES (40, 20240230)",
				"INSERT INTO t (id, d) VALUES (41, 19)",
				"UPDATE t SET d = 20241332 WHERE id = 1",
			} {
				if _, err := w.vt.ExecuteFetch(q, 10, false); err == nil {
					t.Errorf("%s succeeded", q)
				}
			}
		})
	}
}

// TestConversionsWritePathsDiff: the statements of this file's tests
// (non-strict conversions, dates as numbers, string bounds) through the
// three write paths of the differential tests (direct, cached and run by
// go-mysql-server, uncached): everything a client sees must agree
// (writeRun: rows affected, info, warnings, the error), strict and not.
func TestConversionsWritePathsDiff(t *testing.T) {
	direct := insertDiffConn(t, sqlgw.Config{})
	cached := insertDiffConn(t, sqlgw.Config{NoDirect: true})
	general := insertDiffConn(t, sqlgw.Config{NoPlanCache: true})
	var vals []string
	for i := 100; i < 300; i++ {
		vals = append(vals, fmt.Sprintf("(%d, 'long value', %d, 20240229)", i, i*1000))
	}
	bulk := "INSERT INTO t (id, v, ti, d) VALUES " + strings.Join(vals, ",")
	steps := []string{
		"CREATE DATABASE cd", "USE cd",
		"CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(3), n INT, ti TINYINT, d DATE, dt DATETIME)",
		"INSERT INTO t (id, v) VALUES (1, 'abcdef')", "INSERT INTO t (id, n) VALUES (1, 'x')",
		"INSERT INTO t (id, d, dt) VALUES (1, 20240229, 240229123456)", "INSERT INTO t (id, d) VALUES (2, 20240230)",
		bulk, "UPDATE t SET d = 250101 WHERE id = 1", "UPDATE t SET v = 'toolong' WHERE id = 1",
		"SELECT * FROM t WHERE id < 3 ORDER BY id", "SELECT id FROM t WHERE id > '250x' ORDER BY id LIMIT 3",
		"UPDATE t SET n = 1 WHERE id > '290x'", "DELETE FROM t WHERE id > '295y'",
		"SET sql_mode = ''",
		"INSERT INTO t (id, v, n, ti) VALUES (3, 'abcdef', 'x', 1000)", "INSERT INTO t (id, v, n, ti) VALUES (4, 'ab', '12abc', -1000), (5, 'x', '7', 5)",
		"INSERT INTO t (id, v, n) SELECT id + 10, CONCAT(v, 'long'), 'q' FROM t WHERE id IN (3, 4)",
		"UPDATE t SET v = 'zzzzzz', n = 'y', ti = 300 WHERE id = 3", "UPDATE t SET ti = ti * 100 WHERE id IN (4, 5)",
		"INSERT INTO t (id, v) VALUES (3, 'a') ON DUPLICATE KEY UPDATE v = 'long', ti = 999",
		strings.Replace(bulk, "(100,", "(1100,", 1),
		"SET sql_mode = DEFAULT",
		"SELECT * FROM t ORDER BY id", "SELECT COUNT(*), SUM(ti), MIN(v) FROM t",
	}
	var all []string
	for _, s := range steps {
		all = append(all, s)
		if strings.HasPrefix(s, "INSERT") || strings.HasPrefix(s, "UPDATE") {
			all = append(all, s) // again: from the plan cache (or a duplicate key)
		}
	}
	compareWritePaths(t, direct, cached, general, all)
}

// TestNonStrictLoadData: LOAD DATA INFILE converts as INSERT does: with
// an empty sql_mode it stores and warns, strict mode rejects.
func TestNonStrictLoadData(t *testing.T) {
	file := filepath.Join(t.TempDir(), "rows.tsv")
	if err := os.WriteFile(file, []byte("1\tabcdef\tx\t1000\n2\tab\t12abc\t5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := newWarningsConn(t, sqlgw.Config{})
	w.exec("CREATE DATABASE ld")
	w.exec("USE ld")
	w.exec("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(3), n INT, ti TINYINT)")
	load := "LOAD DATA INFILE '" + file + "' INTO TABLE t"
	if _, err := w.vt.ExecuteFetch(load, 10, false); err == nil {
		t.Errorf("strict: %s succeeded", load)
	}
	w.exec("SET sql_mode = ''")
	w.expect(load,
		"Warning|1265|Data truncated for column 'v' at row 1",
		"Warning|1366|Incorrect integer value: 'x' for column 'n' at row 1",
		"Warning|1264|Out of range value for column 'ti' at row 1",
		"Warning|1265|Data truncated for column 'n' at row 2")
	if got := strings.Join(w.rows("SELECT * FROM t ORDER BY id"), ","); got != "1|abc|0|127,2|ab|12|5" {
		t.Errorf("rows: %s", got)
	}
}
