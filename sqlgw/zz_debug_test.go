package sqlgw_test

import (
	"strings"
	"testing"
)

func TestZZDebug(t *testing.T) {
	ts := startServer(t, memoryBackend.open(t))
	c := ts.conn()
	for _, q := range []string{"CREATE DATABASE shop", "USE shop", `CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(50) NOT NULL, city VARCHAR(30))`,
		`CREATE TABLE orders (cust INT, id INT, amount DECIMAL(10,2), note TEXT, PRIMARY KEY (cust, id))`,
		"INSERT INTO customers VALUES (1,'ann','paris'),(2,'bob','oslo'),(3,'cid',NULL)",
		"INSERT INTO orders VALUES (1,1,10.50,'a'),(1,2,20.00,NULL),(2,1,5.25,'b'),(3,1,1.00,'c'),(3,2,2.00,'d')"} {
		mustExec(t, c, q)
	}
	for _, q := range strings.Split(zzQueries, "\n") {
		if q == "" {
			continue
		}
		t.Logf("%s\n%s", q, strings.Join(rows(t, c, q), "\n"))
	}
}

var zzQueries = `EXPLAIN PLAN SELECT name FROM customers WHERE id IN (SELECT cust FROM orders WHERE amount > 5) ORDER BY name
SELECT cust FROM orders WHERE amount > 5
SELECT name FROM customers WHERE id IN (SELECT cust FROM orders WHERE amount > 5) ORDER BY name`
