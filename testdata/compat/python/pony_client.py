"""Pony ORM (Debian python3-pony, over mysqlclient): entities with composite primary
keys, generate_mapping(create_tables=True), then a second mapping over the existing
tables (check_tables), get by composite key, generator queries with count/sum,
attribute updates and delete() counts, rollback and commit in db_session, raw SQL with
$parameters."""

import decimal
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from compat import CUSTOMERS, HOST, ORDERS, PASSWORD, PORT, USER, Checker  # noqa: E402

import MySQLdb  # noqa: E402
from pony import orm  # noqa: E402

DB = "compat_pony"
c = Checker()
admin = MySQLdb.connect(host=HOST, port=PORT, user=USER, passwd=PASSWORD)
cur = admin.cursor()
c.run("create database", lambda: (cur.execute("DROP DATABASE IF EXISTS " + DB), cur.execute("CREATE DATABASE " + DB)))
admin.close()


def model():
    db = orm.Database()

    class Customer(db.Entity):
        _table_ = "customers"
        region = orm.Required(str, 16)
        cid = orm.Required(int, column="id")
        name = orm.Required(str, 64)
        note = orm.Optional(str, 255, nullable=True)
        orm.PrimaryKey(region, cid)

    class Order(db.Entity):
        _table_ = "orders"
        region = orm.Required(str, 16)
        customer_id = orm.Required(int)
        order_no = orm.Required(int)
        qty = orm.Required(int)
        price = orm.Optional(decimal.Decimal, 10, 2, nullable=True)
        orm.PrimaryKey(region, customer_id, order_no)

    db.bind(provider="mysql", host=HOST, port=PORT, user=USER, passwd=PASSWORD, db=DB, charset="utf8mb4")
    return db, Customer, Order


db, Customer, Order = model()
c.run("generate_mapping(create_tables=True) (composite primary keys)", lambda: db.generate_mapping(create_tables=True))


def create_index():
    with orm.db_session:
        db.execute("CREATE INDEX idx_customers_name ON customers (name)")


c.index("create secondary index", create_index)
db2, _, _ = model()
c.run("second mapping checks the existing tables", lambda: db2.generate_mapping(check_tables=True))
db2.disconnect()
D = decimal.Decimal


@orm.db_session
def insert():
    for r, i, n, t in CUSTOMERS:
        Customer(region=r, cid=i, name=n, note=t)
    for r, ci, o, q, p in ORDERS:
        Order(region=r, customer_id=ci, order_no=o, qty=q, price=None if p is None else D(p))


c.run("insert rows", insert)
with orm.db_session:
    c.eqf("get by composite key with quotes", ("O'Brien", "it's fragile"), lambda: (lambda x: (x.name, x.note))(Customer[("eu", 1)]))
    c.eqf("NULL column", None, lambda: Customer[("eu", 2)].note)
    c.eqf("query by secondary-index column", [("eu", 1)], lambda: [(x.region, x.cid) for x in orm.select(x for x in Customer if x.name == "O'Brien")[:]])
    c.eqf("sum and count", (35, 3), lambda: (orm.sum(o.qty for o in Order if o.region == "eu"), orm.count(o for o in Order if o.region == "eu")))
    c.eqf("raw SQL join with aggregate ($parameters)", [("O'Brien", 2, D(30), D("3.75")), ("Smith", 1, D(5), None), ("Jones", 1, D(7), D("3.00"))],
          lambda: [tuple(r) for r in db.select("""SELECT c.name, COUNT(*), SUM(o.qty), SUM(o.price) FROM customers c
              JOIN orders o ON o.region = c.region AND o.customer_id = c.id WHERE c.region <> $r
              GROUP BY c.region, c.id, c.name ORDER BY c.region, c.id""", {"r": "zz"})])


def update():
    with orm.db_session:
        for x in orm.select(x for x in Customer if x.region == "eu"):
            x.note = "updated"
    with orm.db_session:
        return sorted(x.note for x in orm.select(x for x in Customer if x.region == "eu"))


c.eqf("attribute updates committed", ["updated", "updated"], update)


def delete():
    with orm.db_session:
        return orm.delete(o for o in Order if o.region == "eu" and o.customer_id == 1)


c.eqf("delete count", 2, delete)


def rollback():
    with orm.db_session:
        Customer(region="ap", cid=1, name="Rolled", note=None)
        orm.flush()
        orm.rollback()
    with orm.db_session:
        return orm.count(x for x in Customer if x.region == "ap")


c.eqf("rollback discards", 0, rollback)


def commit():
    with orm.db_session:
        Customer(region="ap", cid=2, name="Kept", note=None)
    with orm.db_session:
        return orm.count(x for x in Customer if x.region == "ap")


c.eqf("commit keeps", 1, commit)
db.disconnect()
c.finish()
