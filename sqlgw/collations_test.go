package sqlgw_test

import (
	"testing"
)

// A primary key under MySQL 8's default collation: 'a' and 'A' are one key
// (1062), lookups find the row whatever its case, and rows sort in collation
// order, as on MySQL.
func TestCaseInsensitiveKey(t *testing.T) {
	forEachBackend(t, func(t *testing.T, ts *testServer) {
		c := ts.conn()
		mustExec(t, c, "CREATE DATABASE ci")
		mustExec(t, c, "USE ci")
		mustExec(t, c, "CREATE TABLE u (s VARCHAR(20) COLLATE utf8mb4_0900_ai_ci PRIMARY KEY, n INT)")
		mustExec(t, c, "INSERT INTO u VALUES ('apple', 1), ('Banana', 2), ('cherry', 3)")
		expectErrno(t, c, 1062, "INSERT INTO u VALUES ('APPLE', 9)")
		expectRows(t, c, "SELECT s, n FROM u WHERE s = 'BANANA'", "Banana\t2")
		expectRows(t, c, "SELECT s FROM u ORDER BY s", "apple", "Banana", "cherry")
		expectRows(t, c, "SELECT s FROM u WHERE s > 'b' ORDER BY s", "Banana", "cherry")
	})
}
