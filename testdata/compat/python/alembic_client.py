"""Alembic (Debian python3-alembic) on SQLAlchemy 1.4 over PyMySQL: a migration
environment made by `alembic init`, three revisions run by `command.upgrade` (create_table
with composite primary keys and a DECIMAL column, create_index, add_column, alter_column
changing a type and nullability = ALTER TABLE ... MODIFY, bulk_insert), the alembic_version
table, `current`, a downgrade and the upgrade again, and autogenerate's compare_metadata
against the models, which must find no difference (it reflects columns, types, primary
keys, indexes and defaults). Then the usual work through the same engine: parameterised
reads (NULL, quotes, missing key), a join with aggregates (Decimal), update/delete row
counts, rollback and commit seen from a second connection, begin_nested (SAVEPOINT)."""

import decimal
import io
import os
import shutil
import sys
import tempfile

import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext

sys.path.insert(0, os.path.dirname(__file__))
from compat import HOST, PASSWORD, PORT, SERVER, USER, Checker, _NOT_SUPPORTED  # noqa: E402

DB = "compat_alembic"
c = Checker()
URL = "mysql+pymysql://%s:%s@%s:%d/%%s?charset=utf8mb4" % (USER, PASSWORD, HOST, PORT)

root = sa.create_engine(URL % "", future=True)
with root.connect() as conn:
    c.run("create database", lambda: (
        conn.exec_driver_sql("DROP DATABASE IF EXISTS " + DB),
        conn.exec_driver_sql("CREATE DATABASE " + DB)))
root.dispose()

work = tempfile.mkdtemp(prefix="compat-alembic-")
os.chdir(work)  # alembic.ini's script_location is relative
cfg = Config(os.path.join(work, "alembic.ini"))
command.init(Config(os.path.join(work, "alembic.ini")), os.path.join(work, "migrations"), template="generic")
cfg = Config(os.path.join(work, "alembic.ini"), stdout=io.StringIO())
cfg.set_main_option("script_location", os.path.join(work, "migrations"))
cfg.set_main_option("sqlalchemy.url", (URL % DB).replace("%", "%%"))
versions = os.path.join(work, "migrations", "versions")

REVS = {
    "0001": ("None", """
    op.create_table("customers",
        sa.Column("region", sa.String(16), nullable=False),
        sa.Column("id", sa.Integer, nullable=False, autoincrement=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("note", sa.String(255), nullable=True),
        sa.PrimaryKeyConstraint("region", "id"))
    op.create_table("orders",
        sa.Column("region", sa.String(16), nullable=False),
        sa.Column("customer_id", sa.Integer, nullable=False, autoincrement=False),
        sa.Column("order_no", sa.Integer, nullable=False, autoincrement=False),
        sa.Column("qty", sa.Integer, nullable=False),
        sa.Column("price", sa.Numeric(10, 2), nullable=True),
        sa.PrimaryKeyConstraint("region", "customer_id", "order_no"))
""", """
    op.drop_table("orders")
    op.drop_table("customers")
"""),
    "0002": ("'0001'", """
    op.create_index("idx_customers_name", "customers", ["name"])
    op.add_column("customers", sa.Column("email", sa.String(64), nullable=True))
    customers = sa.table("customers", sa.column("region"), sa.column("id"), sa.column("name"), sa.column("note"))
    op.bulk_insert(customers, [
        {"region": "eu", "id": 1, "name": "O'Brien", "note": "it's fragile"},
        {"region": "eu", "id": 2, "name": "Smith", "note": None},
        {"region": "us", "id": 1, "name": "Jones", "note": "plain"},
    ])
    orders = sa.table("orders", sa.column("region"), sa.column("customer_id"), sa.column("order_no"),
                      sa.column("qty"), sa.column("price"))
    op.bulk_insert(orders, [
        {"region": "eu", "customer_id": 1, "order_no": 1, "qty": 10, "price": decimal.Decimal("1.50")},
        {"region": "eu", "customer_id": 1, "order_no": 2, "qty": 20, "price": decimal.Decimal("2.25")},
        {"region": "eu", "customer_id": 2, "order_no": 1, "qty": 5, "price": None},
        {"region": "us", "customer_id": 1, "order_no": 1, "qty": 7, "price": decimal.Decimal("3.00")},
    ])
""", """
    op.execute("DELETE FROM orders")
    op.execute("DELETE FROM customers")
    op.drop_column("customers", "email")
    op.drop_index("idx_customers_name", table_name="customers")
"""),
    "0003": ("'0002'", """
    op.execute("UPDATE customers SET email = '' WHERE email IS NULL")
    op.alter_column("customers", "email", existing_type=sa.String(64), type_=sa.String(128),
                    existing_nullable=True, nullable=False, server_default="")
""", """
    op.alter_column("customers", "email", existing_type=sa.String(128), type_=sa.String(64),
                    nullable=True, server_default=None)
"""),
}
for rev, (down, up, downgrade) in REVS.items():
    with open(os.path.join(versions, rev + "_compat.py"), "w") as f:
        f.write('"""compat %s"""\nimport decimal\n\nimport sqlalchemy as sa\nfrom alembic import op\n\n'
                'revision = %r\ndown_revision = %s\nbranch_labels = None\ndepends_on = None\n\n\n'
                'def upgrade():%s\n\ndef downgrade():%s' % (rev, rev, down, up, downgrade))

