package sqlgw_test

import (
	"strings"
	"testing"
)

// TestZeroDates: MySQL's zero date ('0000-00-00', '0000-00-00 00:00:00',
// 0) and dates with a zero month or day, written into DATE, DATETIME and
// TIMESTAMP columns (keyed and not) under each sql_mode MySQL 8.0
// distinguishes, read back through the text and the binary protocol,
// ordered, and found by equality through a primary key and a secondary
// index. Before the twelfth session sqlgw could not store the zero date
// (1235 in every mode, and the default sql_mode had no NO_ZERO_DATE).
func TestZeroDates(t *testing.T) {
	for _, cfg := range conv10Configs {
		t.Run(conv10Name(cfg), func(t *testing.T) {
			w, db := conv10DB(t, cfg)
			w.exec("CREATE DATABASE zd")
			w.exec("USE zd")
			w.exec("CREATE TABLE t (id INT PRIMARY KEY, d DATE, dt DATETIME, ts TIMESTAMP NULL)")
			w.exec("CREATE TABLE k (d DATE PRIMARY KEY, v INT)")
			w.exec("CREATE TABLE kd (v INT, dt DATETIME, PRIMARY KEY (v, dt DESC))")
			w.exec("CREATE TABLE x (id INT PRIMARY KEY, d DATE, KEY (d))")

			// MySQL 8.0's default sql_mode: strict, NO_ZERO_DATE, NO_ZERO_IN_DATE.
			w.expectRows("SELECT FIND_IN_SET('NO_ZERO_DATE', @@sql_mode) > 0, FIND_IN_SET('NO_ZERO_IN_DATE', @@sql_mode) > 0, FIND_IN_SET('STRICT_TRANS_TABLES', @@sql_mode) > 0", "1|1|1")
			for range 2 { // the second from the plan cache
				w.expectError("INSERT INTO t (id, d) VALUES (1, '0000-00-00')", 1292, "Incorrect date value: '0000-00-00' for column 'd' at row 1")
				w.expectError("INSERT INTO t (id, dt) VALUES (1, '0000-00-00 00:00:00')", 1292, "Incorrect datetime value: '0000-00-00 00:00:00' for column 'dt' at row 1")
				w.expectError("INSERT INTO t (id, ts) VALUES (1, '0000-00-00 00:00:00')", 1292, "Incorrect datetime value: '0000-00-00 00:00:00' for column 'ts' at row 1")
				w.expectError("INSERT INTO t (id, d) VALUES (1, 0)", 1292, "Incorrect date value: '0' for column 'd' at row 1")
				w.expectError("INSERT INTO t (id, d) VALUES (1, '2024-00-15')", 1292, "Incorrect date value: '2024-00-15' for column 'd' at row 1")
				w.expectError("INSERT INTO t (id, d) VALUES (1, '2024-01-00')", 1292, "Incorrect date value: '2024-01-00' for column 'd' at row 1")
				w.expectError("INSERT INTO k VALUES ('0000-00-00', 1)", 1292, "Incorrect date value: '0000-00-00' for column 'd' at row 1")
			}
			expectPreparedError(t, db, "INSERT INTO zd.t (id, d) VALUES (?, ?)", 1292, "Incorrect date value: '0000-00-00' for column 'd' at row 1", 1, "0000-00-00")
			// A zero-date DEFAULT: 1067 in the same mode.
			w.expectError("CREATE TABLE bad (id INT PRIMARY KEY, d DATE NOT NULL DEFAULT '0000-00-00')", 1067, "Invalid default value for 'd'")
			w.expectError("CREATE TABLE bad (id INT PRIMARY KEY, ts TIMESTAMP NOT NULL DEFAULT '0000-00-00 00:00:00')", 1067, "Invalid default value for 'ts'")
			w.expectError("ALTER TABLE t ADD COLUMN e DATETIME DEFAULT 0", 1067, "Invalid default value for 'e'")
			w.expectError("ALTER TABLE t MODIFY COLUMN d DATE DEFAULT '0000-00-00'", 1067, "Invalid default value for 'd'")
			w.expectRows("SELECT COUNT(*) FROM t", "0")

			// sql_mode '' (as mysqldump's files and old applications set it):
			// stored without a word.
			w.exec("SET sql_mode = ''")
			w.expect("INSERT INTO t VALUES (1, '0000-00-00', '0000-00-00 00:00:00', '0000-00-00 00:00:00'), (2, '2024-01-01', '2024-01-01 10:00:00', '2024-01-01 10:00:00')")
			w.expect("INSERT INTO t VALUES (3, 0, 0, 0), (4, '0000-01-01', '1000-01-01 00:00:00', NULL)")
			w.expect("INSERT INTO k VALUES ('2024-01-01', 3), ('0000-00-00', 1), ('0000-01-01', 2)")
			w.expect("INSERT INTO kd VALUES (1, '2024-01-01 10:00:00'), (1, '0000-00-00 00:00:00'), (1, '0000-01-01 00:00:00')")
			w.expect("INSERT INTO x VALUES (1, '0000-00-00'), (2, '2024-01-01'), (3, '0000-01-01'), (4, 0)")
			if _, err := db.Exec("SET sql_mode = ''"); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec("INSERT INTO zd.t (id, d, dt) VALUES (?, ?, ?)", 5, "0000-00-00", "0000-00-00 00:00:00"); err != nil {
				t.Errorf("prepared zero date: %v", err)
			}
			w.expect("UPDATE t SET dt = '0000-00-00' WHERE id = 2")

			// Without strict mode but with NO_ZERO_DATE: stored, 1264.
			w.exec("SET sql_mode = 'NO_ZERO_DATE'")
			w.expect("INSERT INTO t (id, d) VALUES (6, '0000-00-00')", "Warning|1264|Out of range value for column 'd' at row 1")
			// NO_ZERO_IN_DATE without strict mode: the zero date, 1264.
			w.exec("SET sql_mode = 'NO_ZERO_IN_DATE'")
			w.expect("INSERT INTO t (id, d) VALUES (7, '2024-00-15')", "Warning|1264|Out of range value for column 'd' at row 1")
			// Not a date, not strict: the zero date, 1265 (1264 for a day
			// the month has not).
			w.exec("SET sql_mode = ''")
			w.expect("INSERT INTO t (id, d) VALUES (8, '2024-13-99')", "Warning|1265|Data truncated for column 'd' at row 1")
			w.expect("INSERT INTO t (id, d) VALUES (9, '2024-02-30')", "Warning|1264|Out of range value for column 'd' at row 1")
			// Strict without NO_ZERO_DATE: stored; zero parts without
			// NO_ZERO_IN_DATE, which MySQL stores as they are, are a clear
			// error (sqlgw has no value for them).
			w.exec("SET sql_mode = 'STRICT_TRANS_TABLES'")
			w.expect("INSERT INTO t (id, d) VALUES (10, '0000-00-00')")
			w.expectError("INSERT INTO t (id, d) VALUES (11, '2024-00-15')", 1235,
				"sqlgw: dates with a zero month or day are not supported: MySQL stores '2024-00-15' as it is in column 'd' at row 1 when sql_mode has no NO_ZERO_IN_DATE")
			w.exec("SET sql_mode = 'ALLOW_INVALID_DATES'")
			w.expectError("INSERT INTO t (id, d) VALUES (11, '2024-02-30')", 1235,
				"sqlgw: invalid dates are not supported: MySQL stores '2024-02-30' as it is in column 'd' at row 1 with ALLOW_INVALID_DATES")
			w.expectError("INSERT INTO t (id, dt) VALUES (11, '2024-00-15 10:00:00')", 1235,
				"sqlgw: dates with a zero month or day are not supported: MySQL stores '2024-00-15 10:00:00' as it is in column 'dt' at row 1 when sql_mode has no NO_ZERO_IN_DATE")
			w.exec("SET sql_mode = DEFAULT")
			w.expectError("UPDATE t SET d = '0000-00-00' WHERE id = 2", 1292, "Incorrect date value: '0000-00-00' for column 'd' at row 1")

			// Reads: text protocol.
			w.expectRows("SELECT id, d, dt, ts FROM t WHERE id <= 5 ORDER BY id",
				"1|0000-00-00|0000-00-00 00:00:00|0000-00-00 00:00:00",
				"2|2024-01-01|0000-00-00 00:00:00|2024-01-01 10:00:00",
				"3|0000-00-00|0000-00-00 00:00:00|0000-00-00 00:00:00",
				"4|0000-01-01|1000-01-01 00:00:00|NULL",
				"5|0000-00-00|0000-00-00 00:00:00|NULL")
			w.expectRows("SELECT id FROM t ORDER BY d, id", "1", "3", "5", "6", "7", "8", "9", "10", "4", "2")
			w.expectRows("SELECT id FROM t WHERE d = '0000-00-00' ORDER BY id", "1", "3", "5", "6", "7", "8", "9", "10")
			w.expectRows("SELECT MIN(d), MAX(d), COUNT(*) FROM t WHERE d < '2024-01-01'", "0000-00-00|0000-01-01|9")
			w.expectRows("SELECT d, v FROM k ORDER BY d", "0000-00-00|1", "0000-01-01|2", "2024-01-01|3")
			w.expectRows("SELECT d, v FROM k ORDER BY d DESC", "2024-01-01|3", "0000-01-01|2", "0000-00-00|1")
			w.expectRows("SELECT d, v FROM k WHERE d = '0000-00-00'", "0000-00-00|1")
			w.expectRows("SELECT d, v FROM k WHERE d < '0000-01-01'", "0000-00-00|1")
			w.expectRows("SELECT dt FROM kd WHERE v = 1", "2024-01-01 10:00:00", "0000-01-01 00:00:00", "0000-00-00 00:00:00")
			w.expectRows("SELECT dt FROM kd WHERE v = 1 AND dt = '0000-00-00 00:00:00'", "0000-00-00 00:00:00")
			w.expectRows("SELECT id FROM x WHERE d = '0000-00-00' ORDER BY id", "1", "4")
			w.expectRows("SELECT id FROM x ORDER BY d, id", "1", "4", "3", "2")
			// The key and the index find the zero date without a scan.
			for q, path := range map[string]string{
				"SELECT d, v FROM k WHERE d = '0000-00-00'":                    "PointGet",
				"SELECT id FROM x WHERE d = '0000-00-00'":                      "IndexLookup",
				"SELECT dt FROM kd WHERE v = 1 AND dt = '0000-00-00 00:00:00'": "PointGet",
			} {
				if plan := strings.Join(w.rows("EXPLAIN PLAN "+q), "\n"); !strings.Contains(plan, path) {
					t.Errorf("%s: no %s in\n%s", q, path, plan)
				}
			}

			// Reads: binary protocol (server-side prepared statements).
			var d, dt string
			if err := db.QueryRow("SELECT d, dt FROM zd.t WHERE id = ?", 1).Scan(&d, &dt); err != nil || d != "0000-00-00" || dt != "0000-00-00 00:00:00" {
				t.Errorf("binary protocol: %q %q %v", d, dt, err)
			}
			var n int
			if err := db.QueryRow("SELECT COUNT(*) FROM zd.k WHERE d = ?", "0000-00-00").Scan(&n); err != nil || n != 1 {
				t.Errorf("binary protocol lookup: %d %v", n, err)
			}
		})
	}
}

