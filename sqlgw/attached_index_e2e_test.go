package sqlgw_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/storage"
)

// deleteSeeded deletes an entity as another application does.
func deleteSeeded(t *testing.T, s seeder, table, pk, rk string) {
	t.Helper()
	var err error
	switch s := s.(type) {
	case storeSeeder:
		err = s.s.Delete(context.Background(), table, pk, rk, storage.ETagAny)
	case sdkSeeder:
		_, err = s.svc.NewClient(table).DeleteEntity(context.Background(), pk, rk, nil)
	default:
		t.Fatalf("seeder %T", s)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestAttachedIndexes: secondary indexes on an attached table (seeded
// through the aztables SDK on Azurite) live in sqlgw's own tables, are
// maintained by SQL writes, serve lookups as an index read plus one Get per
// hit, never return a row whose entity no longer matches (other
// applications' writes), and catch up with those writes on REPAIR TABLE
// and REFRESH TABLE (catalog/attached_index.go has the contract).
func TestAttachedIndexes(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			f := newAttachedFixture(t, b)
			c := f.ts.conn()
			mustExec(t, c, "USE azure")
			cust := f.cust

			// A String property is MEDIUMTEXT, which no index keys (MySQL's
			// 1170); pinned to VARCHAR(n) it can be indexed.
			expectErrno(t, c, 1170, "CREATE INDEX by_name ON "+cust+" (Name)")
			mustExec(t, c, "ALTER TABLE "+cust+" MODIFY Name VARCHAR(20)")
			// Refused: what would need the user's table or uniqueness.
			expectErrno(t, c, 1235, "CREATE UNIQUE INDEX u_name ON "+cust+" (Name)")
			expectErrno(t, c, 1235, "CREATE INDEX by_rk ON "+cust+" (RowKey)")
			expectErrno(t, c, 1235, "CREATE INDEX by_ts ON "+cust+" (Timestamp)")
			expectErrno(t, c, 1235, "CREATE INDEX by_name ON "+cust+" (Name) COMMENT 'sqlgw: local'")
			expectErrno(t, c, 1235, "CREATE INDEX by_name ON "+cust+" (Name) COMMENT 'sqlgw: cover=(Age)'")

			mustExec(t, c, "CREATE INDEX by_name ON "+cust+" (Name)")
			mustExec(t, c, "CREATE INDEX by_age ON "+cust+" (Age)")
			expectRows(t, c, "SELECT index_name, column_name, index_comment FROM information_schema.statistics WHERE table_schema = 'azure' AND table_name = '"+cust+"' AND index_name <> 'PRIMARY' ORDER BY index_name",
				"by_age\tAge\tsqlgw: global", "by_name\tName\tsqlgw: global")
			// The user's table is untouched: same entities, same properties.
			expectEntity(t, f.seed.get(t, cust, "east", "c2"), map[string]string{
				"Name": "Edm.String:Bob", "Age": "Edm.Int64:40", "Score": "Edm.Int32:5"})
			expectRows(t, c, "SELECT COUNT(*) FROM "+cust+" IGNORE INDEX (by_name, by_age)", "4")

			plan := strings.Join(rows(t, c, "EXPLAIN SELECT RowKey FROM "+cust+" WHERE Name = 'Bob'"), "\n")
			if !strings.Contains(plan, "IndexLookup") || !strings.Contains(plan, "by_name") || strings.Contains(plan, "covering") {
				t.Errorf("EXPLAIN of a lookup by name:\n%s", plan)
			}
			// An index read, then one Get per hit (never covering: every
			// hit is verified against its entity).
			expectCosts(t, c, []costCase{
				{"SELECT RowKey FROM " + cust + " WHERE Name = 'Bob'", 2, 2},
				{"SELECT Name FROM " + cust + " WHERE Name = 'Zoë'", 2, 2},
				{"SELECT Name FROM " + cust + " FORCE INDEX (by_age) WHERE Age BETWEEN 20 AND 45 ORDER BY Name", 3, 4},
			})
			expectRows(t, c, "SELECT RowKey FROM "+cust+" WHERE Name = 'Bob'", "c2")
			expectRows(t, c, "SELECT Name FROM "+cust+" FORCE INDEX (by_age) WHERE Age BETWEEN 20 AND 45 ORDER BY Name", "Ann", "Bob")
			expectRows(t, c, "SELECT Name FROM "+cust+" WHERE Name > 'B' ORDER BY Name", "Bob", "Zoë")

			// SQL writes maintain the index; the entities stay plain.
			mustExec(t, c, "INSERT INTO "+cust+" (PartitionKey, RowKey, Name, Age) VALUES ('south', 's1', 'Dan', 51)")
			expectEntity(t, f.seed.get(t, cust, "south", "s1"), map[string]string{"Name": "Edm.String:Dan", "Age": "Edm.Int64:51"})
			expectRows(t, c, "SELECT RowKey, Age FROM "+cust+" WHERE Name = 'Dan'", "s1\t51")
			mustExec(t, c, "UPDATE "+cust+" SET Name = 'Dana', Age = 52 WHERE PartitionKey = 'south' AND RowKey = 's1'")
			expectRows(t, c, "SELECT RowKey FROM "+cust+" WHERE Name = 'Dan'")
			expectRows(t, c, "SELECT RowKey FROM "+cust+" WHERE Name = 'Dana'", "s1")
			expectRows(t, c, "SELECT Name FROM "+cust+" WHERE Age = 52", "Dana")
			mustExec(t, c, "DELETE FROM "+cust+" WHERE PartitionKey = 'south' AND RowKey = 's1'")
			expectRows(t, c, "SELECT RowKey FROM "+cust+" WHERE Name = 'Dana'")
			expectRows(t, c, "CHECK TABLE "+cust, "azure."+cust+"\tcheck\tstatus\tOK")

			// Another application renames Bob, deletes Zoë and adds Eve,
			// bypassing sqlgw. The index never yields a wrong row: Bob's
			// stale entry is skipped, Zoë's too; the new values are not
			// found through it until a rebuild.
			f.seed.put(t, cust, "east", "c2", storage.Properties{"Name": storage.String("Robert"), "Age": storage.Int64(41)})
			f.seed.put(t, cust, "north", "n9", storage.Properties{"Name": storage.String("Eve"), "Age": storage.Int32(29)})
			deleteSeeded(t, f.seed, cust, "west", "Zürich ü")
			expectRows(t, c, "SELECT RowKey FROM "+cust+" WHERE Name = 'Bob'")
			expectRows(t, c, "SELECT RowKey FROM "+cust+" WHERE Name = 'Zoë'")
			expectRows(t, c, "SELECT Name FROM "+cust+" FORCE INDEX (by_age) WHERE Age BETWEEN 20 AND 45 ORDER BY Name", "Ann")
			expectRows(t, c, "SELECT RowKey FROM "+cust+" WHERE Name = 'Eve'")
			expectRows(t, c, "SELECT RowKey FROM "+cust+" IGNORE INDEX (by_name) WHERE Name = 'Eve'", "n9")
			check := strings.Join(rows(t, c, "CHECK TABLE "+cust), "\n")
			if !strings.Contains(check, "Index 'by_name' (global) is corrupt: 2 entries missing") || !strings.Contains(check, "Corrupt") {
				t.Errorf("CHECK TABLE after other applications' writes:\n%s", check)
			}

			// REPAIR TABLE rebuilds: the new values are found, and the
			// stale entries are gone (a lookup of Bob reads no base entity).
			repair := strings.Join(rows(t, c, "REPAIR TABLE "+cust), "\n")
			if !strings.Contains(repair, "status\tOK") {
				t.Errorf("REPAIR TABLE:\n%s", repair)
			}
			expectRows(t, c, "SELECT RowKey FROM "+cust+" WHERE Name = 'Robert'", "c2")
			expectRows(t, c, "SELECT RowKey FROM "+cust+" WHERE Name = 'Eve'", "n9")
			expectRows(t, c, "SELECT Name FROM "+cust+" FORCE INDEX (by_age) WHERE Age BETWEEN 20 AND 45 ORDER BY Name", "Ann", "Eve", "Robert")
			expectCosts(t, c, []costCase{{"SELECT RowKey FROM " + cust + " WHERE Name = 'Bob'", 1, 0}})
			expectRows(t, c, "CHECK TABLE "+cust, "azure."+cust+"\tcheck\tstatus\tOK")

			// REFRESH TABLE re-infers the columns and rebuilds the indexes.
			f.seed.put(t, cust, "north", "n8", storage.Properties{"Name": storage.String("Fay")})
			refresh := strings.Join(rows(t, c, "REFRESH TABLE "+cust), "\n")
			if !strings.Contains(refresh, "Index 'by_name': 1 entries repaired") || !strings.HasSuffix(refresh, "refresh\tstatus\tOK") {
				t.Errorf("REFRESH TABLE of an indexed table:\n%s", refresh)
			}
			expectRows(t, c, "SELECT RowKey FROM "+cust+" WHERE Name = 'Fay'", "n8")

			// A value longer than the pinned VARCHAR(20) shows in the JSON
			// column, and the index holds the row under NULL.
			long := strings.Repeat("x", 25)
			f.seed.put(t, cust, "north", "n7", storage.Properties{"Name": storage.String(long)})
			mustExec(t, c, "REPAIR TABLE "+cust)
			expectRows(t, c, "SELECT Name, _extra FROM "+cust+" WHERE PartitionKey = 'north' AND RowKey = 'n7'", "NULL	{\"Name\": \""+long+"\"}")
			expectRows(t, c, "SELECT RowKey FROM "+cust+" WHERE Name = '"+long+"'")
			expectRows(t, c, "SELECT RowKey FROM "+cust+" FORCE INDEX (by_name) WHERE Name IS NULL ORDER BY RowKey", "n7", "w2")
			expectRows(t, c, "SELECT RowKey FROM "+cust+" IGNORE INDEX (by_name) WHERE Name IS NULL ORDER BY RowKey", "n7", "w2")

			// An indexed column's property type is fixed while indexed;
			// DROP INDEX lets it change.
			expectErrno(t, c, 1235, "ALTER TABLE "+cust+" MODIFY Age DOUBLE")
			mustExec(t, c, "DROP INDEX by_age ON "+cust)
			mustExec(t, c, "ALTER TABLE "+cust+" MODIFY Age DOUBLE")
			expectRows(t, c, "SELECT Name FROM "+cust+" WHERE Name = 'Eve'", "Eve")
		})
	}
}