c.run("upgrade to 0001 (composite primary keys)", lambda: command.upgrade(cfg, "0001"))
try:
    command.upgrade(cfg, "0002")
    c.ok("upgrade to 0002 (create_index, add_column, bulk_insert)")
except Exception as e:  # noqa: BLE001
    if SERVER == "sqlgw" and _NOT_SUPPORTED.search(str(e)):
        c.xfailed += 1
        print("XFAIL upgrade to 0002 (secondary indexes not supported yet): %s" % e, flush=True)
    else:
        c.fail("upgrade to 0002 (create_index, add_column, bulk_insert)", "%s: %s" % (type(e).__name__, e))
c.run("upgrade to head (alter_column widens, NOT NULL, default = MODIFY)", lambda: command.upgrade(cfg, "head"))

engine = sa.create_engine(URL % DB, future=True)


def version():
    with engine.connect() as conn:
        return [r[0] for r in conn.exec_driver_sql("SELECT version_num FROM alembic_version")]


c.eqf("alembic_version is head", ["0003"], version)
c.run("downgrade -1 (alter_column narrows VARCHAR(128) to VARCHAR(64))", lambda: command.downgrade(cfg, "-1"))
c.eqf("alembic_version after downgrade", ["0002"], version)
c.run("upgrade to head again", lambda: command.upgrade(cfg, "head"))
c.eqf("alembic_version is head again", ["0003"], version)

meta = sa.MetaData()
sa.Table("customers", meta,
         sa.Column("region", sa.String(16), primary_key=True),
         sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
         sa.Column("name", sa.String(64), nullable=False),
         sa.Column("note", sa.String(255), nullable=True),
         sa.Column("email", sa.String(128), nullable=False, server_default=""),
         sa.Index("idx_customers_name", "name"))
sa.Table("orders", meta,
         sa.Column("region", sa.String(16), primary_key=True),
         sa.Column("customer_id", sa.Integer, primary_key=True, autoincrement=False),
         sa.Column("order_no", sa.Integer, primary_key=True, autoincrement=False),
         sa.Column("qty", sa.Integer, nullable=False),
         sa.Column("price", sa.Numeric(10, 2), nullable=True))


def diff():
    with engine.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"compare_type": True, "compare_server_default": True})
        return [str(d) for d in compare_metadata(ctx, meta)]


c.eqf("autogenerate finds no difference from the models", [], diff)

