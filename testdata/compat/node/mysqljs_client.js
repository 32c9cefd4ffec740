'use strict';
// mysql (mysqljs/mysql, the classic pure-JS driver): text protocol only, client-side
// placeholders (? and ?? identifiers, objects for SET), typeCast of DECIMAL to strings,
// affectedRows/changedRows, transactions with beginTransaction/rollback/commit, a pool.
const mysql = require('mysql');
const util = require('node:util');
const { conn, CUSTOMERS, ORDERS, Checker } = require('./compat');

const DB = 'compat_mysqljs';
const c = new Checker();

function open(opts) {
  const cn = mysql.createConnection({ ...conn, charset: 'utf8mb4', ...opts });
  return {
    cn,
    query: util.promisify(cn.query).bind(cn),
    begin: util.promisify(cn.beginTransaction).bind(cn),
    commit: util.promisify(cn.commit).bind(cn),
    rollback: util.promisify(cn.rollback).bind(cn),
    end: util.promisify(cn.end).bind(cn),
  };
}

c.main(async () => {
  const admin = open({});
  await c.run('create database', async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${DB}`);
    await admin.query(`CREATE DATABASE ${DB}`);
  });
  await admin.end();

  const db = open({ database: DB });
  await c.run('create tables (composite primary keys)', async () => {
    await db.query(`CREATE TABLE customers (region VARCHAR(16) NOT NULL, id INT NOT NULL,
      name VARCHAR(64) NOT NULL, note VARCHAR(255) NULL, PRIMARY KEY (region, id))`);
    await db.query(`CREATE TABLE orders (region VARCHAR(16) NOT NULL, customer_id INT NOT NULL,
      order_no INT NOT NULL, qty INT NOT NULL, price DECIMAL(10,2) NULL,
      PRIMARY KEY (region, customer_id, order_no))`);
  });
  await c.index('create secondary index', () => db.query('CREATE INDEX idx_customers_name ON customers (name)'));
  await c.eqf('insert with SET ? objects', 3, async () => {
    let n = 0;
    for (const [region, id, name, note] of CUSTOMERS) n += (await db.query('INSERT INTO customers SET ?', { region, id, name, note })).affectedRows;
    return n;
  });
  await c.eqf('multi-row insert with VALUES ?', 4, async () => (await db.query('INSERT INTO orders VALUES ?', [ORDERS])).affectedRows);
  await c.eqf('read by key with quotes', [{ name: "O'Brien", note: "it's fragile" }],
    async () => (await db.query('SELECT name, note FROM customers WHERE region = ? AND id = ?', ['eu', 1])).map((r) => ({ ...r })));
  await c.eqf('read NULL by key (?? identifiers)', [{ name: 'Smith', note: null }],
    async () => (await db.query('SELECT ??, ?? FROM ?? WHERE region = ? AND id = ?', ['name', 'note', 'customers', 'eu', 2])).map((r) => ({ ...r })));
  await c.eqf('read by secondary-index column', [{ region: 'eu', id: 1 }],
    async () => (await db.query('SELECT region, id FROM customers WHERE name = ?', ["O'Brien"])).map((r) => ({ ...r })));
  await c.eqf('join with aggregate (DECIMAL sums are strings)', [
    { name: "O'Brien", n: 2, qty: '30', total: '3.75' },
    { name: 'Smith', n: 1, qty: '5', total: null },
    { name: 'Jones', n: 1, qty: '7', total: '3.00' },
  ], async () => (await db.query({
    sql: `SELECT c.name, COUNT(*) AS n, SUM(o.qty) AS qty, SUM(o.price) AS total
      FROM customers c JOIN orders o ON o.region = c.region AND o.customer_id = c.id
      GROUP BY c.region, c.id, c.name ORDER BY c.region, c.id`,
    typeCast: (field, next) => (field.type === 'NEWDECIMAL' ? field.string() : next()),
  })).map((r) => ({ ...r })));
  await c.eqf('update affectedRows / changedRows', [2, 2],
    async () => { const r = await db.query('UPDATE customers SET note = ? WHERE region = ?', ['updated', 'eu']); return [r.affectedRows, r.changedRows]; });
  await c.eqf('update with no change matches 1, changes 0', [1, 0],
    async () => { const r = await db.query('UPDATE customers SET note = ? WHERE region = ? AND id = ?', ['updated', 'eu', 1]); return [r.affectedRows, r.changedRows]; });
  await c.eqf('delete affectedRows', 2,
    async () => (await db.query('DELETE FROM orders WHERE region = ? AND customer_id = ?', ['eu', 1])).affectedRows);

  const pool = mysql.createPool({ ...conn, database: DB, connectionLimit: 2 });
  const poolQuery = util.promisify(pool.query).bind(pool);
  const countAp = async () => (await poolQuery("SELECT COUNT(*) AS n FROM customers WHERE region = 'ap'"))[0].n;
  await c.eqf('rollback discards', [0, 0], async () => {
    await db.begin();
    await db.query('INSERT INTO customers VALUES (?, ?, ?, ?)', ['ap', 1, 'Rolled', null]);
    const before = await countAp();
    await db.rollback();
    return [before, await countAp()];
  });
  await c.eqf('commit keeps', 1, async () => {
    await db.begin();
    await db.query('INSERT INTO customers VALUES (?, ?, ?, ?)', ['ap', 2, 'Kept', null]);
    await db.commit();
    return countAp();
  });
  await util.promisify(pool.end).bind(pool)();
  await c.eqf('duplicate key error', ['ER_DUP_ENTRY', 1062, '23000'], async () => {
    try {
      await db.query('INSERT INTO customers VALUES (?, ?, ?, ?)', ['eu', 2, 'Dup', null]);
      return 'no error';
    } catch (e) {
      return [e.code, e.errno, e.sqlState];
    }
  });
  await c.run('EXPLAIN', () => db.query('EXPLAIN SELECT * FROM customers WHERE region = ? AND id = ?', ['eu', 1]));
  await db.end();
});
