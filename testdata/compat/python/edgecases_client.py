"""Edge cases every driver meets sooner or later, through PyMySQL: upserts (INSERT ... ON
DUPLICATE KEY UPDATE with MySQL's 1/2/0 affected-row convention, INSERT IGNORE, REPLACE),
auto-increment ids (cursor.lastrowid, LAST_INSERT_ID()), large values (a 300 KB TEXT and
a 3 MB LONGBLOB, larger than one stored entity, and a 5 MiB LONGTEXT, larger than one
store batch), a table wider than the store's property
limit (300 columns), multi-statement queries (CLIENT_MULTI_STATEMENTS), and LOAD DATA
LOCAL INFILE."""

import os
import random
import sys
import tempfile

import pymysql
from pymysql.constants import CLIENT

sys.path.insert(0, os.path.dirname(__file__))
from compat import HOST, PASSWORD, PORT, USER, Checker  # noqa: E402

DB = "compat_edge"
c = Checker()


def connect(**kw):
    return pymysql.connect(host=HOST, port=PORT, user=USER, password=PASSWORD, charset="utf8mb4",
                           autocommit=True, **kw)


conn = connect()
cur = conn.cursor()
c.run("create database", lambda: (cur.execute("DROP DATABASE IF EXISTS " + DB), cur.execute("CREATE DATABASE " + DB)))
cur.execute("USE " + DB)
c.run("create tables (composite primary keys)", lambda: (
    cur.execute("""CREATE TABLE stock (region VARCHAR(16) NOT NULL, sku VARCHAR(16) NOT NULL,
        qty INT NOT NULL, note VARCHAR(64) NULL, PRIMARY KEY (region, sku))"""),
    cur.execute("""CREATE TABLE events (id BIGINT NOT NULL AUTO_INCREMENT, kind VARCHAR(16) NOT NULL,
        PRIMARY KEY (id))"""),
    cur.execute("""CREATE TABLE blobs (k INT NOT NULL, part VARCHAR(8) NOT NULL, txt MEDIUMTEXT NULL,
        bin LONGBLOB NULL, PRIMARY KEY (k, part))""")))

# Upserts: MySQL reports 1 for an insert, 2 for an update, 0 when nothing changed.
up = "INSERT INTO stock VALUES (%s, %s, %s, %s) ON DUPLICATE KEY UPDATE qty = VALUES(qty), note = VALUES(note)"
c.eqf("upsert inserts (1 row affected)", 1, lambda: cur.execute(up, ("eu", "a-1", 5, "O'Brien's")))
c.eqf("upsert updates (2 rows affected)", 2, lambda: cur.execute(up, ("eu", "a-1", 7, "it's fragile")))
c.eqf("upsert with the same values (0 rows affected)", 0, lambda: cur.execute(up, ("eu", "a-1", 7, "it's fragile")))
c.eqf("upsert result", [("eu", "a-1", 7, "it's fragile")], lambda: (cur.execute("SELECT * FROM stock"), list(cur.fetchall()))[1])
c.eqf("INSERT IGNORE of a duplicate (0 rows, a warning)", (0, 1),
      lambda: (cur.execute("INSERT IGNORE INTO stock VALUES ('eu', 'a-1', 1, NULL)"), conn.show_warnings() and len(conn.show_warnings()))[0:1] + (len(conn.show_warnings()),))
c.eqf("REPLACE of an existing row (2 rows affected)", 2, lambda: cur.execute("REPLACE INTO stock VALUES ('eu', 'a-1', 9, NULL)"))
c.eqf("multi-row upsert (two inserts, one update)", 4, lambda: cur.execute(
    "INSERT INTO stock VALUES ('us', 'b', 1, NULL), ('us', 'c', 2, NULL), ('eu', 'a-1', 9, NULL) "
    "ON DUPLICATE KEY UPDATE qty = qty + VALUES(qty)"))
c.eqf("multi-row upsert result", [("eu", "a-1", 18), ("us", "b", 1), ("us", "c", 2)],
      lambda: (cur.execute("SELECT region, sku, qty FROM stock ORDER BY region, sku"), list(cur.fetchall()))[1])

# Auto-increment.
c.eqf("lastrowid after insert", 1, lambda: (cur.execute("INSERT INTO events (kind) VALUES ('a')"), cur.lastrowid)[1])
c.eqf("multi-row insert: LAST_INSERT_ID() is the first id", (2, 2),
      lambda: (cur.execute("INSERT INTO events (kind) VALUES ('b'), ('c')"), cur.lastrowid,
               (cur.execute("SELECT LAST_INSERT_ID()"), cur.fetchone()[0])[1])[1:])

# Values larger than one stored entity (1 MiB) and one property (64 KiB).
rnd = random.Random(7)
text = "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz O'Brien\n\\é€") for _ in range(300_000))
blob = bytes(rnd.getrandbits(8) for _ in range(3 * 1024 * 1024))
c.eqf("insert a 300 KB TEXT and a 3 MB LONGBLOB", 1, lambda: cur.execute("INSERT INTO blobs VALUES (1, 'x', %s, %s)", (text, blob)))
c.eqf("read them back unchanged", (len(text), True, len(blob), True),
      lambda: (lambda r: (len(r[0]), r[0] == text, len(r[1]), r[1] == blob))(
          (cur.execute("SELECT txt, bin FROM blobs WHERE k = 1 AND part = 'x'"), cur.fetchone())[1]))
