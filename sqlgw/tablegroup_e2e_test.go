package sqlgw_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/catalog"
	txnrec "github.com/sqlgw/sqlgw/catalog/txn"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
)

// groupSchema declares orders and their order_lines in table group sales (by
// customer), and a pair of plain tables of the same shape to compare with.
const groupSchema = `
exec CREATE DATABASE d
exec USE d
exec CREATE TABLE orders (cust INT NOT NULL, id INT NOT NULL, total INT, PRIMARY KEY (cust, id)) COMMENT 'sqlgw: group=sales'
exec CREATE TABLE order_lines (cust INT NOT NULL, id INT NOT NULL, line INT NOT NULL, sku VARCHAR(20), PRIMARY KEY (cust, id, line)) COMMENT 'sqlgw: group=sales'
exec CREATE TABLE porders (cust INT NOT NULL, id INT NOT NULL, total INT, PRIMARY KEY (cust, id))
exec CREATE TABLE porder_lines (cust INT NOT NULL, id INT NOT NULL, line INT NOT NULL, sku VARCHAR(20), PRIMARY KEY (cust, id, line))
`

// txCost runs the statements as one transaction and returns the store
// requests from BEGIN to COMMIT.
func txCost(t *testing.T, r *sqltest.Runner, stmts ...string) int64 {
	t.Helper()
	r0, _ := r.Status()
	r.Exec("BEGIN")
	for _, q := range stmts {
		r.Exec(q)
	}
	r.Exec("COMMIT")
	r1, _ := r.Status()
	return r1 - r0
}

