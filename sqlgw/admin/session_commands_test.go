package admin

import "testing"

func TestRewriteDescribe(t *testing.T) {
	for q, want := range map[string]string{
		"DESCRIBE `db`.`t` '%'":      "SHOW COLUMNS FROM `db`.`t` LIKE '%'",
		"desc t k":                   "SHOW COLUMNS FROM `t` LIKE 'k'",
		"EXPLAIN t 'a''b'; SELECT 1": "SHOW COLUMNS FROM `t` LIKE 'a''b'; SELECT 1",
		`DESCRIBE t 'a\_%'`:          `SHOW COLUMNS FROM ` + "`t`" + ` LIKE 'a\_%'`,
		"DESCRIBE `select` x":        "SHOW COLUMNS FROM `select` LIKE 'x'",
		// unchanged
		"EXPLAIN SELECT 1":                  "EXPLAIN SELECT 1",
		"explain select k;":                 "explain select k;",
		"EXPLAIN TABLE t":                   "EXPLAIN TABLE t",
		"EXPLAIN FORMAT=TREE SELECT 1":      "EXPLAIN FORMAT=TREE SELECT 1",
		"EXPLAIN ANALYZE SELECT 1":          "EXPLAIN ANALYZE SELECT 1",
		"EXPLAIN PLAN SELECT k FROM t":      "EXPLAIN PLAN SELECT k FROM t",
		"DESCRIBE t":                        "DESCRIBE t",
		"DESCRIBE t k extra":                "DESCRIBE t k extra",
		"SELECT 'DESCRIBE t k'":             "SELECT 'DESCRIBE t k'",
		"DESCRIBE t 'unterminated":          "DESCRIBE t 'unterminated",
		"EXPLAIN SELECT * FROM t WHERE k=1": "EXPLAIN SELECT * FROM t WHERE k=1",
	} {
		if got := RewriteDescribe(q); got != want {
			t.Errorf("rewriteDescribe(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestParseFlush(t *testing.T) {
	for q, ok := range map[string]bool{
		"FLUSH PRIVILEGES":                         true,
		"flush local status":                       true,
		"FLUSH BINARY LOGS, HOSTS":                 true,
		"FLUSH RELAY LOGS FOR CHANNEL `c`; SELECT": true,
		"FLUSH TABLES":                             false, // go-mysql-server's
		"FLUSH TABLES WITH READ LOCK":              false,
		"FLUSH BINARY":                             false,
		"FLUSH PRIVILEGES x":                       false,
		"FLUSHX PRIVILEGES":                        false,
	} {
		if _, _, got := parseFlush(q); got != ok {
			t.Errorf("parseFlush(%q) ok = %v, want %v", q, got, ok)
		}
	}
	if _, rest, _ := parseFlush("FLUSH STATUS; SELECT 1"); rest != " SELECT 1" {
		t.Errorf("rest %q", rest)
	}
}
