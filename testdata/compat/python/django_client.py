"""Django 3.2 (Debian python3-django) over mysqlclient: settings and a copy of the app
in a temporary directory, migrate (then migrate again: nothing to do), makemigrations
--check, the ORM (create, get, annotate with Count/Sum over a join, update/delete
counts, F expressions), transaction.atomic() with rollback, commit and a nested
savepoint, raw cursor parameters, a composite-primary-key table, and inspectdb."""

import decimal
import io
import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
from compat import CUSTOMERS, HOST, ORDERS, PASSWORD, PORT, USER, Checker  # noqa: E402

import MySQLdb  # noqa: E402

DB = "compat_django"
c = Checker()

admin = MySQLdb.connect(host=HOST, port=PORT, user=USER, passwd=PASSWORD)
cur = admin.cursor()
c.run("create database", lambda: (cur.execute("DROP DATABASE IF EXISTS " + DB),
                                  cur.execute("CREATE DATABASE " + DB + " CHARACTER SET utf8mb4")))
admin.close()

tmp = tempfile.mkdtemp(prefix="compat-django-")
shutil.copytree(os.path.join(here, "compatapp"), os.path.join(tmp, "compatapp"),
                ignore=shutil.ignore_patterns("__pycache__"))
with open(os.path.join(tmp, "compat_settings.py"), "w") as f:
    f.write("""
SECRET_KEY = "compat-not-secret"
INSTALLED_APPS = ["compatapp"]
USE_TZ = True
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
DATABASES = {"default": {
    "ENGINE": "django.db.backends.mysql", "NAME": %r, "HOST": %r, "PORT": %d,
    "USER": %r, "PASSWORD": %r, "OPTIONS": {"charset": "utf8mb4"},
}}
""" % (DB, HOST, PORT, USER, PASSWORD))
sys.path.insert(0, tmp)
os.environ["DJANGO_SETTINGS_MODULE"] = "compat_settings"

import django  # noqa: E402

django.setup()
from django.core.management import call_command  # noqa: E402
from django.db import IntegrityError, connection, transaction  # noqa: E402
from django.db.models import Count, F, Sum  # noqa: E402

from compatapp.models import Customer, Line, Order  # noqa: E402


def quiet(*args, **kw):
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=out, **kw)
    return out.getvalue()


c.run("migrate 0002 (tables, composite-key table, foreign key)", lambda: quiet("migrate", "compatapp", "0002", verbosity=1))
index_ok = c.index("migrate 0003 (secondary index)", lambda: quiet("migrate", "compatapp", "0003"))
out = c.run("migrate again", lambda: quiet("migrate", verbosity=1)) or ""
if index_ok:
    c.true("second migrate has nothing to apply", "No migrations to apply" in out, out)
c.run("makemigrations --check (models match the migrations)",
      lambda: quiet("makemigrations", "compatapp", "--check", "--dry-run"))
out = c.run("showmigrations", lambda: quiet("showmigrations", "compatapp")) or ""
c.true("0001 and 0002 recorded as applied", "[X] 0001_initial" in out and "[X] 0002_order_customer" in out, out)

D = decimal.Decimal
ids = {}


def create_rows():
    for r, i, n, t in CUSTOMERS:
        ids[(r, i)] = Customer.objects.create(region=r, code=i, name=n, note=t).pk
    for r, ci, o, q, p in ORDERS:
        Order.objects.create(customer_id=ids[(r, ci)], qty=q, price=None if p is None else D(p))
        Line.objects.create(region=r, customer_id=ci, order_no=o, qty=q, price=None if p is None else D(p))


c.run("create rows", create_rows)
c.eq("auto-increment ids", 3, len(set(ids.values())))
cu = Customer.objects.get(region="eu", code=1)
c.eq("get by key with quotes", ("O'Brien", "it's fragile"), (cu.name, cu.note))
c.eq("get by pk", "Smith", Customer.objects.get(pk=ids[("eu", 2)]).name)
c.eq("NULL column", [("Smith",)], list(Customer.objects.filter(note__isnull=True).values_list("name")))
c.eq("filter by secondary-index column", [("eu", 1)], list(Customer.objects.filter(name="O'Brien").values_list("region", "code")))
rows = list(Customer.objects.annotate(n=Count("order"), qty=Sum("order__qty"), total=Sum("order__price"))
            .order_by("region", "code").values_list("name", "n", "qty", "total"))
