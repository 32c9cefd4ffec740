package engine

import (
	"strings"
	"testing"
)

func TestPlainInsertTarget(t *testing.T) {
	for _, c := range []struct {
		q, db, table string
		ok           bool
	}{
		{"INSERT INTO t VALUES (1)", "", "t", true},
		{"  (insert into t(a) values (1)", "", "t", true},
		{"INSERT t SET a = 1", "", "t", true},
		{"INSERT LOW_PRIORITY INTO `d`.`a``b` VALUE (1)", "d", "a`b", true},
		{"INSERT INTO d.t", "d", "t", true},
		{"INSERT /* c */ INTO t VALUES (1)", "", "", false},
		{"INSERT INTO t PARTITION (p0) VALUES (1)", "", "", false},
		{"REPLACE INTO t VALUES (1)", "", "", false},
		{"INSERTX INTO t VALUES (1)", "", "", false},
		{"INSERT INTO `t VALUES (1)", "", "", false},
		{"INSERT INTO t, u VALUES (1)", "", "", false},
		{"", "", "", false},
	} {
		db, table, ok := plainInsertTarget(c.q)
		if db != c.db || table != c.table || ok != c.ok {
			t.Errorf("%q: %q %q %v, want %q %q %v", c.q, db, table, ok, c.db, c.table, c.ok)
		}
	}
}

// TestContainsFoldASCII: skipExistenceCheck's keyword search finds the
// word in any ASCII case, anywhere, and nothing else.
func TestContainsFoldASCII(t *testing.T) {
	for _, c := range []struct {
		s, w string
		want bool
	}{
		{"INSERT IGNORE INTO t VALUES (1)", "IGNORE", true},
		{"insert ignore into t values (1)", "IGNORE", true},
		{"insert into t values (1) on duplicate key update a=1", "DUPLICATE", true},
		{"insert into t sElEcT 1", "SELECT", true},
		{"insert into t values ('ignor')", "IGNORE", false},
		{"insert into t values ('xignorex')", "IGNORE", true},
		{"IGNOR", "IGNORE", false},
		{"", "SELECT", false},
		{"insert into t values ('\u0131gnore')", "IGNORE", false},
		{"yGNORE iGNORe", "IGNORE", true},
		{"Select", "SELECT", true}, {"sselect", "SELECT", true}, {"SSELEC", "SELECT", false},
		{"s" + strings.Repeat("0-", 1000) + "S" + strings.Repeat("9", 1000) + "sElect", "SELECT", true},
		{"s" + strings.Repeat("0-", 1000) + "S" + strings.Repeat("9", 1000) + "sElec", "SELECT", false},
	} {
		if got := containsFoldASCII(c.s, strings.ToLower(c.w)); got != c.want {
			t.Errorf("containsFoldASCII(%q, %q) = %v, want %v", c.s, c.w, got, c.want)
		}
	}
}
