'use strict';
// TypeORM (mysql driver over mysql2): EntitySchema models with composite primary keys,
// synchronize (schema created from the models by reading information_schema), then a
// second DataSource whose schema log must show nothing to change; repository finders,
// the query builder with aggregates, update/delete counts, transactions with rollback,
// commit and a nested savepoint (QueryRunner), and a separate index.
const { DataSource, EntitySchema } = require('typeorm');
const mysql = require('mysql2/promise');
const { conn, server, CUSTOMERS, ORDERS, Checker } = require('./compat');

const DB = 'compat_typeorm';
const c = new Checker();

// Customer, and the same entity with its secondary index declared (used once the
// index exists, so that synchronize neither drops nor re-creates it).
const customerDef = (indices) => new EntitySchema({
  name: 'Customer',
  tableName: 'customers',
  columns: {
    region: { type: 'varchar', length: 16, primary: true },
    id: { type: 'int', primary: true },
    name: { type: 'varchar', length: 64 },
    note: { type: 'varchar', length: 255, nullable: true },
  },
  indices,
});
const Customer = customerDef([]);
const CustomerIndexed = customerDef([{ name: 'idx_customers_name', columns: ['name'] }]);
const Order = new EntitySchema({
  name: 'Order',
  tableName: 'orders',
  columns: {
    region: { type: 'varchar', length: 16, primary: true },
    customer_id: { type: 'int', primary: true },
    order_no: { type: 'int', primary: true },
    qty: { type: 'int' },
    price: { type: 'decimal', precision: 10, scale: 2, nullable: true },
  },
});

function source(log, customer = Customer) {
  return new DataSource({
    // sqlgw presents itself as MySQL 8; MariaDB users pick TypeORM's mariadb flavour.
    type: server === 'mariadb' ? 'mariadb' : 'mysql',
    host: conn.host, port: conn.port, username: conn.user, password: conn.password,
    database: DB, entities: [customer, Order], synchronize: false,
    logging: log ? ['query', 'schema'] : false,
    logger: log ? { logQuery: (q) => log.push(q), logSchemaBuild: (m) => log.push(m), logQueryError() {}, logQuerySlow() {}, logMigration() {}, log() {} } : undefined,
  });
}

c.main(async () => {
  const admin = await mysql.createConnection({ ...conn });
  await c.run('create database', async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${DB}`);
    await admin.query(`CREATE DATABASE ${DB}`);
  });
  await admin.end();

  const first = [];
  const ds = source(first);
  await c.run('initialize', () => ds.initialize());
  await c.run('synchronize (composite primary keys)', () => ds.synchronize());
  c.eq('synchronize created both tables', 2, first.filter((q) => /^CREATE TABLE/i.test(q)).length);
  const indexOk = await c.index('create secondary index', () => ds.query('CREATE INDEX idx_customers_name ON customers (name)'));

  // Synchronize again from a fresh DataSource: the schema matches, so no DDL.
  const second = [];
  const ds2 = source(second, indexOk ? CustomerIndexed : Customer);
  await ds2.initialize();
  await c.run('synchronize again', () => ds2.synchronize());
  c.eq('second synchronize sends no CREATE/ALTER/DROP', [],
    second.filter((q) => /^\s*(CREATE|ALTER|DROP)\b/i.test(q)));
  await ds2.destroy();

  const customers = ds.getRepository('Customer');
  const orders = ds.getRepository('Order');
  await c.run('save rows', async () => {
    await customers.insert(CUSTOMERS.map(([region, id, name, note]) => ({ region, id, name, note })));
    await orders.insert(ORDERS.map(([region, customer_id, order_no, qty, price]) => ({ region, customer_id, order_no, qty, price })));
  });
  await c.eqf('findOneBy composite key with quotes', { name: "O'Brien", note: "it's fragile" },
    async () => { const x = await customers.findOneBy({ region: 'eu', id: 1 }); return x && { name: x.name, note: x.note }; });
  await c.eqf('NULL column', null, async () => (await customers.findOneBy({ region: 'eu', id: 2 })).note);
  await c.eqf('findBy secondary-index column', [['eu', 1]],
    async () => (await customers.findBy({ name: "O'Brien" })).map((x) => [x.region, x.id]));
  await c.eqf('query builder join with aggregate', [
    { name: "O'Brien", n: '2', qty: '30', total: '3.75' },
    { name: 'Smith', n: '1', qty: '5', total: null },
    { name: 'Jones', n: '1', qty: '7', total: '3.00' },
  ], async () => (await ds.createQueryBuilder().select('c.name', 'name').addSelect('COUNT(*)', 'n')
    .addSelect('SUM(o.qty)', 'qty').addSelect('SUM(o.price)', 'total')
    .from('customers', 'c').innerJoin('orders', 'o', 'o.region = c.region AND o.customer_id = c.id')
    .where('c.region <> :r', { r: 'zz' })
    .groupBy('c.region').addGroupBy('c.id').addGroupBy('c.name').orderBy('c.region').addOrderBy('c.id')
    .getRawMany()).map((r) => ({ ...r, n: String(r.n) })));
  await c.eqf('update affected', 2, async () => (await customers.update({ region: 'eu' }, { note: 'updated' })).affected);
  await c.eqf('delete affected', 2, async () => (await orders.delete({ region: 'eu', customer_id: 1 })).affected);
  await c.eqf('transaction rolled back', 0, async () => {
    await ds.transaction(async (m) => {
      await m.insert('Customer', { region: 'ap', id: 1, name: 'Rolled', note: null });
      throw new Error('roll back');
    }).catch((e) => { if (e.message !== 'roll back') throw e; });
    return customers.countBy({ region: 'ap' });
  });
  await c.eqf('nested transaction (savepoint) rolled back alone', [2], async () => {
    const qr = ds.createQueryRunner();
    await qr.connect();
    try {
      await qr.startTransaction();
      await qr.manager.insert('Customer', { region: 'ap', id: 2, name: 'Outer', note: null });
      await qr.startTransaction(); // SAVEPOINT
      await qr.manager.insert('Customer', { region: 'ap', id: 3, name: 'Inner', note: null });
      await qr.rollbackTransaction(); // ROLLBACK TO SAVEPOINT
      await qr.commitTransaction();
    } finally {
      await qr.release();
    }
    return (await customers.findBy({ region: 'ap' })).map((x) => x.id);
  });
  await c.eqf('raw query with parameters', [{ name: 'Jones' }],
    async () => (await ds.query('SELECT name FROM customers WHERE region = ? AND note = ?', ['us', 'plain'])).map((r) => ({ ...r })));
  await ds.destroy();
});