with engine.connect() as conn:
    q = sa.text("SELECT name, note FROM customers WHERE region = :r AND id = :i")
    c.eqf("read by key with quotes", [("O'Brien", "it's fragile")], lambda: [tuple(r) for r in conn.execute(q, {"r": "eu", "i": 1})])
    c.eqf("read NULL by key", [("Smith", None)], lambda: [tuple(r) for r in conn.execute(q, {"r": "eu", "i": 2})])
    c.eqf("read missing key", [], lambda: [tuple(r) for r in conn.execute(q, {"r": "eu", "i": 99})])
    c.eqf("read by the indexed column", [("eu", 1)], lambda: [tuple(r) for r in conn.execute(
        sa.text("SELECT region, id FROM customers WHERE name = :n"), {"n": "O'Brien"})])
    D = decimal.Decimal
    c.eqf("join with aggregate (Decimal sums)", [("O'Brien", 2, D("30"), D("3.75")), ("Smith", 1, D("5"), None), ("Jones", 1, D("7"), D("3.00"))],
          lambda: [tuple(r) for r in conn.execute(sa.text(
              """SELECT c.name, COUNT(*), SUM(o.qty), SUM(o.price) FROM customers c
                 JOIN orders o ON o.region = c.region AND o.customer_id = c.id
                 GROUP BY c.region, c.id, c.name ORDER BY c.region, c.id"""))])
    c.eqf("update rowcount", 2, lambda: conn.execute(sa.text("UPDATE customers SET note = 'updated' WHERE region = :r"), {"r": "eu"}).rowcount)
    c.eqf("delete rowcount", 2, lambda: conn.execute(sa.text("DELETE FROM orders WHERE region = 'eu' AND customer_id = 1")).rowcount)
    conn.commit()


def count_ap():
    with engine.connect() as other:
        return other.exec_driver_sql("SELECT COUNT(*) FROM customers WHERE region = 'ap'").scalar()


with engine.connect() as conn:
    conn.exec_driver_sql("INSERT INTO customers (region, id, name) VALUES ('ap', 1, 'Rolled')")
    c.eq("uncommitted insert invisible to another connection", 0, count_ap())
    conn.rollback()
    c.eq("rollback discards the insert", 0, count_ap())
    conn.execute(sa.text("INSERT INTO customers (region, id, name, note) VALUES (:r, :i, :n, :t)"),
                 {"r": "ap", "i": 2, "n": "Kept", "t": "it's kept"})
    conn.commit()
    c.eq("commit keeps the insert", 1, count_ap())
    conn.exec_driver_sql("INSERT INTO customers (region, id, name) VALUES ('ap', 3, 'Before')")
    nested = conn.begin_nested()
    conn.exec_driver_sql("INSERT INTO customers (region, id, name) VALUES ('ap', 4, 'After')")
    c.run("rollback to savepoint (begin_nested)", nested.rollback)
    conn.commit()
    c.eqf("savepoint rolled back only the later insert", [2, 3], lambda: [r[0] for r in conn.exec_driver_sql(
        "SELECT id FROM customers WHERE region = 'ap' ORDER BY id")])


def not_null_over_nulls():
    """A migration making a column NOT NULL while rows still hold NULL must fail (strict mode)."""
    with engine.connect() as conn:
        try:
            conn.exec_driver_sql("ALTER TABLE orders MODIFY price DECIMAL(10,2) NOT NULL")
            err = "no error"
        except sa.exc.DBAPIError as e:
            err = e.orig.args[0] if e.orig.args else str(e)
        nulls = conn.exec_driver_sql("SELECT COUNT(*) FROM orders WHERE price IS NULL").scalar()
        nullable = sa.inspect(conn).get_columns("orders")[4]["nullable"]
        return err in (1265, 1138), nulls, nullable


c.eqf("MODIFY ... NOT NULL over a NULL value is refused (1265), the column stays nullable", (True, 1, True), not_null_over_nulls)
engine.dispose()
shutil.rmtree(work, ignore_errors=True)
c.finish()
