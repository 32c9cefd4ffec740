package sqlgw_test

import (
	"math"
	"testing"
)

// FLOAT and DOUBLE values (thirteenth session): answers checked against
// MySQL 8.0's semantics (a FLOAT compared with a DECIMAL is widened to a
// DOUBLE; a double's string value is my_gcvt's) and MariaDB 10.11's
// output on the same statements; every test runs on the text protocol and
// server-side prepared statements, in each gateway configuration (direct
// reads and the plan cache on and off).

func float13Setup(t *testing.T, i int) *warningsConn {
	w, _ := conv10DB(t, conv10Configs[i])
	w.exec("CREATE DATABASE f13")
	w.exec("USE f13")
	return w
}

// TestFloatComparedWithDecimal: a FLOAT holding 1.1 is 1.100000023841858
// as a double, so x = 1.1 and x IN (1.1) are false and x > 1.1 true, in a
// filter, a primary key, a secondary index, a keyless table, UPDATE,
// DELETE and a prepared statement with a DOUBLE parameter (go-mysql-server
// compared them as DECIMALs: "1.1" = 1.1).
func TestFloatComparedWithDecimal(t *testing.T) {
	for i, cfg := range conv10Configs {
		t.Run(conv10Name(cfg), func(t *testing.T) {
			w := float13Setup(t, i)
			w.exec("CREATE TABLE f (id INT PRIMARY KEY, x FLOAT, y DOUBLE)")
			w.exec("CREATE TABLE fk (x FLOAT PRIMARY KEY, v INT)")
			w.exec("CREATE TABLE fi (id INT PRIMARY KEY, x FLOAT, KEY (x))")
			w.exec("CREATE TABLE kl (x FLOAT, v INT)")
			w.exec("INSERT INTO f VALUES (1, 1.1, 1.1), (2, 2.5, 2.5), (3, 0.1, 0.1)")
			for _, tb := range []string{"fk", "fi", "kl"} {
				if tb == "fi" {
					w.exec("INSERT INTO fi VALUES (1, 1.1), (2, 2.5), (3, 0.1)")
				} else {
					w.exec("INSERT INTO " + tb + " VALUES (1.1, 1), (2.5, 2), (0.1, 3)")
				}
			}
			for j := 0; j < 2; j++ { // the second from the plan cache
				w.expectRows("SELECT id FROM f WHERE x = 1.1")
				w.expectRows("SELECT id FROM f WHERE x = 2.5", "2")
				w.expectRows("SELECT id FROM f WHERE x > 1.1 ORDER BY id", "1", "2")
				w.expectRows("SELECT id FROM f WHERE x <= 1.1 ORDER BY id", "3")
				w.expectRows("SELECT id FROM f WHERE x IN (1.1, 2.5) ORDER BY id", "2")
				w.expectRows("SELECT id FROM f WHERE x NOT IN (1.1, 2.5) ORDER BY id", "1", "3")
				w.expectRows("SELECT id FROM f WHERE x BETWEEN 1.1 AND 3 ORDER BY id", "1", "2")
				w.expectRows("SELECT id FROM f WHERE y = 1.1", "1")
				w.expectRows("SELECT x = 1.1, x > 1.1, x <=> 0.1, y = 0.1 FROM f WHERE id = 3", "0|0|0|1")
				w.expectRows("SELECT v FROM fk WHERE x = 1.1")
				w.expectRows("SELECT v FROM fk WHERE x > 1.1 ORDER BY v", "1", "2")
				w.expectRows("SELECT v FROM fk WHERE x IN (1.1, 0.1)")
				w.expectRows("SELECT id FROM fi WHERE x = 1.1")
				w.expectRows("SELECT id FROM fi WHERE x >= 1.1 ORDER BY id", "1", "2")
				w.expectRows("SELECT id FROM fi WHERE x < 1.1 ORDER BY id", "3")
				w.expectRows("SELECT v FROM kl WHERE x = 1.1")
				w.expectRows("SELECT v FROM kl WHERE x IN (1.1, 2.5)", "2")
				w.expectRows("SELECT v FROM kl WHERE x > 0.1 ORDER BY v", "1", "2", "3")
			}
			w.exec("PREPARE s FROM 'SELECT id FROM f WHERE x = ? ORDER BY id'")
			w.exec("SET @a = 1.1, @b = 1.1e0, @c = 2.5")
			w.expectRows("EXECUTE s USING @a")
			w.expectRows("EXECUTE s USING @b")
			w.expectRows("EXECUTE s USING @c", "2")
			// A DECIMAL column is widened the same way.
			w.exec("CREATE TABLE dc (id INT PRIMARY KEY, d DECIMAL(5,1))")
			w.exec("INSERT INTO dc VALUES (1, 1.1), (2, 2.5)")
			w.expectRows("SELECT dc.id FROM dc JOIN f ON f.x = dc.d ORDER BY dc.id", "2")
			w.expectRows("SELECT dc.id FROM dc JOIN f ON f.y = dc.d ORDER BY dc.id", "1", "2")
			if n := w.exec("UPDATE kl SET v = 9 WHERE x = 1.1"); n != 0 {
				t.Errorf("UPDATE: %d warnings", n)
			}
			w.expectRows("SELECT v FROM kl ORDER BY v", "1", "2", "3")
			w.exec("DELETE FROM f WHERE x = 1.1")
			w.exec("DELETE FROM fk WHERE x = 0.1")
			w.expectRows("SELECT COUNT(*) FROM f", "3")
			w.expectRows("SELECT COUNT(*) FROM fk", "3")
		})
	}
}

