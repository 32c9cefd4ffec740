"""aiomysql (Debian python3-aiomysql, asyncio over PyMySQL's protocol code): a pool,
parameterised queries, Decimal results, rowcounts, begin/rollback/commit seen from a
second pooled connection."""

import asyncio
import decimal
import os
import sys

import aiomysql

sys.path.insert(0, os.path.dirname(__file__))
from compat import CUSTOMERS, HOST, ORDERS, PASSWORD, PORT, USER, Checker  # noqa: E402

DB = "compat_aiomysql"
c = Checker()
D = decimal.Decimal


async def aeqf(name, want, coro_fn):
    try:
        got = await coro_fn()
    except Exception as e:  # noqa: BLE001
        c.fail(name, "%s: %s" % (type(e).__name__, e))
        return
    c.eq(name, want, got)


async def main():
    conn = await aiomysql.connect(host=HOST, port=PORT, user=USER, password=PASSWORD, autocommit=True)
    async with conn.cursor() as cur:
        async def create():
            await cur.execute("DROP DATABASE IF EXISTS " + DB)
            await cur.execute("CREATE DATABASE " + DB)
            return True
        await aeqf("create database", True, create)
    conn.close()

    pool = await aiomysql.create_pool(host=HOST, port=PORT, user=USER, password=PASSWORD, db=DB,
                                      charset="utf8mb4", minsize=1, maxsize=2, autocommit=False)
    async with pool.acquire() as cn, cn.cursor() as cur:
        async def ddl():
            await cur.execute("""CREATE TABLE customers (region VARCHAR(16) NOT NULL, id INT NOT NULL,
                name VARCHAR(64) NOT NULL, note VARCHAR(255) NULL, PRIMARY KEY (region, id))""")
            await cur.execute("""CREATE TABLE orders (region VARCHAR(16) NOT NULL, customer_id INT NOT NULL,
                order_no INT NOT NULL, qty INT NOT NULL, price DECIMAL(10,2) NULL,
                PRIMARY KEY (region, customer_id, order_no))""")
            return True
        await aeqf("create tables (composite primary keys)", True, ddl)
        try:
            await cur.execute("CREATE INDEX idx_customers_name ON customers (name)")
            c.ok("create secondary index")
        except Exception as e:  # noqa: BLE001
            c.index("create secondary index", lambda: (_ for _ in ()).throw(e))

        async def insert():
            n = await cur.executemany("INSERT INTO customers VALUES (%s, %s, %s, %s)", CUSTOMERS)
            m = await cur.executemany("INSERT INTO orders VALUES (%s, %s, %s, %s, %s)", ORDERS)
            await cn.commit()
            return n, m
        await aeqf("executemany insert", (3, 4), insert)

        async def fetch(sql, args=()):
            await cur.execute(sql, args)
            return list(await cur.fetchall())
        await aeqf("read by key with quotes", [("O'Brien", "it's fragile")],
                   lambda: fetch("SELECT name, note FROM customers WHERE region = %s AND id = %s", ("eu", 1)))
        await aeqf("read NULL by key", [("Smith", None)],
                   lambda: fetch("SELECT name, note FROM customers WHERE region = %s AND id = %s", ("eu", 2)))
        await aeqf("join with aggregate", [("O'Brien", 2, D(30), D("3.75")), ("Smith", 1, D(5), None), ("Jones", 1, D(7), D("3.00"))],
                   lambda: fetch("""SELECT c.name, COUNT(*), SUM(o.qty), SUM(o.price) FROM customers c
                       JOIN orders o ON o.region = c.region AND o.customer_id = c.id
                       GROUP BY c.region, c.id, c.name ORDER BY c.region, c.id"""))

        async def sum_type():
            return type((await fetch("SELECT SUM(qty) FROM orders"))[0][0])
        await aeqf("SUM(INT) is Decimal, not float", D, sum_type)
        await aeqf("update rowcount", 2, lambda: cur.execute("UPDATE customers SET note = %s WHERE region = %s", ("updated", "eu")))
        await aeqf("delete rowcount", 2, lambda: cur.execute("DELETE FROM orders WHERE region = %s AND customer_id = %s", ("eu", 1)))
        await cn.commit()

        async def count_ap():
            async with pool.acquire() as o, o.cursor() as oc:
                await o.commit()  # a fresh snapshot
                await oc.execute("SELECT COUNT(*) FROM customers WHERE region = 'ap'")
                return (await oc.fetchone())[0]

        async def rollback():
            await cn.begin()
            await cur.execute("INSERT INTO customers VALUES ('ap', 1, 'Rolled', NULL)")
            before = await count_ap()
            await cn.rollback()
            return before, await count_ap()
        await aeqf("rollback discards", (0, 0), rollback)

        async def commit():
            await cn.begin()
            await cur.execute("INSERT INTO customers VALUES ('ap', 2, 'Kept', NULL)")
            await cn.commit()
            return await count_ap()
        await aeqf("commit keeps", 1, commit)
    pool.close()
    await pool.wait_closed()


asyncio.run(main())
c.finish()
