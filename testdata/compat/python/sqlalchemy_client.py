"""SQLAlchemy 1.4 (Debian python3-sqlalchemy) over mysqlclient (python3-mysqldb, the C
client library): declarative models with composite primary keys, create_all, the ORM
session (get by key, join with aggregates, bulk update/delete row counts, rollback,
commit, begin_nested = SAVEPOINT), bound parameters, and reflection of the schema
(MetaData.reflect and the inspector: columns, primary keys, indexes)."""

import decimal
import os
import sys

import sqlalchemy as sa
from sqlalchemy import orm

sys.path.insert(0, os.path.dirname(__file__))
from compat import CUSTOMERS, HOST, ORDERS, PASSWORD, PORT, USER, Checker  # noqa: E402

DB = "compat_sqlalchemy"
c = Checker()
URL = "mysql+mysqldb://%s:%s@%s:%d/%%s?charset=utf8mb4" % (USER, PASSWORD, HOST, PORT)

root = sa.create_engine(URL % "", future=True)
with root.connect() as conn:
    c.run("create database", lambda: (
        conn.exec_driver_sql("DROP DATABASE IF EXISTS " + DB),
        conn.exec_driver_sql("CREATE DATABASE " + DB)))
root.dispose()

engine = sa.create_engine(URL % DB, future=True)
Base = orm.declarative_base()


class Customer(Base):
    __tablename__ = "customers"
    region = sa.Column(sa.String(16), primary_key=True)
    id = sa.Column(sa.Integer, primary_key=True, autoincrement=False)
    name = sa.Column(sa.String(64), nullable=False)
    note = sa.Column(sa.String(255), nullable=True)
    orders = orm.relationship(
        "Order",
        primaryjoin="and_(Customer.region == foreign(Order.region), Customer.id == foreign(Order.customer_id))",
        order_by="Order.order_no", viewonly=True)


class Order(Base):
    __tablename__ = "orders"
    region = sa.Column(sa.String(16), primary_key=True)
    customer_id = sa.Column(sa.Integer, primary_key=True, autoincrement=False)
    order_no = sa.Column(sa.Integer, primary_key=True, autoincrement=False)
    qty = sa.Column(sa.Integer, nullable=False)
    price = sa.Column(sa.Numeric(10, 2), nullable=True)


c.run("create_all (composite primary keys)", lambda: Base.metadata.create_all(engine))
# The index is created on its own (CREATE INDEX after the tables).
index_ok = c.index("create secondary index",
                   lambda: sa.Index("idx_customers_name", Customer.__table__.c.name).create(engine))
D = decimal.Decimal

with orm.Session(engine) as s:
    s.add_all([Customer(region=r, id=i, name=n, note=t) for r, i, n, t in CUSTOMERS])
    s.add_all([Order(region=r, customer_id=ci, order_no=o, qty=q, price=None if p is None else D(p))
               for r, ci, o, q, p in ORDERS])
    c.run("session add_all + commit", s.commit)

with orm.Session(engine) as s:
    cu = s.get(Customer, ("eu", 1))
    c.eq("get by composite key with quotes", ("O'Brien", "it's fragile"), (cu.name, cu.note) if cu else None)
    cu = s.get(Customer, ("eu", 2))
    c.eq("get NULL column", ("Smith", None), (cu.name, cu.note) if cu else None)
    c.eq("get missing key", None, s.get(Customer, ("eu", 99)))
    c.eq("filter by secondary-index column", [("eu", 1)],
         [(x.region, x.id) for x in s.scalars(sa.select(Customer).where(Customer.name == "O'Brien"))])
    cu = s.get(Customer, ("eu", 1))
    c.eq("relationship load", [1, 2], [o.order_no for o in cu.orders] if cu else None)
    q = (sa.select(Customer.name, sa.func.count().label("n"), sa.func.sum(Order.qty).label("qty"),
                   sa.func.sum(Order.price).label("total"))
         .join(Order, sa.and_(Order.region == Customer.region, Order.customer_id == Customer.id))
         .group_by(Customer.region, Customer.id, Customer.name).order_by(Customer.region, Customer.id))
    rows = [tuple(r) for r in s.execute(q)]
    c.eq("join with aggregate", [("O'Brien", 2, D(30), D("3.75")), ("Smith", 1, D(5), None), ("Jones", 1, D(7), D("3.00"))], rows)
    c.eq("SUM results are Decimal, not float", [D, D], [type(rows[0][2]), type(rows[0][3])] if rows else None)
    rows = s.execute(sa.text("SELECT name FROM customers WHERE region = :r AND note = :n"),
                     {"r": "eu", "n": "it's fragile"}).all()
    c.eq("text() with bound parameters", [("O'Brien",)], [tuple(r) for r in rows])

