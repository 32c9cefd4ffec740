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
	mustExec(t, c, "CREATE TABLE u (id INT PRIMARY KEY, email VARCHAR(40), city VARCHAR(20), age INT, name VARCHAR(20), tag VARCHAR(10) COLLATE utf8mb4_0900_ai_ci, UNIQUE KEY by_email (email), KEY by_tag (tag))")
	mustExec(t, c, "CREATE INDEX by_city ON u (city, age)")
	mustExec(t, c, "CREATE TABLE u0 (id INT PRIMARY KEY, email VARCHAR(40), city VARCHAR(20), age INT, name VARCHAR(20), tag VARCHAR(10) COLLATE utf8mb4_0900_ai_ci)")
	mustExec(t, c, "CREATE TABLE o (id INT PRIMARY KEY, uid INT, email VARCHAR(40), city VARCHAR(20), amt INT, tag VARCHAR(10) COLLATE utf8mb4_0900_ai_ci)")
	cities := []string{"Paris", "Rome", "Oslo", "Lima"}
	var uv, ov []string
	for i := range 40 {
		email := fmt.Sprintf("'u%d@x'", i)
		if i%10 == 9 {
			email = "NULL"
		}
		uv = append(uv, fmt.Sprintf("(%d, %s, '%s', %d, 'n%d', '%s')", i, email, cities[i%3], 20+i%5, i, []string{"café", "Tea", "milk", "x"}[i%4]))
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
		ov = append(ov, fmt.Sprintf("(%d, %d, %s, %s, %d, '%s')", i, (i*3)%45, email, city, i%6, []string{"CAFE", "tea", "Milk ", "y", "cafè"}[i%5]))
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
	"SELECT /*+ LOOKUP_JOIN(o,%[1]s) JOIN_ORDER(o,%[1]s) */ o.id, %[1]s.id FROM o LEFT JOIN %[1]s ON %[1]s.email <=> o.email ORDER BY o.id, %[1]s.id",
	"SELECT /*+ LOOKUP_JOIN(o,%[1]s) JOIN_ORDER(o,%[1]s) */ o.id, %[1]s.id, %[1]s.tag FROM o JOIN %[1]s ON %[1]s.tag = o.tag ORDER BY o.id, %[1]s.id",
	"SELECT /*+ LOOKUP_JOIN(o,%[1]s) JOIN_ORDER(o,%[1]s) */ o.id, %[1]s.id FROM o LEFT JOIN %[1]s ON %[1]s.id = o.uid + 1 AND o.amt > 2 ORDER BY o.id",
	"SELECT /*+ LOOKUP_JOIN(o,x) JOIN_ORDER(o,x) */ o.id, x.id FROM o JOIN %[1]s AS x ON x.email = o.email AND x.city <> o.city ORDER BY o.id, x.id",
}

// TestBatchedLookupJoin: lookup joins through the primary key and through
// secondary indexes (the engine's MySQLRangeCollections on them), batched
// in blocks of 256 and of 7 outer rows and not batched, return the rows of
// the same join on an unindexed copy, also inside a transaction with
// uncommitted inserts, updates and deletes.
func TestBatchedLookupJoin(t *testing.T) {
	forEachBackend(t, func(t *testing.T, ts *testServer) {
		c := ts.conn()
		joinFixture(t, c, 120)
		compare := func(what string) {
			t.Helper()
			for _, q := range joinQueries {
				mustExec(t, c, "SET sqlgw_join_batch = 256")
				want := rows(t, c, fmt.Sprintf(q, "u0"))
				for _, batch := range []string{"256", "7", "0"} {
					mustExec(t, c, "SET sqlgw_join_batch = "+batch)
					got := rows(t, c, fmt.Sprintf(q, "u"))
					if strings.Join(got, "\n") != strings.Join(want, "\n") {
						t.Errorf("%s, batch %s: %s:\n%s", what, batch, fmt.Sprintf(q, "u"), firstDiff(got, want))
					}
				}
			}
			mustExec(t, c, "SET sqlgw_join_batch = DEFAULT")
		}
		compare("committed")
		// Inside a transaction with uncommitted writes to both copies.
		mustExec(t, c, "BEGIN")
		for _, tb := range []string{"u", "u0"} {
			mustExec(t, c, "INSERT INTO "+tb+" VALUES (100, 'u45@x', 'Lima', 22, 'new', 'TEA'), (101, NULL, 'Rome', 21, 'new2', 'y')")
			mustExec(t, c, "UPDATE "+tb+" SET email = 'u49@x', city = 'Oslo' WHERE id = 7")
			mustExec(t, c, "DELETE FROM "+tb+" WHERE id IN (14, 2)")
		}
		mustExec(t, c, "UPDATE o SET uid = 100, email = 'u45@x' WHERE id = 5")
		compare("in a transaction")
		mustExec(t, c, "ROLLBACK")
		// EXPLAIN shows the batched join through the index, and its
		// absence when batching is off.
		q := fmt.Sprintf(joinQueries[0], "u")
		plan := strings.Join(rows(t, c, "EXPLAIN PLAN "+q), "\n")
		if !strings.Contains(plan, "BatchedLookupJoin") || !strings.Contains(plan, "by_email") || !strings.Contains(plan, "[u.email]") {
			t.Errorf("no batched lookup through by_email:\n%s", plan)
		}
		mustExec(t, c, "SET sqlgw_join_batch = 0")
		if plan := strings.Join(rows(t, c, "EXPLAIN PLAN "+q), "\n"); strings.Contains(plan, "BatchedLookupJoin") {
			t.Errorf("batched with sqlgw_join_batch = 0:\n%s", plan)
		}
		mustExec(t, c, "SET sqlgw_join_batch = DEFAULT")
	})
}

// firstDiff describes how two row lists differ: their lengths and the first
// row where they do.
func firstDiff(got, want []string) string {
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return fmt.Sprintf("got %d rows, want %d; row %d: got %q, want %q", len(got), len(want), i, g, w)
		}
	}
	return "equal"
}
