package sqlgw_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// TestInsertIgnoreRacesInsert: sessions that each delete a row and insert
// it again with INSERT IGNORE, REPLACE or INSERT ... ON DUPLICATE KEY
// UPDATE, all on the same ids at once, in autocommit. MySQL never fails
// those statements with 1062: the insert waits for the other session's
// row lock and then ignores, replaces or updates. sqlgw decides the
// statement on a read that found the row absent; when another session
// inserted it before the commit, the commit's conditional insert fails,
// and that is a conflict with the read (engine/readabsent.go, retried by
// wire's autoretry.go), not a duplicate of the statement's own making.
func TestInsertIgnoreRacesInsert(t *testing.T) {
	for _, stmt := range []string{
		"INSERT IGNORE INTO d.t VALUES (?, 1)",
		"REPLACE INTO d.t VALUES (?, 1)",
		"INSERT INTO d.t VALUES (?, 1) ON DUPLICATE KEY UPDATE v = v + 1",
	} {
		for _, b := range sqltest.Backends {
			t.Run(b.Name+"/"+stmt[:14], func(t *testing.T) { insertRacesInsert(t, sqltest.StartBackend(t, b, sqltest.Options{}), stmt) })
		}
	}
}

// insertRacesInsert is one case of TestInsertIgnoreRacesInsert on ts.
func insertRacesInsert(t *testing.T, ts *sqltest.Server, stmt string) {
	n := 300
	if strings.Contains(t.Name(), "azurite") {
		n = 40
	}
	c := ts.Use("d")
	c.Exec("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		conn := ts.Conn()
		wg.Add(1)
		go func(conn *sql.Conn) {
			defer wg.Done()
			for i := 0; i < n; i++ {
				id := i % 3
				for _, q := range []string{"DELETE FROM d.t WHERE id = ?", stmt} {
					if _, err := conn.ExecContext(context.Background(), q, id); err != nil {
						mu.Lock()
						errs = append(errs, fmt.Errorf("%s: %w", q, err))
						mu.Unlock()
					}
				}
			}
		}(conn)
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("%d of %d statements failed, first: %v", len(errs), 8*n, errs[0])
	}
}