// TestZeroDateDump: a mysqldump file of a table with zero dates (its
// sql_mode, a DEFAULT '0000-00-00') loads back and reads as it was; under
// the default sql_mode afterwards, a row that takes the zero-date DEFAULT
// is stored (MySQL does not check a default again), one that names the
// zero date is 1292.
func TestZeroDateDump(t *testing.T) {
	for _, cfg := range conv10Configs {
		t.Run(conv10Name(cfg), func(t *testing.T) {
			w, _ := conv10DB(t, cfg)
			w.exec("CREATE DATABASE dump")
			w.exec("USE dump")
			for _, q := range []string{
				"/*!40101 SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='NO_AUTO_VALUE_ON_ZERO' */",
				"CREATE TABLE `legacy` (\n  `id` int NOT NULL AUTO_INCREMENT,\n  `born` date NOT NULL DEFAULT '0000-00-00',\n  `seen` datetime NOT NULL DEFAULT '0000-00-00 00:00:00',\n  PRIMARY KEY (`id`),\n  KEY `born` (`born`)\n) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
				"INSERT INTO `legacy` VALUES (1,'0000-00-00','0000-00-00 00:00:00'),(2,'1999-12-31','2000-01-01 00:00:00')",
				"INSERT INTO `legacy` (`id`) VALUES (3)",
				"/*!40101 SET SQL_MODE=@OLD_SQL_MODE */",
			} {
				w.expect(q)
			}
			w.expectRows("SELECT @@sql_mode = @OLD_SQL_MODE, FIND_IN_SET('NO_ZERO_DATE', @@sql_mode) > 0", "1|1")
			for range 2 {
				w.expectError("INSERT INTO legacy (id, born) VALUES (4, '0000-00-00')", 1292, "Incorrect date value: '0000-00-00' for column 'born' at row 1")
			}
			w.expect("INSERT INTO legacy (id) VALUES (4)")
			w.expect("INSERT INTO legacy (id, seen) VALUES (5, '2001-01-01 00:00:00')")
			w.expect("INSERT INTO legacy (id) SELECT 6")
			w.expectRows("SELECT id, born, seen FROM legacy ORDER BY born, id",
				"1|0000-00-00|0000-00-00 00:00:00", "3|0000-00-00|0000-00-00 00:00:00", "4|0000-00-00|0000-00-00 00:00:00",
				"5|0000-00-00|2001-01-01 00:00:00", "6|0000-00-00|0000-00-00 00:00:00", "2|1999-12-31|2000-01-01 00:00:00")
			w.expectRows("SELECT id FROM legacy WHERE born = '0000-00-00' ORDER BY id", "1", "3", "4", "5", "6")
		})
	}
}