// groupEntities lists the raw keys of the group's physical table, as
// "PartitionKey RowKey" order_lines.
func groupEntities(t *testing.T, s *sqltest.Server, base string) []string {
	t.Helper()
	var out []string
	q := &storage.Query{}
	for {
		page, err := s.Store.Query(context.Background(), base, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Entities {
			if e.RowKey >= "\u00ff" || e.Properties[txnrec.PropDeleted].BoolValue() {
				// On the Table service: a history entity or a tombstone
				// (catalog/txn, "Isolation"), pruned after an hour.
				continue
			}
			out = append(out, e.PartitionKey+" "+e.RowKey)
		}
		if page.Continuation == "" {
			return out
		}
		q.Continuation = page.Continuation
	}
}

// writes keeps the write requests of a request trace.
func writes(trace []string) []string {
	var out []string
	for _, l := range trace {
		if !strings.HasPrefix(l, "Get ") && !strings.HasPrefix(l, "Query ") {
			out = append(out, l)
		}
	}
	return out
}

func TestTableGroups(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, s *sqltest.Server) {
		r := s.Runner()
		r.Script(groupSchema)
		// The partition key must match the group's.
		r.Script(`
			error 1525 CREATE TABLE bad (cust BIGINT NOT NULL, x INT NOT NULL, PRIMARY KEY (cust, x)) COMMENT 'sqlgw: group=sales'
			error 1525 CREATE TABLE bad (x VARCHAR(5) NOT NULL, cust INT NOT NULL, PRIMARY KEY (cust, x)) COMMENT 'sqlgw: partition_key=(x), group=sales'
			error 1525 CREATE TABLE bad (cust INT) COMMENT 'sqlgw: group=sales'
		`)

		// One partition, two tables: one entity group transaction (the
		// INSERTs' duplicate checks read, the commit is one batch).
		var n int64
		tr := s.Requests(func() {
			n = txCost(t, r, "INSERT INTO orders VALUES (7, 1, 100)", "INSERT INTO order_lines VALUES (7, 1, 1, 'a'), (7, 1, 2, 'b')")
		})
		// On the Table service every commit goes through catalog/txn
		// (catalog/txn, "Isolation"): one group per member, both in one
		// partition, so the inline path (3 requests: the locks with the
		// intents, the commit point, the resolution), after the record
		// table's creation (the gateway's first commit).
		versioned := !strings.Contains(t.Name(), "pebble")
		if w := writes(tr); !versioned && (n != 4 || len(w) != 1 || !strings.HasPrefix(w[0], "Batch ") || !strings.Contains(w[0], "ops=3")) {
			t.Errorf("a transaction over two tables of a group in one partition: %d requests, writes %q; want 4 (3 reads), one batch", n, w)
		} else if versioned && n != 3+1+3 {
			t.Errorf("a transaction over two tables of a group in one partition: %d requests, writes %q; want 7 (3 reads, the record table, the inline commit)", n, w)
		}
		var plain int64
		tr = s.Requests(func() {
			plain = txCost(t, r, "INSERT INTO porders VALUES (7, 1, 100)", "INSERT INTO porder_lines VALUES (7, 1, 1, 'a'), (7, 1, 2, 'b')")
		})
		t.Logf("the same transaction over two plain tables: %d requests, %d writes", plain, len(writes(tr)))
		tr = s.Requests(func() {
			n = txCost(t, r, "UPDATE orders SET total = 150 WHERE cust = 7 AND id = 1", "DELETE FROM order_lines WHERE cust = 7 AND id = 1 AND line = 2",
				"INSERT INTO order_lines VALUES (7, 1, 3, 'c')")
		})
		if w := writes(tr); !versioned && (len(w) != 1 || !strings.Contains(w[0], "ops=3")) {
			t.Errorf("read-modify-write over two tables of a group in one partition: %d requests, writes %q; want one batch", n, w)
		}
		r.Script(`
			query SELECT * FROM orders
			= 7 | 1 | 150
			query SELECT * FROM order_lines ORDER BY line
			= 7 | 1 | 1 | a
			= 7 | 1 | 3 | c
			# Each table reads only its own entities: a partition scan is one
			# request and reads only the table's rows.
			exec INSERT INTO orders VALUES (7, 2, 5), (8, 1, 9)
			exec INSERT INTO order_lines VALUES (8, 1, 1, 'z')
		`)
		if req, ent := r.Cost("SELECT id FROM orders WHERE cust = 7"); req != 1 || ent != 2 {
			t.Errorf("partition scan of orders: %d requests, %d entities; want 1, 2", req, ent)
		}
		r.Script(`
			query SELECT cust, id FROM orders ORDER BY cust, id
			= 7 | 1
			= 7 | 2
			= 8 | 1
			query SELECT COUNT(*) FROM order_lines
			= 3

			# A join of two members on the partition key, bound to one
			# partition: one request reads both tables' rows.
			exec INSERT INTO porders VALUES (7, 2, 5), (8, 1, 9)
			exec INSERT INTO porder_lines VALUES (8, 1, 1, 'z'), (7, 1, 3, 'c')
			exec DELETE FROM porder_lines WHERE cust = 7 AND line = 2
		`)
		for _, q := range []string{
			"SELECT o.id, l.line, l.sku FROM %s o JOIN %s l ON l.cust = o.cust AND l.id = o.id WHERE o.cust = 7 ORDER BY 1, 2",
			"SELECT o.id, l.line, l.sku FROM %s o JOIN %s l ON l.cust = o.cust WHERE o.cust = 7 AND l.id = o.id ORDER BY 1, 2",
			"SELECT o.id, l.line, l.sku FROM %s o, %s l WHERE l.cust = 7 AND o.cust = 7 AND l.id = o.id ORDER BY 1, 2",
		} {
			gq, pq := fmt.Sprintf(q, "orders", "order_lines"), fmt.Sprintf(q, "porders", "porder_lines")
			r.ExpectRows(gq, "1\t1\ta", "1\t3\tc")
			r.ExpectRows(pq, "1\t1\ta", "1\t3\tc")
			greq, gent := r.Cost(gq)
			preq, pent := r.Cost(pq)
			if greq != 1 || greq >= preq {
				t.Errorf("%s: %d requests, %d entities; plain tables %d, %d; want 1 request", gq, greq, gent, preq, pent)
			}
			t.Logf("join in a group: %d requests, %d entities; plain tables: %d requests, %d entities", greq, gent, preq, pent)
		}

		// Joins over every partition, or cut by LIMIT, answer as the
		// plain tables do.
		for _, q := range sqltest.Lines(`
			SELECT o.cust, o.id, l.line, l.sku FROM %s o JOIN %s l ON l.cust = o.cust AND l.id = o.id ORDER BY 1, 2, 3
			SELECT o.cust, o.id, l.line FROM %s o JOIN %s l ON l.cust = o.cust WHERE o.cust = 7 ORDER BY 1, 2, 3 LIMIT 1
			SELECT o.cust, COUNT(l.line) FROM %s o LEFT JOIN %s l ON l.cust = o.cust AND l.id = o.id GROUP BY o.cust ORDER BY 1
			SELECT o.cust, o.id FROM %s o WHERE o.cust = 7 AND NOT EXISTS (SELECT 1 FROM %s l WHERE l.cust = o.cust AND l.id = o.id) ORDER BY 2
		`) {
			gq, pq := fmt.Sprintf(q, "orders", "order_lines"), fmt.Sprintf(q, "porders", "porder_lines")
			r.ExpectRows(gq, r.Rows(pq)...)
		}

		// The key format: the member prefix before each table's RowKey.
		omt := sqltest.StoreTable(t, s.Store, s.Catalog, "d", "orders")
		lmt := sqltest.StoreTable(t, s.Store, s.Catalog, "d", "order_lines")
		if omt.Group != "sales" || lmt.Group != "sales" {
			t.Fatalf("groups %q, %q", omt.Group, lmt.Group)
		}
		base, oprefix, ok := catalog.ParseGroupPhysical(omt.Physical)
		if !ok || oprefix != catalog.GroupPhysical("", omt.ID)[1:] {
			t.Fatalf("orders' Physical %q (ID %d)", omt.Physical, omt.ID)
		}
		if lb, _, _ := catalog.ParseGroupPhysical(lmt.Physical); lb != base {
			t.Fatalf("order_lines live in %q, orders in %q", lb, base)
		}
		got := strings.Join(groupEntities(t, s, base), "\n")
		_, lprefix, _ := catalog.ParseGroupPhysical(lmt.Physical)
		want := strings.Join([]string{"a7 " + oprefix + "a1", "a7 " + oprefix + "a2", "a7 " + lprefix + "a1a1", "a7 " + lprefix + "a1a3", "a8 " + oprefix + "a1", "a8 " + lprefix + "a1a1"}, "\n")
		if got != want {
			t.Errorf("group table entities:\n%s\nwant:\n%s", got, want)
		}

		// SHOW CREATE TABLE shows the option; a new comment keeps it.
		if sc := strings.Join(r.Rows("SHOW CREATE TABLE orders"), "\n"); !strings.Contains(sc, "sqlgw: group=sales") {
			t.Errorf("SHOW CREATE TABLE:\n%s", sc)
		}
		r.Exec("ALTER TABLE orders COMMENT 'the orders'")
		if sc := strings.Join(r.Rows("SHOW CREATE TABLE orders"), "\n"); !strings.Contains(sc, "the orders sqlgw: group=`sales`") {
			t.Errorf("SHOW CREATE TABLE after a new comment:\n%s", sc)
		}
		r.Script(`
			error 1235 ALTER TABLE orders COMMENT 'sqlgw: group=other'

			# DDL of one member leaves the others alone.
			exec ALTER TABLE order_lines ADD COLUMN qty INT DEFAULT 1
			exec CREATE INDEX by_sku ON order_lines (sku)
			query SELECT cust, line FROM order_lines WHERE sku = 'z'
			= 8 | 1
			exec TRUNCATE TABLE order_lines
			query SELECT COUNT(*) FROM order_lines
			= 0
			query SELECT cust, id FROM orders ORDER BY cust, id
			= 7 | 1
			= 7 | 2
			= 8 | 1
			exec INSERT INTO order_lines (cust, id, line, sku) VALUES (7, 2, 1, 'n')
			query SELECT cust, id, line, sku, qty FROM order_lines
			= 7 | 2 | 1 | n | 1
			query SELECT cust, line FROM order_lines WHERE sku = 'n'
			= 7 | 1
			exec DROP TABLE order_lines
			query SELECT cust, id FROM orders ORDER BY cust, id
			= 7 | 1
			= 7 | 2
			= 8 | 1
		`)
		if got := groupEntities(t, s, base); len(got) != 3 {
			t.Errorf("after DROP TABLE order_lines the group table holds %q", got)
		}
		r.Exec("DROP TABLE orders")
		if ok, err := s.Store.TableExists(context.Background(), base); err != nil || ok {
			t.Errorf("the group's table outlived its last member (%v, %v)", ok, err)
		}
	})
}

