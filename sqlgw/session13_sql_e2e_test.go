package sqlgw_test

import (
	"database/sql"
	"strings"
	"testing"
)

// Locking reads, HAVING and UNION types (thirteenth session): statements
// MySQL 8.0 accepts that sqlgw refused or answered wrongly, each checked on
// the text protocol and as a server-side prepared statement.

func sql13Setup(t *testing.T) (*warningsConn, *sql.DB) {
	w, db := conv10DB(t, conv10Configs[0])
	w.exec("CREATE DATABASE s13")
	w.exec("USE s13")
	w.exec("CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT, ub BIGINT UNSIGNED, sb BIGINT, ui INT UNSIGNED, si INT)")
	w.exec("INSERT INTO t VALUES (1, 1, 1, 18446744073709551615, -1, 4294967295, -2147483648)," +
		"(2, 1, 2, 0, 9223372036854775807, 0, 2147483647),(3, 2, -1, 5, -9223372036854775808, 7, -7)")
	return w, db
}

// TestForShare: MySQL 8.0's FOR SHARE (with OF, NOWAIT and SKIP LOCKED)
// is LOCK IN SHARE MODE, not a syntax error; FOR SHARE OF names a table of
// the query block.
func TestForShare(t *testing.T) {
	w, db := sql13Setup(t)
	for _, q := range []string{
		"SELECT a FROM t WHERE id = 1 FOR SHARE",
		"SELECT a FROM t WHERE id = 1 for share nowait",
		"SELECT a FROM t WHERE id = 1 FOR SHARE SKIP LOCKED",
		"SELECT a FROM t x WHERE id = 1 FOR SHARE OF x",
		"SELECT a FROM t WHERE id = 1 FOR SHARE OF t NOWAIT",
		"SELECT a FROM t WHERE id = 1 LOCK IN SHARE MODE",
		"SELECT a FROM t WHERE id = 1 FOR UPDATE SKIP LOCKED",
		"SELECT a FROM t WHERE id IN (SELECT id FROM t WHERE b = 1 FOR SHARE)",
	} {
		w.expectRows(q, "1")
	}
	expectPreparedRows(t, db, "SELECT a FROM s13.t WHERE id = ? FOR SHARE", []any{1}, "1")
	expectPreparedRows(t, db, "SELECT a FROM s13.t x WHERE id = ? FOR SHARE OF x SKIP LOCKED", []any{1}, "1")
	w.expectRows("SELECT 1 FOR SHARE", "1")
	if got := w.fields("SELECT 1 FOR SHARE"); got != "INT8/0" {
		t.Errorf("SELECT 1 FOR SHARE: fields %s", got)
	}
	w.expectError("SELECT a FROM t x WHERE id = 1 FOR SHARE OF t", 3568, "Unresolved table name `t` in locking clause.")
	w.expectError("SELECT a FROM t WHERE id = 1 FOR UPDATE OF u", 3568, "Unresolved table name `u` in locking clause.")
	// In a transaction, the read is remembered like any read: a write to the
	// row after another transaction changed it fails at commit.
	w.exec("BEGIN")
	w.expectRows("SELECT b FROM t WHERE id = 2 FOR SHARE", "2")
	w.exec("UPDATE t SET b = b + 1 WHERE id = 2")
	w.exec("COMMIT")
	w.expectRows("SELECT b FROM t WHERE id = 2", "3")
}

