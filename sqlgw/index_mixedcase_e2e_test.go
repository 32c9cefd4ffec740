package sqlgw_test

import (
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// TestMixedCaseIndexColumns: key and index columns whose names have
// upper-case letters (EclipseLink/Hibernate schemas: ID, REGION) appear in
// SHOW INDEX, information_schema.STATISTICS and COLUMNS.COLUMN_KEY, and
// lookups, joins and foreign keys through them work (compat finding F14).
func TestMixedCaseIndexColumns(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("d",
			"CREATE TABLE `Region` (`ID` INT PRIMARY KEY, `REGION` VARCHAR(20), `Code` INT, KEY `IX_Code` (`Code`), UNIQUE KEY `UQ_REGION` (`REGION`))")
		r := sqltest.NewRunner(t, c)
		r.Exec("CREATE TABLE `Cust` (`ID` INT PRIMARY KEY, `RegionID` INT, `Name` VARCHAR(20), KEY `IX_RegionID` (`RegionID`), " +
			"CONSTRAINT `FK_CUST_REGION` FOREIGN KEY (`RegionID`) REFERENCES `Region` (`ID`))")
		for i := range 10 {
			r.Exec("INSERT INTO Region VALUES (?, ?, ?)", i, "R"+string(rune('a'+i)), i%3)
		}
		for i := range 20 {
			r.Exec("INSERT INTO Cust VALUES (?, ?, ?)", i, i%10, "c"+string(rune('a'+i)))
		}

		var cols []string
		for _, line := range r.Rows("SHOW INDEX FROM Region") {
			f := strings.Split(line, "\t")
			cols = append(cols, f[2]+"."+f[4]) // Key_name.Column_name
		}
		if got := strings.Join(cols, " "); got != "PRIMARY.ID IX_Code.Code UQ_REGION.REGION" {
			t.Errorf("SHOW INDEX FROM Region: %s", got)
		}
		r.ExpectRows("SELECT index_name, column_name, non_unique FROM information_schema.statistics WHERE table_schema = 'd' AND table_name = 'Region' ORDER BY index_name, seq_in_index",
			"IX_Code\tCode\t1", "PRIMARY\tID\t0", "UQ_REGION\tREGION\t0")
		r.ExpectRows("SELECT index_name, column_name FROM information_schema.statistics WHERE table_schema = 'd' AND table_name = 'Cust' ORDER BY index_name, seq_in_index",
			"IX_RegionID\tRegionID", "PRIMARY\tID")
		r.ExpectRows("SELECT column_name, column_key FROM information_schema.columns WHERE table_schema = 'd' AND table_name = 'Region' ORDER BY ordinal_position",
			"ID\tPRI", "REGION\tUNI", "Code\tMUL")
		r.ExpectRows("SELECT column_name, column_key FROM information_schema.columns WHERE table_schema = 'd' AND table_name = 'Cust' ORDER BY ordinal_position",
			"ID\tPRI", "RegionID\tMUL", "Name\t")
		r.ExpectRows("SELECT constraint_name, column_name, referenced_table_name, referenced_column_name FROM information_schema.key_column_usage WHERE table_schema = 'd' AND table_name = 'Cust' AND referenced_table_name IS NOT NULL",
			"FK_CUST_REGION\tRegionID\tRegion\tID")

		// Lookups through the key and the indexes, in any identifier case.
		for _, tc := range []struct{ q, path string }{
			{"SELECT * FROM Region WHERE ID = 3", "PointGet"},
			{"SELECT * FROM region WHERE id IN (3, 4)", "MultiGet"},
			{"SELECT * FROM Region WHERE Code = 2", "index IX_Code"},
			{"SELECT * FROM Region WHERE region = 'Rc'", "index UQ_REGION"},
			{"SELECT * FROM cust WHERE regionid = 4", "index IX_RegionID"},
		} {
			if plan := explainText(t, c, tc.q); !strings.Contains(plan, tc.path) {
				t.Errorf("EXPLAIN %s: want %s in\n%s", tc.q, tc.path, plan)
			}
		}
		r.Script(`
			query SELECT ID FROM Region WHERE Code = 2 ORDER BY ID
			= 2
			= 5
			= 8
			query SELECT id FROM region WHERE region = 'Rc'
			= 2
			query SELECT ID FROM Cust WHERE RegionID = 4 ORDER BY ID
			= 4
			= 14
		`)

		// Lookup joins into the primary key and into a secondary index.
		for _, tc := range []struct{ q, index string }{
			{"SELECT /*+ LOOKUP_JOIN(c, r) */ c.ID, r.REGION FROM Cust c JOIN Region r ON r.ID = c.RegionID WHERE c.ID IN (3, 14) ORDER BY c.ID", "PRIMARY"},
			{"SELECT /*+ JOIN_ORDER(r, c) LOOKUP_JOIN(r, c) */ c.ID, r.REGION FROM Region r JOIN Cust c ON c.RegionID = r.ID WHERE r.ID IN (3, 4) ORDER BY c.ID", "IX_RegionID"},
		} {
			plan := explainText(t, c, tc.q)
			if !strings.Contains(plan, "batched lookup join") || !strings.Contains(plan, " on "+tc.index) {
				t.Errorf("EXPLAIN %s: want a batched lookup join on %s in\n%s", tc.q, tc.index, plan)
			}
		}
		r.Script(`
			query SELECT /*+ LOOKUP_JOIN(c, r) */ c.ID, r.REGION FROM Cust c JOIN Region r ON r.ID = c.RegionID WHERE c.ID IN (3, 14) ORDER BY c.ID
			= 3 | Rd
			= 14 | Re
			query SELECT /*+ JOIN_ORDER(r, c) LOOKUP_JOIN(r, c) */ c.ID, r.REGION FROM Region r JOIN Cust c ON c.RegionID = r.ID WHERE r.ID IN (3, 4) ORDER BY c.ID
			= 3 | Rd
			= 4 | Re
			= 13 | Rd
			= 14 | Re
			query SELECT /*+ LOOKUP_JOIN(c, r) */ COUNT(*) FROM Cust c JOIN Region r ON r.Code = c.RegionID
			= 20
			# The foreign key on the mixed-case columns.
			error 1452 INSERT INTO Cust VALUES (100, 42, 'x')
			error 1451 DELETE FROM Region WHERE ID = 4
			error 1451 UPDATE Region SET ID = 40 WHERE ID = 4
			exec INSERT INTO Region VALUES (42, 'Rz', 0)
			exec INSERT INTO Cust VALUES (100, 42, 'x')
			exec DELETE FROM Cust WHERE RegionID = 42
			exec DELETE FROM Region WHERE ID = 42
			query SELECT COUNT(*) FROM Cust
			= 20
		`)
	})
}

// explainText returns EXPLAIN q as one string.
func explainText(t *testing.T, c sqltest.Execer, q string) string {
	t.Helper()
	return strings.Join(sqltest.NewRunner(t, c).Rows("EXPLAIN "+q), "\n")
}
