package sqlgw_test

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
)

// ROUND, SUM in derived tables, DATE + INTERVAL (twelfth session): answers
// compared with MariaDB and MySQL 8.0 on the same statements; every test
// runs on the text protocol, PREPARE/EXECUTE and the binary protocol.

// fields runs q and returns its result fields, each "TYPE/decimals".
func (w *warningsConn) fields(q string) string {
	w.t.Helper()
	res, err := w.vt.ExecuteFetch(q, 1000, true)
	if err != nil {
		w.t.Fatalf("%s: %v", q, err)
	}
	var out []string
	for _, f := range res.Fields {
		out = append(out, fmt.Sprintf("%s/%d", f.Type, f.Decimals))
	}
	return strings.Join(out, ",")
}

// expectFields requires q's result field types and decimals.
func (w *warningsConn) expectFields(q, want string) {
	w.t.Helper()
	if got := w.fields(q); got != want {
		w.t.Errorf("%s: fields %s, want %s", q, got, want)
	}
}

// expectPreparedRows runs q as a server-side prepared statement with args
// and requires its rows, each "a|b|c".
func expectPreparedRows(t *testing.T, db *sql.DB, q string, args []any, want ...string) {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("prepared %s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var got []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var cs []string
		for _, v := range vals {
			if v.Valid {
				cs = append(cs, v.String)
			} else {
				cs = append(cs, "NULL")
			}
		}
		got = append(got, strings.Join(cs, "|"))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("prepared %s %v:\n%s\nwant:\n%s", q, args, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func round12Setup(t *testing.T) (*warningsConn, *sql.DB) {
	w, db := conv10DB(t, conv10Configs[0])
	w.exec("CREATE DATABASE r12")
	w.exec("USE r12")
	w.exec("CREATE TABLE e (id INT PRIMARY KEY, dept VARCHAR(10), sal DECIMAL(10,2), score DOUBLE, hired DATE)")
	w.exec("INSERT INTO e VALUES (1,'eng',1000.50,3.5,'2020-01-15'),(2,'eng',2000,4.25,'2019-06-01')," +
		"(3,'ops',1500.25,NULL,'2021-03-10'),(4,'ops',NULL,2,'2018-11-30'),(5,'hr',3000,5,'2022-07-04')")
	return w, db
}

// TestRoundTruncateDecimalScale: ROUND(x, D) and TRUNCATE(x, D) of a
// DECIMAL with a constant D have scale max(D, 0), in the field and in the
// value (go-mysql-server kept the argument's scale: 1000.50 for ROUND(sal,
// 1)); an integer argument stays an integer.
func TestRoundTruncateDecimalScale(t *testing.T) {
	w, db := round12Setup(t)
	for i := 0; i < 2; i++ { // the second from the plan cache
		w.expectRows("SELECT ROUND(sal, 1), TRUNCATE(sal, 0), ROUND(sal), ROUND(sal, -2), TRUNCATE(sal, -3), ROUND(sal, 3) FROM e WHERE id = 1",
			"1000.5|1000|1001|1000|1000|1000.500")
	}
	w.expectFields("SELECT ROUND(sal, 1), TRUNCATE(sal, 0), ROUND(sal), ROUND(sal, -2), ROUND(sal, 3) FROM e WHERE id = 1",
		"DECIMAL/1,DECIMAL/0,DECIMAL/0,DECIMAL/0,DECIMAL/3")
	w.expectRows("SELECT ROUND(AVG(sal), 2), TRUNCATE(SUM(sal), 1) FROM e WHERE dept = 'eng'", "1500.25|3000.5")
	w.expectFields("SELECT ROUND(AVG(sal), 2), TRUNCATE(SUM(sal), 1) FROM e WHERE dept = 'eng'", "DECIMAL/2,DECIMAL/1")
	w.expectRows("SELECT ROUND(1.2345, 2), TRUNCATE(1.2345, 3), ROUND(9.995, 2), TRUNCATE(-9.999, 2), ROUND(-2.5)",
		"1.23|1.234|10.00|-9.99|-3")
	w.expectFields("SELECT ROUND(1.2345, 2), ROUND(id, 1), TRUNCATE(id, 2) FROM e WHERE id = 1", "DECIMAL/2,INT64/0,INT64/0")
	w.expectRows("SELECT ROUND(id * 7, -1), TRUNCATE(id, 2) FROM e WHERE id = 3", "20|3")
	w.expectRows("SELECT TRUNCATE(12345678901234567.89, 1), TRUNCATE(19.9999999999999999999, -1)", "12345678901234567.8|10")
	w.exec("PREPARE s FROM 'SELECT ROUND(sal, ?), TRUNCATE(sal, 1) FROM e WHERE id = ?'")
	w.exec("SET @d = 1, @id = 3")
	w.expectRows("EXECUTE s USING @d, @id", "1500.3|1500.2")
	expectPreparedRows(t, db, "SELECT ROUND(sal, 1), TRUNCATE(sal, 0), ROUND(AVG(sal) OVER (), 2) FROM r12.e WHERE id = ?", []any{1},
		"1000.5|1000|1000.50")
}

// TestRoundDoubleToEven: ROUND of a DOUBLE rounds halves to even, as the
// C library's rint does in MySQL (go-mysql-server: away from zero).
func TestRoundDoubleToEven(t *testing.T) {
	w, db := round12Setup(t)
	w.expectRows("SELECT ROUND(4.25e0, 1), ROUND(2.5e0), ROUND(3.5e0), ROUND(-2.5e0), ROUND(25e0, -1), ROUND(35e0, -1)",
		"4.2|2|4|-2|20|40")
	w.expectRows("SELECT ROUND(score, 1), ROUND(score) FROM e WHERE id = 2", "4.2|4")
	expectPreparedRows(t, db, "SELECT ROUND(score, ?), ROUND(?) FROM r12.e WHERE id = 2", []any{1, 2.5}, "4.2|2")
}

// TestSumInDerivedTable: SUM and AVG of a DECIMAL stay DECIMAL through a
// derived table, a CTE, a view and UNION (go-mysql-server's schema of the
// derived table kept its DOUBLE: 3000.5).
func TestSumInDerivedTable(t *testing.T) {
	w, db := round12Setup(t)
	for i := 0; i < 2; i++ {
		w.expectRows("WITH c AS (SELECT dept, SUM(sal) s FROM e GROUP BY dept) SELECT * FROM c ORDER BY s DESC",
			"eng|3000.50", "hr|3000.00", "ops|1500.25")
		w.expectRows("SELECT MAX(s) FROM (SELECT dept, SUM(sal) s FROM e GROUP BY dept) x", "3000.50")
	}
	w.expectFields("SELECT MAX(s), MIN(a) FROM (SELECT dept, SUM(sal) s, AVG(sal) a FROM e GROUP BY dept) x", "DECIMAL/2,DECIMAL/6")
	w.expectRows("SELECT s + 1, a FROM (SELECT SUM(sal) s, AVG(id) a FROM e WHERE dept = 'eng') x", "3001.50|1.5000")
	w.expectRows("SELECT t.s FROM (SELECT s FROM (SELECT dept, SUM(sal) s FROM e GROUP BY dept) y WHERE dept = 'hr') t", "3000.00")
	w.exec("CREATE VIEW v AS SELECT dept, SUM(sal) s FROM e GROUP BY dept")
	w.expectRows("SELECT s FROM v WHERE dept = 'eng'", "3000.50")
	w.expectFields("SELECT s FROM v WHERE dept = 'eng'", "DECIMAL/2")
	w.expectRows("SELECT SUM(sal) FROM e WHERE dept = 'eng' UNION ALL SELECT SUM(sal) FROM e WHERE dept = 'hr'", "3000.50", "3000.00")
	expectPreparedRows(t, db, "SELECT MAX(s) FROM (SELECT dept, SUM(sal) s FROM r12.e WHERE id > ? GROUP BY dept) x", []any{0}, "3000.50")
}

// TestDatePlusInterval: DATE + INTERVAL (or INTERVAL + DATE, DATE -
// INTERVAL) of a unit without a time part is a DATE, as DATE_ADD is
// (go-mysql-server: DATETIME '2020-01-25 00:00:00').
func TestDatePlusInterval(t *testing.T) {
	w, db := round12Setup(t)
	for i := 0; i < 2; i++ {
		w.expectRows("SELECT hired + INTERVAL 10 DAY, INTERVAL 1 DAY + hired, hired - INTERVAL 1 MONTH, hired + INTERVAL 1 HOUR FROM e WHERE id = 1",
			"2020-01-25|2020-01-16|2019-12-15|2020-01-15 01:00:00")
	}
	w.expectFields("SELECT hired + INTERVAL 10 DAY, INTERVAL 1 YEAR + hired, hired - INTERVAL 1 MONTH, hired + INTERVAL 1 HOUR FROM e WHERE id = 1",
		"DATE/0,DATE/0,DATE/0,DATETIME/0")
	w.expectRows("SELECT id FROM e WHERE hired + INTERVAL 1 DAY = '2020-01-16'", "1")
	w.expectRows("SELECT '2020-01-01' + INTERVAL 1 DAY, TIMESTAMP '2020-01-01 10:00:00' - INTERVAL 1 DAY", "2020-01-02|2019-12-31 10:00:00")
	w.expectRows("SELECT d FROM (SELECT hired + INTERVAL 1 WEEK d FROM e) x WHERE d > '2022-01-01'", "2022-07-11")
	w.expectRows("SELECT dept, MAX(hired + INTERVAL 1 DAY) FROM e GROUP BY dept HAVING MAX(hired) > '2000-01-01' ORDER BY dept",
		"eng|2020-01-16", "hr|2022-07-05", "ops|2021-03-11")
	w.exec("CREATE VIEW vd AS SELECT id, hired - INTERVAL 1 YEAR d FROM e")
	w.expectRows("SELECT d FROM vd WHERE id = 1", "2019-01-15")
	w.expectFields("SELECT d FROM vd WHERE id = 1", "DATE/0")
	if got := strings.Join(w.rows("SHOW CREATE VIEW vd"), ""); strings.Contains(got, "sqlgw_") {
		t.Errorf("SHOW CREATE VIEW shows the rewrite: %s", got)
	}
	expectPreparedRows(t, db, "SELECT hired + INTERVAL ? DAY FROM r12.e WHERE id = 1", []any{10}, "2020-01-25")
}
