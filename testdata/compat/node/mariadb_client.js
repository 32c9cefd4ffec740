'use strict';
// mariadb (MariaDB Connector/Node.js): connection.execute (binary protocol, prepared
// statement cache), query with placeholders and named placeholders, batch, pipelining,
// BigInt/decimal typing, transactions, and a pool.
const mariadb = require('mariadb');
const { conn, CUSTOMERS, ORDERS, Checker } = require('./compat');

const DB = 'compat_mariadb';
const c = new Checker();
const plain = (rows) => rows.map((r) => ({ ...r }));

c.main(async () => {
  const admin = await mariadb.createConnection({ ...conn });
  await c.run('create database', async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${DB}`);
    await admin.query(`CREATE DATABASE ${DB}`);
  });
  await admin.end();

  const db = await mariadb.createConnection({ ...conn, database: DB, charset: 'utf8mb4', decimalAsNumber: false, bigIntAsNumber: true });
  await c.run('create tables (composite primary keys)', async () => {
    await db.query(`CREATE TABLE customers (region VARCHAR(16) NOT NULL, id INT NOT NULL,
      name VARCHAR(64) NOT NULL, note VARCHAR(255) NULL, PRIMARY KEY (region, id))`);
    await db.query(`CREATE TABLE orders (region VARCHAR(16) NOT NULL, customer_id INT NOT NULL,
      order_no INT NOT NULL, qty INT NOT NULL, price DECIMAL(10,2) NULL,
      PRIMARY KEY (region, customer_id, order_no))`);
  });
  await c.index('create secondary index', () => db.query('CREATE INDEX idx_customers_name ON customers (name)'));
  await c.eqf('batch insert (quotes, NULL)', 3, async () => {
    const r = await db.batch('INSERT INTO customers (region, id, name, note) VALUES (?, ?, ?, ?)', CUSTOMERS);
    return Array.isArray(r) ? r.reduce((n, x) => n + x.affectedRows, 0) : r.affectedRows;
  });
  await c.eqf('execute insert (binary protocol)', 4, async () => {
    let n = 0;
    for (const row of ORDERS) n += (await db.execute('INSERT INTO orders VALUES (?, ?, ?, ?, ?)', row)).affectedRows;
    return n;
  });
  await c.eqf('read by key (execute)', [{ name: "O'Brien", note: "it's fragile" }],
    async () => plain(await db.execute('SELECT name, note FROM customers WHERE region = ? AND id = ?', ['eu', 1])));
  await c.eqf('read NULL by key (named placeholders)', [{ name: 'Smith', note: null }],
    async () => plain(await db.query({ namedPlaceholders: true, sql: 'SELECT name, note FROM customers WHERE region = :r AND id = :i' }, { r: 'eu', i: 2 })));
  await c.eqf('read by secondary-index column', [{ region: 'eu', id: 1 }],
    async () => plain(await db.query('SELECT region, id FROM customers WHERE name = ?', ["O'Brien"])));
  const join = `SELECT c.name, COUNT(*) AS n, SUM(o.qty) AS qty, SUM(o.price) AS total
    FROM customers c JOIN orders o ON o.region = c.region AND o.customer_id = c.id
    WHERE c.region <> ? GROUP BY c.region, c.id, c.name ORDER BY c.region, c.id`;
  const want = [
    { name: "O'Brien", n: 2, qty: '30', total: '3.75' },
    { name: 'Smith', n: 1, qty: '5', total: null },
    { name: 'Jones', n: 1, qty: '7', total: '3.00' },
  ];
  await c.eqf('join with aggregate (execute; DECIMAL as strings)', want, async () => plain(await db.execute(join, ['zz'])));
  await c.eqf('join with aggregate (query)', want, async () => plain(await db.query(join, ['zz'])));
  await c.eqf('pipelined queries', [[{ n: 3 }], [{ n: 1 }]], async () => (await Promise.all([
    db.query("SELECT COUNT(*) AS n FROM orders WHERE region = 'eu'"),
    db.query("SELECT COUNT(*) AS n FROM orders WHERE region = 'us'"),
  ])).map(plain));
  await c.eqf('update affectedRows', 2,
    async () => (await db.execute('UPDATE customers SET note = ? WHERE region = ?', ['updated', 'eu'])).affectedRows);
  await c.eqf('delete affectedRows', 2,
    async () => (await db.query('DELETE FROM orders WHERE region = ? AND customer_id = ?', ['eu', 1])).affectedRows);

  const pool = mariadb.createPool({ ...conn, database: DB, connectionLimit: 2 });
  const countAp = async () => Number((await pool.query("SELECT COUNT(*) AS n FROM customers WHERE region = 'ap'"))[0].n);
  await c.eqf('rollback discards', [0, 0], async () => {
    await db.beginTransaction();
    await db.execute('INSERT INTO customers VALUES (?, ?, ?, ?)', ['ap', 1, 'Rolled', null]);
    const before = await countAp();
    await db.rollback();
    return [before, await countAp()];
  });
  await c.eqf('commit keeps', 1, async () => {
    await db.beginTransaction();
    await db.execute('INSERT INTO customers VALUES (?, ?, ?, ?)', ['ap', 2, 'Kept', null]);
    await db.commit();
    return countAp();
  });
  await pool.end();
  await c.eqf('duplicate key error', ['ER_DUP_ENTRY', 1062, '23000'], async () => {
    try {
      await db.execute('INSERT INTO customers VALUES (?, ?, ?, ?)', ['eu', 2, 'Dup', null]);
      return 'no error';
    } catch (e) {
      return [e.code, e.errno, e.sqlState];
    }
  });
  await c.run('EXPLAIN (query)', () => db.query('EXPLAIN SELECT * FROM customers WHERE region = ? AND id = ?', ['eu', 1]));
  await db.end();
});