// TestUnionUnsignedSigned: BIGINT UNSIGNED beside a signed integer in a
// UNION is DECIMAL(20,0), holding both sides' values (go-mysql-server cast
// both to SIGNED: 18446744073709551615 came back 9223372036854775807); INT
// UNSIGNED beside INT is BIGINT.
func TestUnionUnsignedSigned(t *testing.T) {
	w, db := sql13Setup(t)
	for i := 0; i < 2; i++ { // the second from the plan cache
		w.expectRows("SELECT ub FROM t UNION SELECT sb FROM t ORDER BY 1",
			"-9223372036854775808", "-1", "0", "5", "9223372036854775807", "18446744073709551615")
	}
	w.expectFields("SELECT ub FROM t UNION SELECT sb FROM t", "DECIMAL/0")
	w.expectRows("SELECT 18446744073709551615 UNION SELECT -1", "18446744073709551615", "-1")
	w.expectRows("SELECT sb FROM t WHERE id = 1 UNION ALL SELECT ub FROM t WHERE id = 1", "-1", "18446744073709551615")
	w.expectRows("SELECT ub, a FROM t WHERE id = 1 UNION ALL SELECT si, ui FROM t WHERE id = 1",
		"18446744073709551615|1", "-2147483648|4294967295")
	w.expectFields("SELECT ub, a FROM t WHERE id = 1 UNION ALL SELECT si, ui FROM t WHERE id = 1", "DECIMAL/0,INT64/0")
	w.expectRows("SELECT ui FROM t UNION SELECT si FROM t ORDER BY 1",
		"-2147483648", "-7", "0", "7", "2147483647", "4294967295")
	w.expectFields("SELECT ui FROM t UNION SELECT si FROM t", "INT64/0")
	w.expectRows("SELECT ub FROM t WHERE id = 1 EXCEPT SELECT -1", "18446744073709551615")
	// A nested set operation's DECIMAL(20,0) column carries to the outer one.
	w.expectRows("SELECT ub FROM t UNION SELECT sb FROM t UNION SELECT 1 ORDER BY 1 DESC LIMIT 2", "18446744073709551615", "9223372036854775807")
	w.expectRows("SELECT -5 UNION SELECT ub FROM t UNION SELECT sb FROM t ORDER BY 1 LIMIT 2", "-9223372036854775808", "-5")
	w.expectRows("SELECT MAX(x), MIN(x) FROM (SELECT ub x FROM t UNION SELECT sb FROM t) d", "18446744073709551615|-9223372036854775808")
	expectPreparedRows(t, db, "SELECT ub FROM s13.t WHERE id = ? UNION SELECT ?", []any{1, -1}, "18446744073709551615", "-1")
}

// TestRoundUnsignedInteger: ROUND and TRUNCATE of an integer stay an
// integer whatever D (MySQL: ROUND(150, 2) is 150), BIGINT UNSIGNED for an
// unsigned argument (go-mysql-server typed it BIGINT and clamped
// 18446744073709551615 to 9223372036854775807).
func TestRoundUnsignedInteger(t *testing.T) {
	w, db := sql13Setup(t)
	w.expectRows("SELECT ROUND(ub, 2), TRUNCATE(ub, 2), ROUND(ub), ROUND(ui, 1), TRUNCATE(ui, 3) FROM t WHERE id = 1",
		"18446744073709551615|18446744073709551615|18446744073709551615|4294967295|4294967295")
	w.expectFields("SELECT ROUND(ub, 2), TRUNCATE(ub, 2), ROUND(ui, 1), ROUND(sb, 2), TRUNCATE(si, 2) FROM t WHERE id = 1",
		"UINT64/0,UINT64/0,UINT64/0,INT64/0,INT64/0")
	w.expectRows("SELECT ROUND(sb, 2), TRUNCATE(sb, 2), ROUND(150, 2), TRUNCATE(-5, 1) FROM t WHERE id = 2",
		"9223372036854775807|9223372036854775807|150|-5")
	// D < 0: rounded half away from zero in 64-bit integers; beyond the
	// type, MySQL's 1690 (ROUND(18446744073709551615, -1)).
	w.expectRows("SELECT ROUND(ui, -1), TRUNCATE(ui, -1), ROUND(si, -1), TRUNCATE(si, -1), ROUND(ub, -20), ROUND(-15, -1), ROUND(14, -1) FROM t WHERE id = 3",
		"10|0|-10|0|0|-20|10")
	w.expectRows("SELECT ROUND(ui, -1), TRUNCATE(ub, -1), ROUND(sb, -2) FROM t WHERE id = 1", "4294967300|18446744073709551610|0")
	if _, err := w.vt.ExecuteFetch("SELECT ROUND(ub, -1) FROM t WHERE id = 1", 10, false); err == nil || !strings.Contains(err.Error(), "1690") {
		t.Errorf("ROUND(18446744073709551615, -1): %v, want 1690", err)
	}
	expectPreparedRows(t, db, "SELECT ROUND(ub, 2), TRUNCATE(ub, 1) FROM s13.t WHERE id = ?", []any{1},
		"18446744073709551615|18446744073709551615")
}
