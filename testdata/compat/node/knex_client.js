'use strict';
// Knex (query and schema builder, client mysql2): createTable with a composite primary
// key, a separate index, hasTable/hasColumn/columnInfo introspection, builder queries
// with bindings, aggregates, update/del counts, transactions with rollback, commit and
// a nested transaction (savepoint).
const knexLib = require('knex');
const { conn, CUSTOMERS, ORDERS, Checker } = require('./compat');

const DB = 'compat_knex';
const c = new Checker();
const plain = (rows) => rows.map((r) => ({ ...r }));

c.main(async () => {
  const admin = knexLib({ client: 'mysql2', connection: { ...conn } });
  await c.run('create database', async () => {
    await admin.raw(`DROP DATABASE IF EXISTS ${DB}`);
    await admin.raw(`CREATE DATABASE ${DB}`);
  });
  await admin.destroy();

  // With a connection charset Knex adds "default character set <charset>" to every
  // CREATE TABLE: checked on its own table, so that the rest does not depend on it.
  const k8 = knexLib({ client: 'mysql2', connection: { ...conn, database: DB, charset: 'utf8mb4' }, pool: { min: 0, max: 1 } });
  await c.run('createTable with connection charset utf8mb4 (DEFAULT CHARACTER SET utf8mb4)', async () => {
    try {
      await k8.schema.createTable('charset_table', (t) => {
        t.string('k', 16).notNullable().primary();
        t.string('v', 64);
      });
      await k8('charset_table').insert({ k: 'a', v: 'Zoë' });
    } finally {
      await k8.destroy();
    }
  });

  const k = knexLib({ client: 'mysql2', connection: { ...conn, database: DB }, pool: { min: 0, max: 2 } });
  try {
    await c.run('createTable (composite primary keys)', async () => {
      await k.schema.createTable('customers', (t) => {
        t.string('region', 16).notNullable();
        t.integer('id').notNullable();
        t.string('name', 64).notNullable();
        t.string('note', 255).nullable();
        t.primary(['region', 'id']);
      });
      await k.schema.createTable('orders', (t) => {
        t.string('region', 16).notNullable();
        t.integer('customer_id').notNullable();
        t.integer('order_no').notNullable();
        t.integer('qty').notNullable();
        t.decimal('price', 10, 2).nullable();
        t.primary(['region', 'customer_id', 'order_no']);
      });
    });
    await c.index('alterTable index (separate statement)', () => k.schema.alterTable('customers', (t) => t.index(['name'], 'idx_customers_name')));
    await c.eqf('hasTable / hasColumn', [true, true, false],
      async () => [await k.schema.hasTable('orders'), await k.schema.hasColumn('orders', 'price'), await k.schema.hasColumn('orders', 'nope')]);
    await c.eqf('columnInfo', { type: 'decimal', nullable: true }, async () => {
      const i = (await k('orders').columnInfo()).price;
      return i && { type: i.type, nullable: i.nullable };
    });
    await c.run('insert rows', async () => {
      await k('customers').insert(CUSTOMERS.map(([region, id, name, note]) => ({ region, id, name, note })));
      await k('orders').insert(ORDERS.map(([region, customer_id, order_no, qty, price]) => ({ region, customer_id, order_no, qty, price })));
    });
    await c.eqf('first by key with quotes', { name: "O'Brien", note: "it's fragile" },
      async () => ({ ...(await k('customers').select('name', 'note').where({ region: 'eu', id: 1 }).first()) }));
    await c.eqf('whereNull', [{ id: 2 }], async () => plain(await k('customers').select('id').whereNull('note')));
    await c.eqf('join with aggregate', [
      { name: "O'Brien", n: 2, qty: '30', total: '3.75' },
      { name: 'Smith', n: 1, qty: '5', total: null },
      { name: 'Jones', n: 1, qty: '7', total: '3.00' },
    ], async () => plain(await k('customers as c')
      .join('orders as o', function on() { this.on('o.region', 'c.region').andOn('o.customer_id', 'c.id'); })
      .select('c.name').count({ n: '*' }).sum({ qty: 'o.qty' }).sum({ total: 'o.price' })
      .groupBy('c.region', 'c.id', 'c.name').orderBy([{ column: 'c.region' }, { column: 'c.id' }])));
    await c.eqf('update count', 2, () => k('customers').where({ region: 'eu' }).update({ note: 'updated' }));
    await c.eqf('del count', 2, () => k('orders').where({ region: 'eu', customer_id: 1 }).del());
    const countAp = async () => Number((await k('customers').where({ region: 'ap' }).count({ n: '*' }))[0].n);
    await c.eqf('transaction rolled back', 0, async () => {
      await k.transaction(async (trx) => {
        await trx('customers').insert({ region: 'ap', id: 1, name: 'Rolled', note: null });
        throw new Error('roll back');
      }).catch((e) => { if (e.message !== 'roll back') throw e; });
      return countAp();
    });
    await c.eqf('transaction with a nested savepoint', [2], async () => {
      await k.transaction(async (trx) => {
        await trx('customers').insert({ region: 'ap', id: 2, name: 'Outer', note: null });
        await trx.transaction(async (t2) => {
          await t2('customers').insert({ region: 'ap', id: 3, name: 'Inner', note: null });
          throw new Error('inner');
        }).catch((e) => { if (e.message !== 'inner') throw e; });
      });
      return (await k('customers').where({ region: 'ap' }).select('id')).map((r) => r.id);
    });
    await c.eqf('raw with bindings', [{ name: 'Jones' }], async () => plain((await k.raw('SELECT name FROM customers WHERE region = ? AND note = ?', ['us', 'plain']))[0]));
  } finally {
    await k.destroy();
  }
});