c.eqf("LENGTH() of them", (len(text.encode("utf-8")), len(blob)),
      lambda: (cur.execute("SELECT LENGTH(txt), LENGTH(bin) FROM blobs WHERE k = 1"), tuple(cur.fetchone()))[1])
c.eqf("update the large value", 1, lambda: cur.execute("UPDATE blobs SET bin = %s WHERE k = 1 AND part = 'x'", (blob[::-1],)))
c.eqf("read the updated value", True, lambda: (cur.execute("SELECT bin FROM blobs WHERE k = 1"), cur.fetchone()[0] == blob[::-1])[1])

# A value larger than one store batch (4 MiB): the store's limits are the gateway's
# problem, not the user's.
huge = "".join(rnd.choice("abcdefghij O'Brien\n") for _ in range(5 * 1024 * 1024))
c.eqf("insert a 5 MiB LONGTEXT", 1, lambda: cur.execute("INSERT INTO blobs VALUES (2, 'huge', %s, NULL)", (huge,)))
c.eqf("read the 5 MiB LONGTEXT back", (len(huge), True),
      lambda: (lambda r: (len(r[0]), r[0] == huge))((cur.execute("SELECT txt FROM blobs WHERE k = 2 AND part = 'huge'"), cur.fetchone())[1]))

# A row wider than the store's 252 properties.
cols = ["c%03d" % i for i in range(300)]
c.run("create a 300-column table", lambda: cur.execute(
    "CREATE TABLE wide (k INT NOT NULL PRIMARY KEY, %s)" % ", ".join("%s INT NULL" % x for x in cols)))
c.eqf("insert a 300-column row", 1, lambda: cur.execute(
    "INSERT INTO wide VALUES (%s)" % ", ".join(["%s"] * 301), [1] + list(range(300))))
c.eqf("read it back", [1] + list(range(300)), lambda: (cur.execute("SELECT * FROM wide WHERE k = 1"), list(cur.fetchone()))[1])
c.eqf("update a column past the 252nd", (1, 9999), lambda: (cur.execute("UPDATE wide SET c299 = 9999 WHERE k = 1"),
                                                          (cur.execute("SELECT c299 FROM wide WHERE k = 1"), cur.fetchone()[0])[1]))

# Multi-statement queries.
multi = connect(database=DB, client_flag=CLIENT.MULTI_STATEMENTS)
mc = multi.cursor()


def results():
    mc.execute("SELECT COUNT(*) FROM stock; UPDATE stock SET qty = qty WHERE region = 'zz'; SELECT 'two'")
    out = [mc.fetchall()]
    while mc.nextset():
        out.append(mc.fetchall() if mc.description else mc.rowcount)
    return out


c.eqf("multi-statement query returns every result", [((3,),), 0, (("two",),)], results)
multi.close()

# Concurrent writers: two connections increment one row in overlapping transactions.
# No increment may be lost; a conflict may surface only as the errors clients and ORMs
# retry (1213 deadlock, 1205 lock wait timeout, SQLSTATE 40001).
import threading  # noqa: E402
import time  # noqa: E402

cur.execute("CREATE TABLE counter (k INT NOT NULL PRIMARY KEY, n INT NOT NULL)")
cur.execute("INSERT INTO counter VALUES (1, 0)")
errors, retries = [], []


def worker():
    w = connect(database=DB)
    wc = w.cursor()
    for _ in range(25):
        for _attempt in range(50):
            try:
                w.begin()
                wc.execute("UPDATE counter SET n = n + 1 WHERE k = 1")
                time.sleep(0.002)
                w.commit()
                break
            except pymysql.err.MySQLError as e:
                code = e.args[0] if e.args else None
                try:
                    w.rollback()
                except pymysql.err.MySQLError:
                    pass
                if code in (1213, 1205):
                    retries.append(code)
                    continue
                errors.append("%s" % (e,))
                break
    w.close()


threads = [threading.Thread(target=worker) for _ in range(2)]
for t in threads:
    t.start()
for t in threads:
    t.join()
c.eq("concurrent increments: only retryable errors (1213/1205)", [], errors[:3])
c.eqf("concurrent increments: none lost", 50, lambda: (cur.execute("SELECT n FROM counter WHERE k = 1"), cur.fetchone()[0])[1])
print("# concurrent increments: %d retries" % len(retries))

# LOAD DATA LOCAL INFILE (what mysqlimport and ETL tools use).
with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
    f.write("ap,l-1,10,\"it's, quoted\"\nap,l-2,20,\\N\n")
    path = f.name
local = connect(database=DB, local_infile=True)
lc = local.cursor()
# MySQL 8 ships with local_infile OFF (MariaDB: ON); its users turn it on like this.
c.run("SET GLOBAL local_infile = 1", lambda: lc.execute("SET GLOBAL local_infile = 1"))
c.eqf("LOAD DATA LOCAL INFILE", 2, lambda: lc.execute(
    "LOAD DATA LOCAL INFILE %s INTO TABLE stock FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '\"' LINES TERMINATED BY '\\n'",
    (path,)))
c.eqf("loaded rows", [("l-1", 10, "it's, quoted"), ("l-2", 20, None)],
      lambda: (lc.execute("SELECT sku, qty, note FROM stock WHERE region = 'ap' ORDER BY sku"), list(lc.fetchall()))[1])
local.close()
os.unlink(path)
conn.close()
c.finish()