// TestFloatComparedPrepared: a server-side prepared statement with a
// DOUBLE or DECIMAL-text parameter compares a FLOAT column as MySQL does.
func TestFloatComparedPrepared(t *testing.T) {
	for i, cfg := range conv10Configs {
		t.Run(conv10Name(cfg), func(t *testing.T) {
			w, db := conv10DB(t, conv10Configs[i])
			w.exec("CREATE DATABASE f13")
			w.exec("CREATE TABLE f13.f (id INT PRIMARY KEY, x FLOAT, KEY (x))")
			w.exec("INSERT INTO f13.f VALUES (1, 1.1), (2, 2.5)")
			for j := 0; j < 2; j++ {
				expectPreparedRows(t, db, "SELECT id FROM f13.f WHERE x = ?", []any{1.1})
				expectPreparedRows(t, db, "SELECT id FROM f13.f WHERE x = ?", []any{float64(float32(1.1))}, "1")
				expectPreparedRows(t, db, "SELECT id FROM f13.f WHERE x > ? ORDER BY id", []any{1.1}, "1", "2")
				expectPreparedRows(t, db, "SELECT id FROM f13.f WHERE x = 1.1 OR id = ?", []any{2}, "2")
			}
		})
	}
}

// TestDoubleText: a DOUBLE's and a FLOAT's string value (CAST AS CHAR,
// CONVERT, CONCAT, CONCAT_WS) is my_gcvt's, as in a result row
// (go-mysql-server: strconv's fixed notation, 1e20 as
// 100000000000000000000, a FLOAT with all its float32 digits).
func TestDoubleText(t *testing.T) {
	for i, cfg := range conv10Configs {
		t.Run(conv10Name(cfg), func(t *testing.T) {
			w, db := conv10DB(t, conv10Configs[i])
			w.exec("CREATE DATABASE f13")
			w.exec("USE f13")
			w.exec("CREATE TABLE g (id INT PRIMARY KEY, x FLOAT, y DOUBLE)")
			w.exec("INSERT INTO g VALUES (1, 123456.789, 1e20), (2, 1.1, 0.1), (3, NULL, NULL), (4, -0.000012345, 1234567890123456789)")
			for j := 0; j < 2; j++ {
				w.expectRows("SELECT CAST(1e20 AS CHAR), CAST(0.1e0 + 0.2e0 AS CHAR), CAST(0.1 + 0.2 AS CHAR), CAST(1/3e0 AS CHAR), CONCAT(1.5e0, 'x')",
					"1e20|0.30000000000000004|0.3|0.3333333333333333|1.5x")
				w.expectRows("SELECT CONCAT(1e15, ''), CONCAT(1e14, ''), CONCAT(1e-20, ''), CONVERT(-2.5e-20, CHAR), CONCAT(1, 2.50, 'a', NULL)",
					"1e15|100000000000000|1e-20|-2.5e-20|NULL")
				w.expectRows("SELECT id, CAST(x AS CHAR), CAST(y AS CHAR), CONCAT(x, '|', y), CONCAT_WS(',', x, y, id) FROM g ORDER BY id",
					"1|123457|1e20|123457|1e20|123457,1e20,1",
					"2|1.1|0.1|1.1|0.1|1.1,0.1,2",
					"3|NULL|NULL|NULL|3",
					"4|-0.000012345|1.2345678901234568e18|-0.000012345|1.2345678901234568e18|-0.000012345,1.2345678901234568e18,4")
				w.expectRows("SELECT CAST(y AS CHAR(3)), LENGTH(CAST(y AS CHAR)), CAST(x * 2 AS CHAR) FROM g WHERE id = 1", "1e2|4|246913.578125")
				w.expectRows("SELECT id FROM g WHERE CONCAT(y, '') = '1e20'", "1")
			}
			expectPreparedRows(t, db, "SELECT CAST(y AS CHAR), CONCAT(x, ?) FROM f13.g WHERE id = ?", []any{"!", 1}, "1e20|123457!")
			expectPreparedRows(t, db, "SELECT CAST(? AS CHAR)", []any{1e20}, "1e20")
		})
	}
}

// TestFloatFieldDecimals: FLOAT and DOUBLE result fields without (M,D),
// columns and double expressions alike, have Decimals 31 (MySQL's
// DECIMAL_NOT_SPECIFIED; go-mysql-server sent 0), in the text and the
// binary protocol; their values are unchanged.
func TestFloatFieldDecimals(t *testing.T) {
	w, db := conv10DB(t, conv10Configs[0])
	w.exec("CREATE DATABASE f13")
	w.exec("USE f13")
	w.exec("CREATE TABLE g (id INT PRIMARY KEY, x FLOAT, y DOUBLE, d DECIMAL(5,2))")
	w.exec("INSERT INTO g VALUES (1, 1.5, 1e20, 1.25)")
	q := "SELECT x, y, x + 0, 1e0, AVG(y), CAST(id AS DOUBLE), d, 1.5, id FROM g GROUP BY id, x, y, d"
	w.expectFields(q, "FLOAT32/31,FLOAT64/31,FLOAT64/31,FLOAT64/31,FLOAT64/31,FLOAT64/31,DECIMAL/2,DECIMAL/1,INT32/0")
	w.expectRows(q, "1.5|1e20|1.5|1|1e20|1|1.25|1.5|1")
	rows, err := db.Query("SELECT x, y, y / 3, d FROM f13.g WHERE id = ?", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		t.Fatal(err)
	}
	for i, ct := range cts {
		p, s, ok := ct.DecimalSize()
		want := int64(math.MaxInt64) // go-sql-driver's "not fixed" for Decimals 31
		if i == 3 {
			want = 2
		}
		if !ok || s != want {
			t.Errorf("binary protocol column %s: DecimalSize %d, %d, %v; want scale %d", ct.Name(), p, s, ok, want)
		}
	}
}
