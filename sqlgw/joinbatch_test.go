package sqlgw_test

import (
	"fmt"
	"strings"
	"testing"
)

// joinFixture creates, in database d: u (indexed: unique global by_email,
// global by_city (city, age)) and its unindexed copy u0, o (orders pointing
// at u by email, city, and id, NULLs and duplicates included) with n rows.
func joinFixture(t *testing.T, c execer, n int) {
	t.Helper()
	mustExec(t, c, "CREATE DATABASE d")
	mustExec(t, c, "USE d")
	mustExec(t, c, "CREATE TABLE u (id INT PRIMARY KEY, email VARCHAR(40), city VARCHAR(20), age INT, name VARCHAR(20), UNIQUE KEY by_email (email))")
	mustExec(t, c, "CREATE INDEX by_city ON u (city, age)")
	mustExec(t, c, "CREATE TABLE u0 (id INT PRIMARY KEY, email VARCHAR(40), city VARCHAR(20), age INT, name VARCHAR(20))")
	mustExec(t, c, "CREATE TABLE o (id INT PRIMARY KEY, uid INT, email VARCHAR(40), city VARCHAR(20), amt INT)")
	cities := []string{"Paris", "Rome", "Oslo", "Lima"}
	var uv, ov []string
	for i := range 40 {
		email := fmt.Sprintf("'u%d@x'", i)
		if i%10 == 9 {
			email = "NULL"
		}
		uv = append(uv, fmt.Sprintf("(%d, %s, '%s', %d, 'n%d')", i, email, cities[i%3], 20+i%5, i))
	}
	for i := range n {
		email := fmt.Sprintf("'u%d@x'", (i*7)%50) // some match nothing
		if i%13 == 0 {
			email = "NULL"
		}
		city := "'" + cities[i%4] + "'" // Lima matches nothing
		if i%17 == 0 {
			city = "NULL"
		}
		ov = append(ov, fmt.Sprintf("(%d, %d, %s, %s, %d)", i, (i*3)%45, email, city, i%6))
	}
	mustExec(t, c, "INSERT INTO u VALUES "+strings.Join(uv, ", "))
	mustExec(t, c, "INSERT INTO u0 VALUES "+strings.Join(uv, ", "))
	for len(ov) > 0 {
		k := min(len(ov), 100)
		mustExec(t, c, "INSERT INTO o VALUES "+strings.Join(ov[:k], ", "))
		ov = ov[k:]
	}
}

// joinQueries are joins of o with u (the %s), each with a hint for a lookup
// join into it; run against u0 they are the unindexed reference.
var joinQueries = []string{
	"SELECT /*+ LOOKUP_JOIN(o,%[1]s) JOIN_ORDER(o,%[1]s) */ o.id, %[1]s.id, %[1]s.name FROM o JOIN %[1]s ON %[1]s.email = o.email ORDER BY o.id, %[1]s.id",
	"SELECT /*+ LOOKUP_JOIN(o,%[1]s) JOIN_ORDER(o,%[1]s) */ o.id, %[1]s.id FROM o LEFT JOIN %[1]s ON %[1]s.email = o.email ORDER BY o.id, %[1]s.id",
	"SELECT /*+ LOOKUP_JOIN(o,%[1]s) JOIN_ORDER(o,%[1]s) */ o.id, %[1]s.id, %[1]s.age FROM o JOIN %[1]s ON %[1]s.city = o.city ORDER BY o.id, %[1]s.id",
	"SELECT /*+ LOOKUP_JOIN(o,%[1]s) JOIN_ORDER(o,%[1]s) */ o.id, %[1]s.id FROM o LEFT JOIN %[1]s ON %[1]s.city = o.city AND %[1]s.age > o.amt + 20 ORDER BY o.id, %[1]s.id",
	"SELECT /*+ LOOKUP_JOIN(o,%[1]s) JOIN_ORDER(o,%[1]s) */ o.id, %[1]s.id FROM o JOIN %[1]s ON %[1]s.city = o.city AND %[1]s.age = o.amt + 20 ORDER BY o.id, %[1]s.id",
	"SELECT /*+ LOOKUP_JOIN(o,%[1]s) JOIN_ORDER(o,%[1]s) */ o.id, %[1]s.id FROM o JOIN %[1]s ON %[1]s.id = o.uid WHERE o.amt < 4 ORDER BY o.id",
	"SELECT /*+ LOOKUP_JOIN(o,%[1]s) JOIN_ORDER(o,%[1]s) */ o.id, %[1]s.id FROM o LEFT JOIN %[1]s ON %[1]s.id = o.uid AND %[1]s.name <> 'n3' ORDER BY o.id",
	"SELECT /*+ LOOKUP_JOIN(o,%[1]s) JOIN_ORDER(o,%[1]s) */ o.id FROM o WHERE EXISTS (SELECT 1 FROM %[1]s WHERE %[1]s.email = o.email) ORDER BY o.id",
}

// TestSecondaryIndexLookupJoin: the engine's lookup joins through a
// secondary index (MySQLRangeCollections on it) return the rows of the
// same join without indexes.
func TestSecondaryIndexLookupJoin(t *testing.T) {
	forEachBackend(t, func(t *testing.T, ts *testServer) {
		c := ts.conn()
		joinFixture(t, c, 120)
		for _, q := range joinQueries {
			want := rows(t, c, fmt.Sprintf(q, "u0"))
			got := rows(t, c, fmt.Sprintf(q, "u"))
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s:\n got %d rows %q\nwant %d rows %q", fmt.Sprintf(q, "u"), len(got), got, len(want), want)
			}
		}
		// Inside a transaction with uncommitted writes to both copies.
		mustExec(t, c, "BEGIN")
		for _, tb := range []string{"u", "u0"} {
			mustExec(t, c, "INSERT INTO "+tb+" VALUES (100, 'u45@x', 'Lima', 22, 'new'), (101, NULL, 'Rome', 21, 'new2')")
			mustExec(t, c, "UPDATE "+tb+" SET email = 'u49@x', city = 'Oslo' WHERE id = 7")
			mustExec(t, c, "DELETE FROM "+tb+" WHERE id IN (14, 2)")
		}
		for _, q := range joinQueries {
			want := rows(t, c, fmt.Sprintf(q, "u0"))
			got := rows(t, c, fmt.Sprintf(q, "u"))
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("in a transaction: %s:\n got %d rows %q\nwant %d rows %q", fmt.Sprintf(q, "u"), len(got), got, len(want), want)
			}
		}
		mustExec(t, c, "ROLLBACK")
		// The join through by_email is a lookup join on the index.
		plan := strings.Join(rows(t, c, "EXPLAIN PLAN "+fmt.Sprintf(joinQueries[0], "u")), "\n")
		if !strings.Contains(plan, "[u.email]") {
			t.Errorf("no lookup through by_email:\n%s", plan)
		}
	})
}
