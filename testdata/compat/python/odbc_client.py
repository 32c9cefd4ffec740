"""ODBC: MariaDB Connector/ODBC (Debian odbc-mariadb) through unixODBC and pyodbc
(python3-pyodbc). Parameters go through SQLPrepare/SQLExecute (server-side prepared
statements); autocommit is off (pyodbc's default) so commit/rollback are SQLEndTran;
the catalog functions SQLTables, SQLColumns, SQLPrimaryKeys and SQLStatistics run the
driver's own information_schema queries."""

import decimal
import os
import sys

import pyodbc

sys.path.insert(0, os.path.dirname(__file__))
from compat import CUSTOMERS, HOST, ORDERS, PASSWORD, PORT, USER, Checker  # noqa: E402

DB = "compat_odbc"
DRIVER = os.environ.get("COMPAT_ODBC_DRIVER", "/usr/lib/x86_64-linux-gnu/odbc/libmaodbc.so")
c = Checker()


def connect(db="", autocommit=False):
    cn = pyodbc.connect("DRIVER={%s};SERVER=%s;PORT=%d;USER=%s;PASSWORD=%s;DATABASE=%s;CHARSET=utf8mb4"
                        % (DRIVER, HOST, PORT, USER, PASSWORD, db), autocommit=autocommit)
    cn.setdecoding(pyodbc.SQL_CHAR, encoding="utf-8")
    cn.setdecoding(pyodbc.SQL_WCHAR, encoding="utf-8")
    cn.setencoding(encoding="utf-8")
    return cn


admin = connect(autocommit=True)
c.run("create database", lambda: (admin.execute("DROP DATABASE IF EXISTS " + DB), admin.execute("CREATE DATABASE " + DB)))
admin.close()

cn = connect(DB)
cur = cn.cursor()
c.run("create tables (composite primary keys)", lambda: (
    cur.execute("""CREATE TABLE customers (region VARCHAR(16) NOT NULL, id INT NOT NULL,
        name VARCHAR(64) NOT NULL, note VARCHAR(255) NULL, PRIMARY KEY (region, id))"""),
    cur.execute("""CREATE TABLE orders (region VARCHAR(16) NOT NULL, customer_id INT NOT NULL,
        order_no INT NOT NULL, qty INT NOT NULL, price DECIMAL(10,2) NULL,
        PRIMARY KEY (region, customer_id, order_no))"""), cn.commit()))
index_ok = c.index("create secondary index", lambda: (cur.execute("CREATE INDEX idx_customers_name ON customers (name)"), cn.commit()))


def insert():
    for row in CUSTOMERS:
        cur.execute("INSERT INTO customers (region, id, name, note) VALUES (?, ?, ?, ?)", *row)
    for r, ci, o, q, p in ORDERS:
        cur.execute("INSERT INTO orders VALUES (?, ?, ?, ?, ?)", r, ci, o, q, None if p is None else decimal.Decimal(p))
    cn.commit()


c.run("insert with parameters (quotes, NULL, DECIMAL)", insert)
D = decimal.Decimal
c.eq("read by key", [("O'Brien", "it's fragile")],
     [tuple(r) for r in cur.execute("SELECT name, note FROM customers WHERE region = ? AND id = ?", "eu", 1).fetchall()])
c.eq("read NULL by key", [("Smith", None)],
     [tuple(r) for r in cur.execute("SELECT name, note FROM customers WHERE region = ? AND id = ?", "eu", 2).fetchall()])
c.eq("read by secondary-index column", [("eu", 1)],
     [tuple(r) for r in cur.execute("SELECT region, id FROM customers WHERE name = ?", "O'Brien").fetchall()])
cur.execute("""SELECT c.name, COUNT(*) AS n, SUM(o.qty) AS qty, SUM(o.price) AS total
    FROM customers c JOIN orders o ON o.region = c.region AND o.customer_id = c.id
    WHERE c.region <> ? GROUP BY c.region, c.id, c.name ORDER BY c.region, c.id""", "zz")
types = [d[1] for d in cur.description]
rows = [tuple(r) for r in cur.fetchall()]
c.eq("join with aggregate", [("O'Brien", 2, D(30), D("3.75")), ("Smith", 1, D(5), None), ("Jones", 1, D(7), D("3.00"))], rows)
c.eq("SUM(INT) is DECIMAL", D, types[2])

c.eqf("update rowcount", 2, lambda: cur.execute("UPDATE customers SET note = ? WHERE region = ?", "updated", "eu").rowcount)
c.eqf("delete rowcount", 2, lambda: cur.execute("DELETE FROM orders WHERE region = ? AND customer_id = ?", "eu", 1).rowcount)
cn.commit()

other = connect(DB, autocommit=True)


def count_ap():
    return other.execute("SELECT COUNT(*) FROM customers WHERE region = 'ap'").fetchone()[0]


cur.execute("INSERT INTO customers VALUES (?, ?, ?, ?)", "ap", 1, "Rolled", None)
c.eq("uncommitted insert invisible to another connection", 0, count_ap())
cn.rollback()
c.eq("rollback discards", 0, count_ap())
cur.execute("INSERT INTO customers VALUES (?, ?, ?, ?)", "ap", 2, "Kept", None)
cn.commit()
c.eq("commit keeps", 1, count_ap())
other.close()

c.run("EXPLAIN", lambda: cur.execute("EXPLAIN SELECT * FROM customers WHERE region = ? AND id = ?", "eu", 1).fetchall())

# Catalog functions: the driver's own information_schema queries.

def catalog(name, want, fn):
    """Runs one catalog function; an error fails only this check."""
    got = c.run(name + " call", fn)
    if got is not None:
        c.eq(name, want, got)


catalog("SQLTables", ["customers", "orders"],
        lambda: sorted(r.table_name for r in cur.tables(table="%", catalog=DB, tableType="TABLE").fetchall()))
catalog("SQLColumns", [("region", 16, 0), ("customer_id", 10, 0), ("order_no", 10, 0), ("qty", 10, 0), ("price", 10, 1)],
        lambda: [(r.column_name, r.column_size, r.nullable) for r in cur.columns(table="orders", catalog=DB).fetchall()])
catalog("SQLPrimaryKeys", [("region", 1), ("customer_id", 2), ("order_no", 3)],
        lambda: sorted(((r.column_name, r.key_seq) for r in cur.primaryKeys("orders", catalog=DB).fetchall()), key=lambda x: x[1]))
want = [("PRIMARY", "region"), ("PRIMARY", "id")] + ([("idx_customers_name", "name")] if index_ok else [])
catalog("SQLStatistics", want,
        lambda: [(r.index_name, r.column_name) for r in cur.statistics("customers", catalog=DB).fetchall() if r.index_name])
c.run("SQLGetTypeInfo", lambda: cur.getTypeInfo(pyodbc.SQL_VARCHAR).fetchall())
cn.rollback()
cn.close()
c.finish()