with orm.Session(engine) as s:
    def dml(name, want, stmt):
        try:
            c.eq(name, want, s.execute(stmt).rowcount)
            s.commit()
        except Exception as e:  # noqa: BLE001
            c.fail(name, "%s: %s" % (type(e).__name__, e))
            s.rollback()

    dml("update rowcount", 2, sa.update(Customer).where(Customer.region == "eu").values(note="updated"))
    dml("delete rowcount", 2, sa.delete(Order).where(Order.region == "eu", Order.customer_id == 1))
    s.add(Customer(region="ap", id=1, name="Rolled", note=None))
    s.flush()
    s.rollback()
    c.eq("rollback discards", 0, s.scalar(sa.select(sa.func.count()).select_from(Customer).where(Customer.region == "ap")))
    s.add(Customer(region="ap", id=2, name="Kept", note=None))
    s.commit()
    with engine.connect() as other:
        c.eq("commit visible to another connection", 1,
             other.execute(sa.text("SELECT COUNT(*) FROM customers WHERE region = 'ap'")).scalar())
    s.add(Customer(region="ap", id=3, name="Outer", note=None))
    try:
        nested = s.begin_nested()
        s.add(Customer(region="ap", id=4, name="Inner", note=None))
        s.flush()
        nested.rollback()
        c.ok("begin_nested rollback (SAVEPOINT, ROLLBACK TO SAVEPOINT)")
        c.run("commit after savepoint", s.commit)
    except Exception as e:  # noqa: BLE001
        c.fail("begin_nested rollback (SAVEPOINT, ROLLBACK TO SAVEPOINT)", "%s: %s" % (type(e).__name__, e))
        s.rollback()
    c.eq("savepoint kept only the outer insert", [2, 3],
         list(s.scalars(sa.select(Customer.id).where(Customer.region == "ap").order_by(Customer.id))))

# Reflection.
meta = sa.MetaData()
c.run("MetaData.reflect", lambda: meta.reflect(bind=engine))
c.eq("reflected tables", ["customers", "orders"], sorted(meta.tables))
if "orders" in meta.tables:
    t = meta.tables["orders"]
    c.eq("reflected primary key", ["region", "customer_id", "order_no"], [col.name for col in t.primary_key.columns])
    c.eq("reflected nullable", {"region": False, "customer_id": False, "order_no": False, "qty": False, "price": True},
         {col.name: col.nullable for col in t.columns})
    c.eq("reflected types", ("VARCHAR", 16, "INTEGER", "DECIMAL", 10, 2),
         (type(t.c.region.type).__name__, t.c.region.type.length, type(t.c.qty.type).__name__,
          type(t.c.price.type).__name__, t.c.price.type.precision, t.c.price.type.scale))
    with engine.connect() as conn:
        c.eq("select through the reflected table", [("us", 1, 1, 7, D("3.00"))],
             [tuple(r) for r in conn.execute(sa.select(t).where(t.c.region == "us"))])
insp = sa.inspect(engine)
c.eq("inspector table names", ["customers", "orders"], sorted(insp.get_table_names()))
c.eq("inspector pk constraint", ["region", "id"], insp.get_pk_constraint("customers")["constrained_columns"])
want = [{"name": "idx_customers_name", "column_names": ["name"], "unique": False}] if index_ok else []
c.eq("inspector indexes", want,
     [{"name": i["name"], "column_names": i["column_names"], "unique": i["unique"]} for i in insp.get_indexes("customers")])
c.eq("inspector columns", ["region", "id", "name", "note"], [col["name"] for col in insp.get_columns("customers")])
c.eq("inspector foreign keys (none)", [], insp.get_foreign_keys("orders"))
c.true("inspector schema names", "compat_sqlalchemy" in insp.get_schema_names())
engine.dispose()
c.finish()