// TestTableGroupAtomicity: a transaction writing two members of a group in
// one partition is one batch: a crash at any request leaves all of it or
// none of it, on both backends.
func TestTableGroupAtomicity(t *testing.T) {
	for _, b := range sqltest.Backends {
		t.Run(b.Name, func(t *testing.T) {
			points := sqltest.CrashAtEveryRequest(t, sqltest.Crash{
				Name:    "group transaction",
				Backend: b,
				Setup: func(r *sqltest.Runner, _ storage.Store) {
					r.Script(groupSchema)
					r.Exec("INSERT INTO orders VALUES (7, 1, 100)")
					r.Exec("INSERT INTO order_lines VALUES (7, 1, 1, 'a')")
				},
				Op: func(r *sqltest.Runner) {
					for _, q := range []string{"BEGIN", "UPDATE orders SET total = 200 WHERE cust = 7 AND id = 1",
						"INSERT INTO orders VALUES (7, 2, 50)", "DELETE FROM order_lines WHERE cust = 7 AND id = 1 AND line = 1",
						"INSERT INTO order_lines VALUES (7, 2, 1, 'b'), (7, 2, 2, 'c')", "COMMIT"} {
						if r.Try(q) != nil {
							return
						}
					}
				},
				Check: func(r *sqltest.Runner, _ storage.Store, p sqltest.CrashPoint) {
					r.Exec("USE d")
					got := strings.Join(r.Rows("SELECT * FROM orders ORDER BY id"), "|") + " / " + strings.Join(r.Rows("SELECT * FROM order_lines ORDER BY id, line"), "|")
					before := "7\t1\t100 / 7\t1\t1\ta"
					after := "7\t1\t200|7\t2\t50 / 7\t2\t1\tb|7\t2\t2\tc"
					if got != before && got != after {
						t.Errorf("%s: the transaction was cut: %q", p, got)
					}
				},
			})
			if points < 2 {
				t.Errorf("%d crash points", points)
			}
		})
	}
}
