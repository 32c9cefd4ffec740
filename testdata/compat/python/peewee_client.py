"""peewee (Debian python3-peewee, over PyMySQL): models with CompositeKey, create_tables,
a separate add_index, get by composite key, joins with fn.COUNT/fn.SUM, update/delete
counts, atomic() with rollback, commit and a nested savepoint, and introspection
(get_tables, get_columns, get_primary_keys, get_indexes)."""

import decimal
import os
import sys

import peewee as pw

sys.path.insert(0, os.path.dirname(__file__))
from compat import CUSTOMERS, HOST, ORDERS, PASSWORD, PORT, USER, Checker  # noqa: E402

import pymysql  # noqa: E402

DB = "compat_peewee"
c = Checker()
admin = pymysql.connect(host=HOST, port=PORT, user=USER, password=PASSWORD, autocommit=True)
with admin.cursor() as cur:
    c.run("create database", lambda: (cur.execute("DROP DATABASE IF EXISTS " + DB), cur.execute("CREATE DATABASE " + DB)))
admin.close()

db = pw.MySQLDatabase(DB, host=HOST, port=PORT, user=USER, password=PASSWORD, charset="utf8mb4")


class Base(pw.Model):
    class Meta:
        database = db


class Customer(Base):
    region = pw.CharField(max_length=16)
    id = pw.IntegerField()
    name = pw.CharField(max_length=64)
    note = pw.CharField(max_length=255, null=True)

    class Meta:
        table_name = "customers"
        primary_key = pw.CompositeKey("region", "id")


class Order(Base):
    region = pw.CharField(max_length=16)
    customer_id = pw.IntegerField()
    order_no = pw.IntegerField()
    qty = pw.IntegerField()
    price = pw.DecimalField(max_digits=10, decimal_places=2, null=True)

    class Meta:
        table_name = "orders"
        primary_key = pw.CompositeKey("region", "customer_id", "order_no")


D = decimal.Decimal
c.run("create_tables (composite primary keys)", lambda: db.create_tables([Customer, Order]))
index_ok = c.index("add_index (separate CREATE INDEX)",
                   lambda: db.execute(Customer.index(Customer.name, name="idx_customers_name")))


def insert():
    with db.atomic():
        Customer.insert_many(CUSTOMERS, fields=[Customer.region, Customer.id, Customer.name, Customer.note]).execute()
        Order.insert_many([(r, ci, o, q, None if p is None else D(p)) for r, ci, o, q, p in ORDERS],
                          fields=[Order.region, Order.customer_id, Order.order_no, Order.qty, Order.price]).execute()


c.run("insert_many", insert)
c.eqf("get by composite key with quotes", ("O'Brien", "it's fragile"),
      lambda: (lambda x: (x.name, x.note))(Customer.get((Customer.region == "eu") & (Customer.id == 1))))
c.eqf("get_by_id with a tuple", "Smith", lambda: Customer.get_by_id(("eu", 2)).name)
c.eqf("NULL filter", [2], lambda: [x.id for x in Customer.select().where(Customer.note.is_null())])
c.eqf("filter by secondary-index column", [("eu", 1)], lambda: [(x.region, x.id) for x in Customer.select().where(Customer.name == "O'Brien")])
q = (Customer.select(Customer.name, pw.fn.COUNT(Order.order_no).alias("n"), pw.fn.SUM(Order.qty).alias("qty"),
                     pw.fn.SUM(Order.price).alias("total"))
     .join(Order, on=((Order.region == Customer.region) & (Order.customer_id == Customer.id)))
     .group_by(Customer.region, Customer.id, Customer.name).order_by(Customer.region, Customer.id).tuples())
c.eqf("join with aggregate", [("O'Brien", 2, D(30), D("3.75")), ("Smith", 1, D(5), None), ("Jones", 1, D(7), D("3.00"))], lambda: list(q))
c.eqf("update count", 2, lambda: Customer.update(note="updated").where(Customer.region == "eu").execute())
c.eqf("delete count", 2, lambda: Order.delete().where((Order.region == "eu") & (Order.customer_id == 1)).execute())


def count_ap():
    return Customer.select().where(Customer.region == "ap").count()


class Boom(Exception):
    pass


def rolled_back():
    try:
        with db.atomic():
            Customer.create(region="ap", id=1, name="Rolled", note=None)
            raise Boom()
    except Boom:
        pass
    return count_ap()


c.eqf("atomic() rolled back", 0, rolled_back)


def nested():
    with db.atomic():
        Customer.create(region="ap", id=2, name="Outer", note=None)
        try:
            with db.atomic():  # a savepoint
                Customer.create(region="ap", id=3, name="Inner", note=None)
                raise Boom()
        except Boom:
            pass
    return [x.id for x in Customer.select().where(Customer.region == "ap")]


c.eqf("atomic() with a nested savepoint", [2], nested)
c.eqf("execute_sql with parameters", [("Jones",)],
      lambda: list(db.execute_sql("SELECT name FROM customers WHERE region = %s AND note = %s", ("us", "plain")).fetchall()))
c.eqf("get_tables", ["customers", "orders"], lambda: sorted(db.get_tables()))
c.eqf("get_primary_keys", ["region", "customer_id", "order_no"], lambda: db.get_primary_keys("orders"))
c.eqf("get_columns", [("region", False, True), ("customer_id", False, True), ("order_no", False, True), ("qty", False, False), ("price", True, False)],
      lambda: [(col.name, col.null, col.primary_key) for col in db.get_columns("orders")])
c.eqf("get_indexes", [("idx_customers_name", ["name"], False)] if index_ok else [],
      lambda: [(i.name, i.columns, i.unique) for i in db.get_indexes("customers") if i.name != "PRIMARY"])
db.close()
c.finish()
