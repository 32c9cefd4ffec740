package engine

import "testing"

// TestPlainLoadTarget: which LOAD DATA texts skip the per-row existence
// read (skipExistenceCheck) and the table they name.
func TestPlainLoadTarget(t *testing.T) {
	for _, c := range []struct {
		q, db, table string
		ok           bool
	}{
		{"LOAD DATA INFILE '/tmp/x' INTO TABLE t FIELDS TERMINATED BY ','", "", "t", true},
		{"LOAD DATA LOCAL INFILE 'Reader::x' INTO TABLE t FIELDS TERMINATED BY ','", "", "", false},
		{"load data infile '/tmp/a b.csv' into table d.t", "d", "t", true},
		{"LOAD DATA LOW_PRIORITY INFILE 'it''s' INTO TABLE `we``ird`.`t 1`(a, b)", "we`ird", "t 1", true},
		{"LOAD DATA CONCURRENT INFILE 'f' INTO TABLE t2;", "", "t2", true},
		{"LOAD DATA LOCAL INFILE 'f' REPLACE INTO TABLE t", "", "", false},
		{"LOAD DATA LOCAL INFILE 'f' IGNORE INTO TABLE t", "", "", false},
		{"LOAD XML LOCAL INFILE 'f' INTO TABLE t", "", "", false},
		{"LOAD DATA INFILE 'f\\' INTO TABLE u' INTO TABLE t", "", "t", true},
		{"INSERT INTO t VALUES (1)", "", "", false},
	} {
		db, table, ok := plainLoadTarget(c.q)
		if db != c.db || table != c.table || ok != c.ok {
			t.Errorf("%s: %q %q %v, want %q %q %v", c.q, db, table, ok, c.db, c.table, c.ok)
		}
	}
}
