package sqlgw_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
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
	forEachAttached(t, func(t *testing.T, f *attachedFixture, c *sqltest.Runner) {
		cust := f.cust

		// A String property is MEDIUMTEXT, which no index keys (MySQL's
		// 1170); pinned to VARCHAR(n) it can be indexed.
		c.ExpectErrno(1170, "CREATE INDEX by_name ON "+cust+" (Name)")
		c.Exec("ALTER TABLE " + cust + " MODIFY Name VARCHAR(20)")
		// Refused: what would need the user's table or uniqueness.
		c.ExpectErrno(1235, "CREATE UNIQUE INDEX u_name ON "+cust+" (Name)")
		c.ExpectErrno(1235, "CREATE INDEX by_rk ON "+cust+" (RowKey)")
		c.ExpectErrno(1235, "CREATE INDEX by_ts ON "+cust+" (Timestamp)")
		c.ExpectErrno(1235, "CREATE INDEX by_name ON "+cust+" (Name) COMMENT 'sqlgw: local'")
		c.ExpectErrno(1235, "CREATE INDEX by_name ON "+cust+" (Name) COMMENT 'sqlgw: cover=(Age)'")

		c.Exec("CREATE INDEX by_name ON " + cust + " (Name)")
		c.Exec("CREATE INDEX by_age ON " + cust + " (Age)")
		c.ExpectRows("SELECT index_name, column_name, index_comment FROM information_schema.statistics WHERE table_schema = 'azure' AND table_name = '"+cust+"' AND index_name <> 'PRIMARY' ORDER BY index_name",
			"by_age\tAge\tsqlgw: global", "by_name\tName\tsqlgw: global")
		// The user's table is untouched: same entities, same properties.
		expectEntity(t, f.seed.get(t, cust, "east", "c2"), map[string]string{
			"Name": "Edm.String:Bob", "Age": "Edm.Int64:40", "Score": "Edm.Int32:5"})
		c.ExpectRows("SELECT COUNT(*) FROM "+cust+" IGNORE INDEX (by_name, by_age)", "4")

		plan := strings.Join(c.Rows("EXPLAIN SELECT RowKey FROM "+cust+" WHERE Name = 'Bob'"), "\n")
		if !strings.Contains(plan, "IndexLookup") || !strings.Contains(plan, "by_name") || strings.Contains(plan, "covering") {
			t.Errorf("EXPLAIN of a lookup by name:\n%s", plan)
		}
		// An index read, then one Get per hit (never covering: every
		// hit is verified against its entity).
		expectCosts(t, c, []attachedCost{
			{"SELECT RowKey FROM " + cust + " WHERE Name = 'Bob'", 2, 2},
			{"SELECT Name FROM " + cust + " WHERE Name = 'Zoë'", 2, 2},
			{"SELECT Name FROM " + cust + " FORCE INDEX (by_age) WHERE Age BETWEEN 20 AND 45 ORDER BY Name", 3, 4},
		})
		c.ExpectRows("SELECT RowKey FROM "+cust+" WHERE Name = 'Bob'", "c2")
		c.ExpectRows("SELECT Name FROM "+cust+" FORCE INDEX (by_age) WHERE Age BETWEEN 20 AND 45 ORDER BY Name", "Ann", "Bob")
		c.ExpectRows("SELECT Name FROM "+cust+" WHERE Name > 'B' ORDER BY Name", "Bob", "Zoë")

		// SQL writes maintain the index; the entities stay plain.
		c.Exec("INSERT INTO " + cust + " (PartitionKey, RowKey, Name, Age) VALUES ('south', 's1', 'Dan', 51)")
		expectEntity(t, f.seed.get(t, cust, "south", "s1"), map[string]string{"Name": "Edm.String:Dan", "Age": "Edm.Int64:51"})
		c.ExpectRows("SELECT RowKey, Age FROM "+cust+" WHERE Name = 'Dan'", "s1\t51")
		c.Exec("UPDATE " + cust + " SET Name = 'Dana', Age = 52 WHERE PartitionKey = 'south' AND RowKey = 's1'")
		c.ExpectRows("SELECT RowKey FROM " + cust + " WHERE Name = 'Dan'")
		c.ExpectRows("SELECT RowKey FROM "+cust+" WHERE Name = 'Dana'", "s1")
		c.ExpectRows("SELECT Name FROM "+cust+" WHERE Age = 52", "Dana")
		c.Exec("DELETE FROM " + cust + " WHERE PartitionKey = 'south' AND RowKey = 's1'")
		c.ExpectRows("SELECT RowKey FROM " + cust + " WHERE Name = 'Dana'")
		c.ExpectRows("CHECK TABLE "+cust, "azure."+cust+"\tcheck\tstatus\tOK")

		// Another application renames Bob, deletes Zoë and adds Eve,
		// bypassing sqlgw. The index never yields a wrong row: Bob's
		// stale entry is skipped, Zoë's too; the new values are not
		// found through it until a rebuild.
		f.seed.put(t, cust, "east", "c2", storage.Properties{"Name": storage.String("Robert"), "Age": storage.Int64(41)})
		f.seed.put(t, cust, "north", "n9", storage.Properties{"Name": storage.String("Eve"), "Age": storage.Int32(29)})
		deleteSeeded(t, f.seed, cust, "west", "Zürich ü")
		c.ExpectRows("SELECT RowKey FROM " + cust + " WHERE Name = 'Bob'")
		c.ExpectRows("SELECT RowKey FROM " + cust + " WHERE Name = 'Zoë'")
		c.ExpectRows("SELECT Name FROM "+cust+" FORCE INDEX (by_age) WHERE Age BETWEEN 20 AND 45 ORDER BY Name", "Ann")
		c.ExpectRows("SELECT RowKey FROM " + cust + " WHERE Name = 'Eve'")
		c.ExpectRows("SELECT RowKey FROM "+cust+" IGNORE INDEX (by_name) WHERE Name = 'Eve'", "n9")
		check := strings.Join(c.Rows("CHECK TABLE "+cust), "\n")
		if !strings.Contains(check, "Index 'by_name' (global) is corrupt: 2 entries missing") || !strings.Contains(check, "Corrupt") {
			t.Errorf("CHECK TABLE after other applications' writes:\n%s", check)
		}

		// REPAIR TABLE rebuilds: the new values are found, and the
		// stale entries are gone (a lookup of Bob reads no base entity).
		repair := strings.Join(c.Rows("REPAIR TABLE "+cust), "\n")
		if !strings.Contains(repair, "status\tOK") {
			t.Errorf("REPAIR TABLE:\n%s", repair)
		}
		c.ExpectRows("SELECT RowKey FROM "+cust+" WHERE Name = 'Robert'", "c2")
		c.ExpectRows("SELECT RowKey FROM "+cust+" WHERE Name = 'Eve'", "n9")
		c.ExpectRows("SELECT Name FROM "+cust+" FORCE INDEX (by_age) WHERE Age BETWEEN 20 AND 45 ORDER BY Name", "Ann", "Eve", "Robert")
		expectCosts(t, c, []attachedCost{{"SELECT RowKey FROM " + cust + " WHERE Name = 'Bob'", 1, 0}})
		c.ExpectRows("CHECK TABLE "+cust, "azure."+cust+"\tcheck\tstatus\tOK")

		// REFRESH TABLE re-infers the columns and rebuilds the indexes.
		f.seed.put(t, cust, "north", "n8", storage.Properties{"Name": storage.String("Fay")})
		refresh := strings.Join(c.Rows("REFRESH TABLE "+cust), "\n")
		if !strings.Contains(refresh, "Index 'by_name': 1 entries repaired") || !strings.HasSuffix(refresh, "refresh\tstatus\tOK") {
			t.Errorf("REFRESH TABLE of an indexed table:\n%s", refresh)
		}
		c.ExpectRows("SELECT RowKey FROM "+cust+" WHERE Name = 'Fay'", "n8")

		// A value longer than the pinned VARCHAR(20) shows in the JSON
		// column, and the index holds the row under NULL.
		long := strings.Repeat("x", 25)
		f.seed.put(t, cust, "north", "n7", storage.Properties{"Name": storage.String(long)})
		c.Exec("REPAIR TABLE " + cust)
		c.ExpectRows("SELECT Name, _extra FROM "+cust+" WHERE PartitionKey = 'north' AND RowKey = 'n7'", "NULL	{\"Name\": \""+long+"\"}")
		c.ExpectRows("SELECT RowKey FROM " + cust + " WHERE Name = '" + long + "'")
		c.ExpectRows("SELECT RowKey FROM "+cust+" FORCE INDEX (by_name) WHERE Name IS NULL ORDER BY RowKey", "n7", "w2")
		c.ExpectRows("SELECT RowKey FROM "+cust+" IGNORE INDEX (by_name) WHERE Name IS NULL ORDER BY RowKey", "n7", "w2")

		// An indexed column's property type is fixed while indexed;
		// DROP INDEX lets it change.
		c.ExpectErrno(1235, "ALTER TABLE "+cust+" MODIFY Age DOUBLE")
		c.Exec("DROP INDEX by_age ON " + cust)
		c.Exec("ALTER TABLE " + cust + " MODIFY Age DOUBLE")
		c.ExpectRows("SELECT Name FROM "+cust+" WHERE Name = 'Eve'", "Eve")
	})
}

// attachedCost is a statement and the store requests and entities it must
// cost its session.
type attachedCost struct {
	q              string
	reqs, entities int64
}

// expectCosts runs each case and reports every one whose cost differs.
func expectCosts(t *testing.T, c *sqltest.Runner, cases []attachedCost) {
	t.Helper()
	for _, tc := range cases {
		if r, e := c.Cost(tc.q); r != tc.reqs || e != tc.entities {
			t.Errorf("%s: %d requests, %d entities; want %d, %d", tc.q, r, e, tc.reqs, tc.entities)
		}
	}
}
