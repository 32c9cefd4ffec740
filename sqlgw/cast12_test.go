package sqlgw_test

import (
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// cast12Runners are runners on one server per review13eConfigs gateway
// (direct execution, go-mysql-server's plan cache, no plan cache), each
// with schema run on it.
func cast12Runners(t *testing.T, schema ...string) []*sqltest.Runner {
	t.Helper()
	var rs []*sqltest.Runner
	for _, cfg := range review13eConfigs {
		r := sqltest.NewRunner(t, review13fConn(t, cfg))
		r.ExecAll(schema...)
		rs = append(rs, r)
	}
	return rs
}

// TestCast12DateInNumbers: a number in the list of IN or NOT IN on a DATE,
// DATETIME or TIMESTAMP column is the date-time MySQL reads it as
// (20240102 is 2024-01-02), on a key, an indexed and an unindexed column,
// in SELECT, UPDATE and DELETE, text and prepared. go-mysql-server failed
// with 1105 "Incorrect datetime value: '20240102'", and a list mixing
// numbers and strings never matched the numbers. Comparisons with a
// DATETIME column read the number the same way.
func TestCast12DateInNumbers(t *testing.T) {
	for i, r := range cast12Runners(t, "CREATE DATABASE ci", "USE ci",
		"CREATE TABLE dk (d DATE PRIMARY KEY, v INT)",
		"CREATE TABLE di (id INT PRIMARY KEY, d DATE, KEY kd (d))",
		"CREATE TABLE du (id INT PRIMARY KEY, d DATE)",
		"CREATE TABLE dt (id INT PRIMARY KEY, t DATETIME, s TIMESTAMP NULL, KEY kt (t))",
		"INSERT INTO dk VALUES ('2024-01-02', 1), ('2024-01-03', 2), ('2024-01-04', 3)",
		"INSERT INTO di VALUES (1, '2024-01-02'), (2, '2024-01-03'), (3, '2024-01-04')",
		"INSERT INTO du VALUES (1, '2024-01-02'), (2, '2024-01-03'), (3, '2024-01-04')",
		"INSERT INTO dt VALUES (1, '2024-01-02 10:30:00', '2024-01-02 10:30:00'), (2, '2024-01-03 00:00:00', '2024-01-03 00:00:00')") {
		t.Logf("config %d", i)
		r.ExpectRows("SELECT v FROM dk WHERE d IN (20240102, 20240103) ORDER BY v", "1", "2")
		r.ExpectRows("SELECT v FROM dk WHERE d IN (20240102)", "1")
		r.ExpectRows("SELECT v FROM dk WHERE d NOT IN (20240102, 20240103)", "3")
		r.ExpectRows("SELECT v FROM dk WHERE d IN (20240102, 5) ORDER BY v", "1")
		r.ExpectRows("SELECT v FROM dk WHERE d IN (20240102103000)")
		for _, tb := range []string{"di", "du"} {
			r.ExpectRows("SELECT id FROM "+tb+" WHERE d IN (20240102, 20240103) ORDER BY id", "1", "2")
			r.ExpectRows("SELECT id FROM "+tb+" WHERE d IN (20240102)", "1")
			r.ExpectRows("SELECT id FROM "+tb+" WHERE d NOT IN (20240102) ORDER BY id", "2", "3")
			r.ExpectRows("SELECT id FROM "+tb+" WHERE d NOT IN ('2024-01-02') ORDER BY id", "2", "3")
			r.ExpectRows("SELECT id FROM "+tb+" WHERE d IN (20240102, '2024-01-03') ORDER BY id", "1", "2")
		}
		r.ExpectRows("SELECT id FROM di WHERE (id, d) IN ((1, 20240102), (2, 20240102), (3, 20240104)) ORDER BY id", "1", "3")
		r.ExpectRows("SELECT v FROM dk WHERE (d, v) IN ((20240103, 2))", "2")
		r.ExpectRows("SELECT id FROM dt WHERE t IN (20240102103000, 20240103000000) ORDER BY id", "1", "2")
		r.ExpectRows("SELECT id FROM dt WHERE t IN (20240102103000)", "1")
		r.ExpectRows("SELECT id FROM dt WHERE t NOT IN (20240102103000)", "2")
		r.ExpectRows("SELECT id FROM dt WHERE t IN (20240103)", "2")
		r.ExpectRows("SELECT id FROM dt WHERE s IN (20240102103000)", "1")
		r.ExpectRows("SELECT id FROM dt WHERE t = 20240102103000", "1")
		r.ExpectRows("SELECT id FROM dt WHERE s = 20240102103000", "1")
		r.ExpectRows("SELECT id FROM dt WHERE t >= 20240103", "2")
		for range 3 { // the second and third from the plan caches
			if got := r.Rows("SELECT id FROM di WHERE d IN (?, ?) ORDER BY id", 20240102, 20240103); strings.Join(got, ",") != "1,2" {
				t.Errorf("config %d: prepared d IN (?, ?) = 20240102, 20240103: %q, want 1,2", i, got)
			}
			if got := r.Rows("SELECT v FROM dk WHERE d NOT IN (?)", 20240102); strings.Join(got, ",") != "2,3" {
				t.Errorf("config %d: prepared d NOT IN (?) = 20240102: %q, want 2,3", i, got)
			}
		}
		r.ExpectAffected(2, "UPDATE du SET id = id + 10 WHERE d IN (20240102, 20240103)")
		r.ExpectAffected(1, "DELETE FROM du WHERE d IN (20240104)")
		r.ExpectRows("SELECT id FROM du ORDER BY id", "11", "12")
		r.ExpectAffected(1, "DELETE FROM dk WHERE d IN (20240104)")
		r.ExpectRows("SELECT v FROM dk ORDER BY v", "1", "2")
	}
}

// TestCast12UnsignedGroupBy: integer arithmetic with a BIGINT UNSIGNED
// operand is unsigned (MySQL) also in a SELECT with GROUP BY or HAVING
// (the eleventh session typed it only without them): 9223372036854775808,
// not BIGINT's clamped 9223372036854775807.
func TestCast12UnsignedGroupBy(t *testing.T) {
	const big = "9223372036854775808"
	for i, r := range cast12Runners(t, "CREATE DATABASE ug", "USE ug",
		"CREATE TABLE u (id INT PRIMARY KEY, g INT, u BIGINT UNSIGNED)",
		"INSERT INTO u VALUES (1, 1, 9223372036854775807), (2, 2, 9223372036854775807)") {
		t.Logf("config %d", i)
		r.ExpectRows("SELECT u + 1 FROM u GROUP BY id, u ORDER BY id", big, big)
		r.ExpectRows("SELECT g, u + 1 FROM u GROUP BY g, u ORDER BY g", "1\t"+big, "2\t"+big)
		r.ExpectRows("SELECT u + 1 AS x FROM u GROUP BY u", big)
		r.ExpectRows("SELECT u + 1 FROM u GROUP BY u + 1", big)
		r.ExpectRows("SELECT u + 1 AS x, count(*) FROM u GROUP BY x", big+"\t2")
		r.ExpectRows("SELECT u + 1, count(*) FROM u GROUP BY 1", big+"\t2")
		r.ExpectRows("SELECT u + 1 AS x FROM u GROUP BY u HAVING x > 0", big)
		r.ExpectRows("SELECT x FROM (SELECT u + 1 AS x FROM u GROUP BY u) s", big)
		r.ExpectRows("SELECT (SELECT u + 1 FROM u WHERE id = 1 GROUP BY u)", big)
		r.ExpectRows("SELECT u * 2 FROM u GROUP BY u", "18446744073709551614")
		r.ExpectError(1690, "BIGINT UNSIGNED value is out of range in '(`ug`.`u`.`u` * 3)'", "SELECT u * 3 FROM u GROUP BY u")
		if cts := r.ColumnTypes("SELECT u + 1 FROM u GROUP BY u"); len(cts) != 1 || cts[0].DatabaseTypeName() != "UNSIGNED BIGINT" {
			t.Errorf("config %d: SELECT u + 1 ... GROUP BY u is not BIGINT UNSIGNED", i)
		}
		for range 3 { // the second and third from the plan caches
			if got := r.Rows("SELECT u + ? FROM u WHERE id = ? GROUP BY u", 1, 1); strings.Join(got, ",") != big {
				t.Errorf("config %d: prepared u + ? ... GROUP BY u: %q, want %s", i, got, big)
			}
		}
	}
}

// TestCast12CastColumnWrites: CAST(col AS DATE|DATETIME|TIME) of an
// integer column is the date MySQL reads the number as in an UPDATE's SET
// and an INSERT ... SELECT's source too (go-mysql-server stored NULL),
// text and prepared.
func TestCast12CastColumnWrites(t *testing.T) {
	for i, r := range cast12Runners(t, "CREATE DATABASE cw", "USE cw",
		"CREATE TABLE ci (id INT PRIMARY KEY, i INT, n BIGINT, d DATE, t DATETIME, tm TIME)",
		"CREATE TABLE c2 (id INT PRIMARY KEY, d DATE, t DATETIME, tm TIME)",
		"INSERT INTO ci VALUES (1, 20240102, 20240102103000, NULL, NULL, NULL), (2, 20240103, 20240103040506, NULL, NULL, NULL)") {
		t.Logf("config %d", i)
		r.ExpectAffected(1, "UPDATE ci SET d = CAST(i AS DATE), t = CAST(n AS DATETIME), tm = CAST(n AS TIME) WHERE id = 1")
		r.ExpectAffected(1, "UPDATE ci SET d = CONVERT(i, DATE), t = CAST(i AS DATETIME), tm = CAST(n AS TIME) WHERE i = 20240103")
		r.ExpectRows("SELECT d, t, tm FROM ci ORDER BY id", "2024-01-02\t2024-01-02 10:30:00\t10:30:00", "2024-01-03\t2024-01-03 00:00:00\t04:05:06")
		r.ExpectAffected(2, "INSERT INTO c2 (id, d, t, tm) SELECT id, CAST(i AS DATE), CAST(n AS DATETIME), CAST(n AS TIME) FROM ci WHERE id > 0")
		r.ExpectRows("SELECT * FROM c2 ORDER BY id", "1\t2024-01-02\t2024-01-02 10:30:00\t10:30:00", "2\t2024-01-03\t2024-01-03 04:05:06\t04:05:06")
		r.ExpectAffected(2, "UPDATE ci SET d = NULL")
		r.ExpectAffected(1, "UPDATE ci SET d = CAST(i + ? AS DATE) WHERE id = ?", 1, 1)
		r.ExpectRows("SELECT d FROM ci ORDER BY id", "2024-01-03", "NULL")
	}
}

// TestCast12CastInDefinitions: CASTs of numbers to dates in a view, a
// trigger, a column DEFAULT and a generated column are MySQL's too
// (go-mysql-server's NULL before), while SHOW CREATE and
// information_schema still show the text the user wrote.
func TestCast12CastInDefinitions(t *testing.T) {
	for i, r := range cast12Runners(t, "CREATE DATABASE cd", "USE cd",
		"CREATE TABLE dk (d DATE PRIMARY KEY, v INT)",
		"INSERT INTO dk VALUES ('2024-01-02', 1), ('2024-01-03', 2)",
		"CREATE TABLE ci (id INT PRIMARY KEY, i INT)",
		"INSERT INTO ci VALUES (1, 20240102)",
		"CREATE VIEW vw AS SELECT v FROM dk WHERE d = CAST(20240102 AS DATE)",
		"CREATE VIEW vc AS SELECT CAST(i AS DATE) AS d, CAST(20240103 AS DATE) AS e FROM ci",
		"CREATE TABLE tr (id INT PRIMARY KEY, i INT, d DATE)",
		"CREATE TRIGGER tbi BEFORE INSERT ON tr FOR EACH ROW SET NEW.d = CAST(NEW.i AS DATE)",
		"CREATE TRIGGER tbu BEFORE UPDATE ON tr FOR EACH ROW BEGIN SET NEW.d = CAST(NEW.i + 1 AS DATE); END",
		"CREATE TABLE df (id INT PRIMARY KEY, i INT, d DATE DEFAULT (CAST(20240102 AS DATE)), g DATE AS (CAST(i AS DATE)))") {
		t.Logf("config %d", i)
		r.ExpectRows("SELECT * FROM vw", "1")
		r.ExpectRows("SELECT * FROM vc", "2024-01-02\t2024-01-03")
		r.ExpectRows("SHOW CREATE VIEW vw", "vw\tCREATE VIEW `vw` AS SELECT v FROM dk WHERE d = CAST(20240102 AS DATE)\tutf8mb4\tutf8mb4_0900_bin")
		r.ExpectRows("SELECT VIEW_DEFINITION FROM information_schema.VIEWS WHERE TABLE_NAME = 'vc'", "SELECT CAST(i AS DATE) AS d, CAST(20240103 AS DATE) AS e FROM ci")

		r.ExpectAffected(1, "INSERT INTO tr (id, i) VALUES (1, 20240102)")
		r.ExpectRows("SELECT d FROM tr", "2024-01-02")
		r.ExpectAffected(1, "UPDATE tr SET i = 20240110 WHERE id = 1")
		r.ExpectRows("SELECT d FROM tr", "2024-01-11")
		r.ExpectRows("SELECT ACTION_STATEMENT FROM information_schema.TRIGGERS WHERE TRIGGER_NAME = 'tbi'", "SET NEW.d = CAST(NEW.i AS DATE)")
		if got := strings.Join(r.Rows("SHOW CREATE TRIGGER tbu"), ""); !strings.Contains(got, "SET NEW.d = CAST(NEW.i + 1 AS DATE); END") {
			t.Errorf("config %d: SHOW CREATE TRIGGER tbu: %q", i, got)
		}

		r.ExpectAffected(1, "INSERT INTO df (id, i) VALUES (1, 20240105)")
		r.ExpectRows("SELECT d, g FROM df", "2024-01-02\t2024-01-05")
		r.ExpectAffected(0, "ALTER TABLE df ALTER COLUMN d SET DEFAULT (CAST(20240106 AS DATE))")
		r.ExpectAffected(0, "ALTER TABLE df ADD COLUMN e DATE DEFAULT (CAST(20240107 AS DATE))")
		r.ExpectAffected(1, "INSERT INTO df (id, i) VALUES (2, 20240108)")
		r.ExpectRows("SELECT id, d, g, e FROM df ORDER BY id", "1\t2024-01-02\t2024-01-05\t2024-01-07", "2\t2024-01-06\t2024-01-08\t2024-01-07")
		r.ExpectRows("SELECT COLUMN_DEFAULT FROM information_schema.COLUMNS WHERE TABLE_NAME = 'df' AND COLUMN_NAME = 'd'", "convert(20240106, date)")
		if got := strings.Join(r.Rows("SHOW CREATE TABLE df"), ""); strings.Contains(got, "sqlgw_") || !strings.Contains(got, "DEFAULT (convert(20240106, date))") ||
			!strings.Contains(got, "GENERATED ALWAYS AS (convert(`i`, date))") {
			t.Errorf("config %d: SHOW CREATE TABLE df: %q", i, got)
		}
	}
}
