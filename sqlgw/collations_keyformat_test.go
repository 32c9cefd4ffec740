package sqlgw_test

import (
	"context"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
)

// TestPadSpaceOldKeyFormat: a table whose catalog record has no key format
// (written by a build before catalog.KeyFormatPadSpace) keeps its keys with
// trailing spaces after a restart: 'a' and 'a ' stay two keys, as they were
// written (no row is missed, none is merged), while reads compare padded
// (an equality is read as a key prefix range and filtered). A table created
// beside it, and the old table once truncated, key them as one (1062).
func TestPadSpaceOldKeyFormat(t *testing.T) {
	store, co := sqltest.Memory.Open(t)
	t.Cleanup(func() { store.Close() })
	ts := sqltest.Start(t, sqltest.NoClose(store), sqltest.Options{Catalog: co})
	c := sqltest.NewRunner(t, ts.Session("kf",
		"CREATE TABLE old (k VARCHAR(10) COLLATE utf8mb4_general_ci PRIMARY KEY, u VARCHAR(10) COLLATE utf8mb4_general_ci, n INT, UNIQUE KEY u_1 (u))",
		"INSERT INTO old VALUES ('a', 'x', 1)"))
	c.ExpectErrno(1062, "INSERT INTO old VALUES ('A ', 'y', 2)")
	ts.Stop()

	// Rewrite the record as an older build wrote it: without "kfmt".
	ctx := context.Background()
	cat, err := catalog.Open(ctx, sqltest.NoClose(store), co)
	if err != nil {
		t.Fatal(err)
	}
	page, err := store.Query(ctx, cat.CatalogTable(), &storage.Query{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range page.Entities {
		def, ok := e.Properties["def"]
		if !ok || def.Type() != storage.TypeString || !strings.Contains(def.Str(), `"name":"old"`) {
			continue
		}
		js := strings.Replace(def.Str(), `,"kfmt":1`, "", 1)
		if js == def.Str() {
			t.Fatalf("no key format in the record: %s", js)
		}
		e.Properties["def"] = storage.String(js)
		if _, err := store.Upsert(ctx, cat.CatalogTable(), e, storage.Replace); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 1 || page.Continuation != "" {
		t.Fatalf("%d table records rewritten", n)
	}

	ts2 := sqltest.Start(t, sqltest.NoClose(store), sqltest.Options{Catalog: co})
	c2 := sqltest.NewRunner(t, ts2.Conn())
	c2.Exec("USE kf")
	c2.Script(`
		exec INSERT INTO old VALUES ('A ', 'x ', 2)
		error 1062 INSERT INTO old VALUES ('A', 'z', 3)
		query SELECT k, n FROM old WHERE k = 'a' ORDER BY n
		= a | 1
		= A  | 2
		query SELECT k, n FROM old WHERE k = 'A  ' ORDER BY n
		= a | 1
		= A  | 2
		query SELECT n FROM old WHERE k IN ('b', 'a') ORDER BY n
		= 1
		= 2
		query SELECT n FROM old WHERE u = 'X' ORDER BY n
		= 1
		= 2
		query SELECT count(*) FROM old WHERE k > 'a'
		= 0
		exec CREATE TABLE new (k VARCHAR(10) COLLATE utf8mb4_general_ci PRIMARY KEY)
		exec INSERT INTO new VALUES ('a')
		error 1062 INSERT INTO new VALUES ('A ')
		exec CREATE TABLE cp LIKE old
		error 1062 INSERT INTO cp SELECT * FROM old
		exec TRUNCATE TABLE old
		exec INSERT INTO old VALUES ('a', 'x', 1)
		error 1062 INSERT INTO old VALUES ('A ', 'y', 2)
		error 1062 INSERT INTO old VALUES ('b', 'X  ', 2)
	`)
}
