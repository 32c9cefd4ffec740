"""SQLModel (Debian python3-sqlmodel, on SQLAlchemy 1.4 over PyMySQL): models with a
composite primary key, create_all, Session.exec(select(...)), get by composite key,
aggregates, updates and deletes, rollback and commit."""

import decimal
import os
import sys
from typing import Optional

sys.path.insert(0, os.path.dirname(__file__))
from compat import CUSTOMERS, HOST, ORDERS, PASSWORD, PORT, USER, Checker  # noqa: E402

import sqlalchemy as sa  # noqa: E402
from sqlmodel import Field, Session, SQLModel, create_engine, func, select  # noqa: E402

DB = "compat_sqlmodel"
c = Checker()
URL = "mysql+pymysql://%s:%s@%s:%d/%%s?charset=utf8mb4" % (USER, PASSWORD, HOST, PORT)
root = create_engine(URL % "")
with root.connect() as conn:
    c.run("create database", lambda: (conn.exec_driver_sql("DROP DATABASE IF EXISTS " + DB),
                                      conn.exec_driver_sql("CREATE DATABASE " + DB)))
root.dispose()
engine = create_engine(URL % DB)


class Customer(SQLModel, table=True):
    __tablename__ = "customers"
    region: str = Field(primary_key=True, max_length=16, sa_column_kwargs={"autoincrement": False})
    id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    name: str = Field(max_length=64)
    note: Optional[str] = Field(default=None, max_length=255)


class Order(SQLModel, table=True):
    __tablename__ = "orders"
    region: str = Field(primary_key=True, max_length=16)
    customer_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    order_no: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    qty: int
    price: Optional[decimal.Decimal] = Field(default=None, sa_column=sa.Column(sa.Numeric(10, 2), nullable=True))


c.run("create_all (composite primary keys)", lambda: SQLModel.metadata.create_all(engine))
c.index("create secondary index", lambda: sa.Index("idx_customers_name", Customer.__table__.c.name).create(engine))
D = decimal.Decimal


def insert():
    with Session(engine) as s:
        for r, i, n, t in CUSTOMERS:
            s.add(Customer(region=r, id=i, name=n, note=t))
        for r, ci, o, q, p in ORDERS:
            s.add(Order(region=r, customer_id=ci, order_no=o, qty=q, price=None if p is None else D(p)))
        s.commit()


c.run("add and commit", insert)
with Session(engine) as s:
    c.eqf("get by composite key with quotes", ("O'Brien", "it's fragile"), lambda: (lambda x: (x.name, x.note))(s.get(Customer, ("eu", 1))))
    c.eqf("exec(select().where())", [("eu", 1)], lambda: [(x.region, x.id) for x in s.exec(select(Customer).where(Customer.name == "O'Brien"))])
    c.eqf("join with aggregate", [("O'Brien", 2, D(30)), ("Smith", 1, D(5)), ("Jones", 1, D(7))], lambda: [tuple(r) for r in s.exec(
        select(Customer.name, func.count(), func.sum(Order.qty))
        .join(Order, sa.and_(Order.region == Customer.region, Order.customer_id == Customer.id))
        .group_by(Customer.region, Customer.id, Customer.name).order_by(Customer.region, Customer.id))])


def update():
    with Session(engine) as s:
        x = s.get(Customer, ("eu", 2))
        x.note = "updated"
        s.add(x)
        s.commit()
    with Session(engine) as s:
        return s.get(Customer, ("eu", 2)).note


c.eqf("update through the model", "updated", update)


def delete():
    with Session(engine) as s:
        n = s.exec(sa.delete(Order).where(Order.region == "eu", Order.customer_id == 1)).rowcount
        s.commit()
        return n


c.eqf("delete rowcount", 2, delete)


def rollback():
    with Session(engine) as s:
        s.add(Customer(region="ap", id=1, name="Rolled"))
        s.flush()
        s.rollback()
        return len(s.exec(select(Customer).where(Customer.region == "ap")).all())


c.eqf("rollback discards", 0, rollback)
engine.dispose()
c.finish()
