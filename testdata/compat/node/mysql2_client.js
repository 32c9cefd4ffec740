'use strict';
// mysql2: binary-protocol prepared statements (connection.execute, prepare/execute/close),
// text-protocol queries with client-side placeholders, typed results (SUM(INT) is
// DECIMAL, which mysql2 returns as a string), affectedRows/changedRows, transactions
// seen from a second connection, and EXPLAIN in both protocols.
const mysql = require('mysql2/promise');
const { conn, CUSTOMERS, ORDERS, Checker } = require('./compat');

const DB = 'compat_mysql2';
const c = new Checker();

c.main(async () => {
  const admin = await mysql.createConnection({ ...conn });
  await c.run('create database', async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${DB}`);
    await admin.query(`CREATE DATABASE ${DB}`);
  });
  await admin.end();

  const db = await mysql.createConnection({ ...conn, database: DB, charset: 'utf8mb4' });
  await c.run('create tables (composite primary keys)', async () => {
    await db.query(`CREATE TABLE customers (region VARCHAR(16) NOT NULL, id INT NOT NULL,
      name VARCHAR(64) NOT NULL, note VARCHAR(255) NULL, PRIMARY KEY (region, id))`);
    await db.query(`CREATE TABLE orders (region VARCHAR(16) NOT NULL, customer_id INT NOT NULL,
      order_no INT NOT NULL, qty INT NOT NULL, price DECIMAL(10,2) NULL,
      PRIMARY KEY (region, customer_id, order_no))`);
  });
  await c.index('create secondary index', () => db.query('CREATE INDEX idx_customers_name ON customers (name)'));

  await c.run('insert with execute (binary protocol, NULL and quotes)', async () => {
    for (const row of CUSTOMERS) {
      const [r] = await db.execute('INSERT INTO customers (region, id, name, note) VALUES (?, ?, ?, ?)', row);
      if (r.affectedRows !== 1) throw new Error(`affectedRows ${r.affectedRows}`);
    }
  });
  const [ins] = await db.query('INSERT INTO orders VALUES ?', [ORDERS]);
  c.eq('multi-row insert with query placeholders', 4, ins.affectedRows);

  let [rows] = await db.execute('SELECT name, note FROM customers WHERE region = ? AND id = ?', ['eu', 1]);
  c.eq('read by key (execute)', [{ name: "O'Brien", note: "it's fragile" }], rows);
  [rows] = await db.execute('SELECT name, note FROM customers WHERE region = ? AND id = ?', ['eu', 2]);
  c.eq('read NULL by key (execute)', [{ name: 'Smith', note: null }], rows);
  [rows] = await db.query('SELECT region, id FROM customers WHERE name = ?', ["O'Brien"]);
  c.eq('read by secondary-index column (query)', [{ region: 'eu', id: 1 }], rows);
  [rows] = await db.execute('SELECT name FROM customers WHERE region = ? AND id = ?', ['eu', 99]);
  c.eq('read missing key', [], rows);

  const join = `SELECT c.name, COUNT(*) AS n, SUM(o.qty) AS qty, SUM(o.price) AS total
    FROM customers c JOIN orders o ON o.region = c.region AND o.customer_id = c.id
    WHERE c.region <> ? GROUP BY c.region, c.id, c.name ORDER BY c.region, c.id`;
  const want = [
    { name: "O'Brien", n: 2, qty: '30', total: '3.75' },
    { name: 'Smith', n: 1, qty: '5', total: null },
    { name: 'Jones', n: 1, qty: '7', total: '3.00' },
  ];
  [rows] = await db.execute(join, ['zz']);
  c.eq('join with aggregate (execute; DECIMAL sums are strings)', want, rows.map((r) => ({ ...r })));
  [rows] = await db.query(join, ['zz']);
  c.eq('join with aggregate (query)', want, rows.map((r) => ({ ...r })));
  const [, fields] = await db.execute('SELECT SUM(qty) AS s, COUNT(*) AS n FROM orders WHERE region = ?', ['eu']);
  c.eq('SUM(INT) column type is NEWDECIMAL (246), COUNT is LONGLONG (8)', [246, 8], fields.map((f) => f.columnType));

  const stmt = await db.prepare('SELECT COUNT(*) AS n FROM orders WHERE region = ? AND qty > ?');
  const counts = [];
  for (const args of [['eu', 0], ['eu', 10], ['us', 0]]) {
    const [r] = await stmt.execute(args);
    counts.push(r[0].n);
  }
  stmt.close();
  c.eq('prepared statement re-executed', [3, 1, 1], counts);

  const dml = async (sql, args) => {
    const [r] = await db.execute(sql, args);
    return [r.affectedRows, r.changedRows];
  };
  await c.eqf('update affectedRows / changedRows', [2, 2],
    () => dml('UPDATE customers SET note = ? WHERE region = ?', ['updated', 'eu']));
  await c.eqf('update with no change matches 1 (CLIENT_FOUND_ROWS), changes 0', [1, 0],
    () => dml('UPDATE customers SET note = ? WHERE region = ? AND id = ?', ['updated', 'eu', 1]));
  await c.eqf('delete affectedRows', 2,
    async () => (await dml('DELETE FROM orders WHERE region = ? AND customer_id = ?', ['eu', 1]))[0]);

  const other = await mysql.createConnection({ ...conn, database: DB });
  const countAp = async () => (await other.query("SELECT COUNT(*) AS n FROM customers WHERE region = 'ap'"))[0][0].n;
  await db.beginTransaction();
  await db.execute('INSERT INTO customers VALUES (?, ?, ?, ?)', ['ap', 1, 'Rolled', null]);
  c.eq('uncommitted insert invisible to another connection', 0, await countAp());
  await db.rollback();
  c.eq('rollback discards', 0, await countAp());
  await db.beginTransaction();
  await db.execute('INSERT INTO customers VALUES (?, ?, ?, ?)', ['ap', 2, 'Kept', null]);
  await db.commit();
  c.eq('commit keeps', 1, await countAp());
  await other.end();

  for (const [name, fn] of [['EXPLAIN (query)', 'query'], ['EXPLAIN (execute)', 'execute']]) {
    await c.run(name, async () => {
      const [r] = await db[fn]('EXPLAIN SELECT * FROM customers WHERE region = ? AND id = ?', ['eu', 1]);
      if (!r.length) throw new Error('no rows');
      for (const row of r) {
        for (const [k, v] of Object.entries(row)) {
          if (typeof v === 'number' && Number.isNaN(v)) throw new Error(`column ${k} is NaN (integer column holding text)`);
        }
      }
    });
  }
  try {
    await db.execute('INSERT INTO customers VALUES (?, ?, ?, ?)', ['eu', 2, 'Dup', null]);
    c.fail('duplicate key error', 'no error');
  } catch (e) {
    c.eq('duplicate key error', ['ER_DUP_ENTRY', 1062], [e.code, e.errno]);
  }

  // Column types through both protocols: values bound as parameters of a prepared
  // INSERT, read back with execute (binary rows) and query (text rows) as exact strings.
  const tdb = await mysql.createConnection({ ...conn, database: DB, charset: 'utf8mb4', dateStrings: true,
    supportBigNumbers: true, bigNumberStrings: true, decimalNumbers: false });
  const typesOk = await c.run('create a table of assorted types', () => tdb.query(`CREATE TABLE kinds (
    k INT NOT NULL, sub VARCHAR(8) NOT NULL, big BIGINT NULL, ubig BIGINT UNSIGNED NULL, dbl DOUBLE NULL,
    dec_v DECIMAL(12,4) NULL, ts DATETIME(6) NULL, d DATE NULL, tm TIME NULL, txt TEXT NULL,
    bin VARBINARY(16) NULL, flag TINYINT(1) NULL, e ENUM('a','b') NULL, PRIMARY KEY (k, sub))`));
  if (typesOk !== undefined) {
    const row = [1, 'a', '-9007199254740993', '18446744073709551615', 1.5, '12345678.1234',
      '2024-02-29 23:59:58.123456', '2024-02-29', '-12:34:56', "line\nwith 'quotes' and \\", Buffer.from([0, 255, 16]), 1, 'b'];
    await c.eqf('insert assorted types with execute', 1, async () => (await tdb.execute(
      'INSERT INTO kinds VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)', row))[0].affectedRows);
    await c.eqf('insert NULLs with execute', 1, async () => (await tdb.execute(
      'INSERT INTO kinds VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)', [2, 'a', null, null, null, null, null, null, null, null, null, null, null]))[0].affectedRows);
    const want = [
      { k: 1, sub: 'a', big: '-9007199254740993', ubig: '18446744073709551615', dbl: 1.5, dec_v: '12345678.1234',
        ts: '2024-02-29 23:59:58.123456', d: '2024-02-29', tm: '-12:34:56', txt: "line\nwith 'quotes' and \\",
        bin: '00ff10', flag: 1, e: 'b' },
      { k: 2, sub: 'a', big: null, ubig: null, dbl: null, dec_v: null, ts: null, d: null, tm: null, txt: null, bin: null, flag: null, e: null },
    ];
    const norm = (rows) => rows.map((r) => ({ ...r, bin: r.bin === null ? null : Buffer.from(r.bin).toString('hex') }));
    await c.eqf('assorted types read back (execute, binary rows)', want,
      async () => norm((await tdb.execute('SELECT * FROM kinds WHERE k > ? ORDER BY k', [0]))[0]));
    await c.eqf('assorted types read back (query, text rows)', want,
      async () => norm((await tdb.query('SELECT * FROM kinds ORDER BY k'))[0]));
    await c.eqf('DATETIME parameter in a WHERE clause (execute)', [{ k: 1 }],
      async () => (await tdb.execute('SELECT k FROM kinds WHERE ts = ?', ['2024-02-29 23:59:58.123456']))[0].map((r) => ({ ...r })));
  }
  await tdb.end();
  await db.end();
});