c.eq("annotate Count/Sum over the foreign key", [("O'Brien", 2, 30, D("3.75")), ("Smith", 1, 5, None), ("Jones", 1, 7, D("3.00"))], rows)
c.eq("select_related join", ["O'Brien", "O'Brien", "Smith", "Jones"],
     [o.customer.name for o in Order.objects.select_related("customer").order_by("customer__region", "customer__code", "id")])
c.eq("aggregate on the composite-key table", {"qty": 30, "n": 2},
     Line.objects.filter(region="eu", customer_id=1).aggregate(qty=Sum("qty"), n=Count("order_no")))
c.eqf("update count on the composite-key table", 2,
      lambda: Line.objects.filter(region="eu", customer_id=1).update(qty=F("qty") + 1))
c.eqf("updated values", [11, 21], lambda: list(Line.objects.filter(region="eu", customer_id=1).order_by("order_no").values_list("qty", flat=True)))
c.eqf("update count", 2, lambda: Customer.objects.filter(region="eu").update(note="updated"))
c.eqf("delete count (cascade)", (3, {"compatapp.Order": 2, "compatapp.Customer": 1}),
      lambda: Customer.objects.filter(region="eu", code=1).delete())
c.eq("rows left", (2, 2), (Customer.objects.count(), Order.objects.count()))


class Boom(Exception):
    pass


try:
    with transaction.atomic():
        Customer.objects.create(region="ap", code=1, name="Rolled", note=None)
        raise Boom()
except Boom:
    pass
c.eq("atomic() rolled back on exception", 0, Customer.objects.filter(region="ap").count())
try:
    with transaction.atomic():
        Customer.objects.create(region="ap", code=2, name="Outer", note=None)
        try:
            with transaction.atomic():  # a SAVEPOINT
                Customer.objects.create(region="ap", code=3, name="Inner", note=None)
                raise Boom()
        except Boom:
            pass
    c.ok("nested atomic() (savepoint)")
except Exception as e:  # noqa: BLE001
    c.fail("nested atomic() (savepoint)", "%s: %s" % (type(e).__name__, e))
c.eq("atomic() committed the outer, not the inner", [2], list(Customer.objects.filter(region="ap").values_list("code", flat=True)))
try:
    with transaction.atomic():
        Order.objects.create(customer_id=999999, qty=1)
    c.fail("foreign key violation is IntegrityError", "no error")
except IntegrityError:
    c.ok("foreign key violation is IntegrityError")
except Exception as e:  # noqa: BLE001
    c.fail("foreign key violation is IntegrityError", "%s: %s" % (type(e).__name__, e))



def for_update():
    with transaction.atomic():
        x = Customer.objects.select_for_update().get(region="us", code=1)
        x.note = "locked"
        x.save(update_fields=["note"])
    return Customer.objects.get(region="us", code=1).note


c.eqf("select_for_update() in atomic()", "locked", for_update)
c.eqf("update_or_create (update)", ("Jones", False),
      lambda: (lambda r: (r[0].name, r[1]))(Customer.objects.update_or_create(region="us", code=1, defaults={"note": "upd"})))
c.eqf("get_or_create (create)", ("New", True),
      lambda: (lambda r: (r[0].name, r[1]))(Customer.objects.get_or_create(region="zz", code=9, defaults={"name": "New"})))
c.eqf("bulk_create", 3, lambda: len(Customer.objects.bulk_create(
    [Customer(region="bk", code=i, name="bulk %d" % i, note=None) for i in range(3)])))
c.eqf("exists / count / distinct", (True, 3, 1),
      lambda: (Customer.objects.filter(region="bk").exists(), Customer.objects.filter(region="bk").count(),
               Customer.objects.filter(region="bk").values("region").distinct().count()))
c.eqf("slicing (LIMIT/OFFSET) and ordering", ["bulk 1", "bulk 2"],
      lambda: list(Customer.objects.filter(region="bk").order_by("code").values_list("name", flat=True)[1:3]))
with connection.cursor() as cur:
    cur.execute("SELECT name FROM compatapp_customer WHERE note = %s OR name = %s ORDER BY name", ["updated", "Jones"])
    c.eq("raw cursor with parameters", [("Jones",), ("Smith",)], list(cur.fetchall()))
out = c.run("inspectdb", lambda: quiet("inspectdb", "order_lines", "compatapp_customer")) or ""
c.true("inspectdb describes the tables", "class OrderLines(models.Model)" in out and "max_length=16" in out
       and "class CompatappCustomer(models.Model)" in out, out[:2000])
shutil.rmtree(tmp, ignore_errors=True)
c.finish()
