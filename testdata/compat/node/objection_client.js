'use strict';
// Objection.js (npm) on Knex's migrations API over mysql2: migrate.latest() from migration
// files (knex_migrations and knex_migrations_lock, the lock taken with SELECT ... FOR UPDATE
// in a transaction), migrate.list/currentVersion, rollback and latest again; Objection
// models with composite idColumn, a HasMany relation over a composite join,
// insertGraph, findById with a key array, withGraphFetched, joinRelated with count/sum,
// patch/delete counts, Model.transaction with rollback and commit, a nested knex
// transaction (SAVEPOINT), and db-errors' UniqueViolationError for a duplicate key.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const Knex = require('knex');
const { Model, UniqueViolationError } = require('objection');
const { conn, Checker } = require('./compat');

const DB = 'compat_objection';
const c = new Checker();

class Order extends Model {
  static get tableName() { return 'orders'; }
  static get idColumn() { return ['region', 'customer_id', 'order_no']; }
}
class Customer extends Model {
  static get tableName() { return 'customers'; }
  static get idColumn() { return ['region', 'id']; }
  static get relationMappings() {
    return {
      orders: {
        relation: Model.HasManyRelation,
        modelClass: Order,
        join: { from: ['customers.region', 'customers.id'], to: ['orders.region', 'orders.customer_id'] },
      },
    };
  }
}

const MIGRATIONS = {
  '20240101000001_shop.js': `
exports.up = (knex) => knex.schema
  .createTable('customers', (t) => {
    t.string('region', 16).notNullable();
    t.integer('id').notNullable();
    t.string('name', 64).notNullable();
    t.string('note', 255).nullable();
    t.primary(['region', 'id']);
  })
  .createTable('orders', (t) => {
    t.string('region', 16).notNullable();
    t.integer('customer_id').notNullable();
    t.integer('order_no').notNullable();
    t.integer('qty').notNullable();
    t.decimal('price', 10, 2).nullable();
    t.primary(['region', 'customer_id', 'order_no']);
  });
exports.down = (knex) => knex.schema.dropTable('orders').dropTable('customers');
`,
  '20240101000002_index.js': `
exports.up = (knex) => knex.schema.alterTable('customers', (t) => { t.index(['name'], 'idx_customers_name'); });
exports.down = (knex) => knex.schema.alterTable('customers', (t) => { t.dropIndex(['name'], 'idx_customers_name'); });
`,
};

c.main(async () => {
  const admin = Knex({ client: 'mysql2', connection: { ...conn } });
  await c.run('create database', async () => {
    await admin.raw(`DROP DATABASE IF EXISTS ${DB}`);
    await admin.raw(`CREATE DATABASE ${DB}`);
  });
  await admin.destroy();

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compat-objection-'));
  for (const [f, text] of Object.entries(MIGRATIONS)) fs.writeFileSync(path.join(dir, f), text);
  const knex = Knex({ client: 'mysql2', connection: { ...conn, database: DB }, pool: { min: 0, max: 4 }, migrations: { directory: dir } });
  Model.knex(knex);
  try {
    await c.eqf('migrate.latest runs both migrations', [1, ['20240101000001_shop.js', '20240101000002_index.js']], () => knex.migrate.latest());
    await c.eqf('migrate.currentVersion', '20240101000002', () => knex.migrate.currentVersion());
    await c.eqf('migrate.list: nothing pending', 0, async () => (await knex.migrate.list())[1].length);
    await c.eqf('migrate.latest again does nothing', [1, []], () => knex.migrate.latest());
    await c.eqf('migrate.rollback undoes the last batch', [1, ['20240101000002_index.js', '20240101000001_shop.js']], () => knex.migrate.rollback());
    await c.eqf('tables gone after rollback', false, () => knex.schema.hasTable('customers'));
    await c.eqf('migrate.latest after the rollback', [1, ['20240101000001_shop.js', '20240101000002_index.js']], () => knex.migrate.latest());
    await c.eqf('knex_migrations_lock is released', [0], async () => (await knex('knex_migrations_lock').select('is_locked')).map((r) => r.is_locked));

    await c.run('insertGraph: customers with their orders (quotes, NULL)', async () => {
      await Customer.query().insertGraph([
        { region: 'eu', id: 1, name: "O'Brien", note: "it's fragile", orders: [
          { order_no: 1, qty: 10, price: '1.50' }, { order_no: 2, qty: 20, price: '2.25' }] },
        { region: 'eu', id: 2, name: 'Smith', note: null, orders: [{ order_no: 1, qty: 5, price: null }] },
        { region: 'us', id: 1, name: 'Jones', note: 'plain', orders: [{ order_no: 1, qty: 7, price: '3.00' }] },
      ]);
    });
    await c.eqf('findById with a composite key', ["O'Brien", "it's fragile"], async () => {
      const x = await Customer.query().findById(['eu', 1]);
      return [x.name, x.note];
    });
    await c.eqf('read NULL by key', null, async () => (await Customer.query().findById(['eu', 2])).note);
    await c.eqf('findById of a missing key', undefined, () => Customer.query().findById(['eu', 99]));
    await c.eqf('where on the indexed column', [['eu', 1]], async () =>
      (await Customer.query().where('name', "O'Brien")).map((r) => [r.region, r.id]));
    await c.eqf('withGraphFetched over the composite join', [2, 1, 1], async () =>
      (await Customer.query().withGraphFetched('orders').orderBy(['region', 'id'])).map((r) => r.orders.length));
    await c.eqf('joinRelated with count and sum (DECIMAL sums are strings)', [
      { name: "O'Brien", n: 2, qty: '30', total: '3.75' },
      { name: 'Smith', n: 1, qty: '5', total: null },
      { name: 'Jones', n: 1, qty: '7', total: '3.00' },
    ], async () => (await Customer.query().joinRelated('orders')
      .select('customers.name').count('* as n').sum('orders.qty as qty').sum('orders.price as total')
      .groupBy('customers.region', 'customers.id', 'customers.name').orderBy(['customers.region', 'customers.id']))
      .map((r) => ({ name: r.name, n: r.n, qty: r.qty, total: r.total })));
    await c.eqf('patch count', 2, () => Customer.query().patch({ note: 'updated' }).where('region', 'eu'));
    await c.eqf('delete count', 2, () => Order.query().delete().where({ region: 'eu', customer_id: 1 }));

    const countAp = async () => (await knex.raw("SELECT COUNT(*) AS n FROM customers WHERE region = 'ap'"))[0][0].n;
    await c.eqf('Model.transaction rolled back by a throw', [0, 0], async () => {
      let seen;
      try {
        await Customer.transaction(async (trx) => {
          await Customer.query(trx).insert({ region: 'ap', id: 1, name: 'Rolled' });
          seen = await countAp();
          throw new Error('roll back');
        });
      } catch (e) {
        if (e.message !== 'roll back') throw e;
      }
      return [seen, await countAp()];
    });
    await c.eqf('Model.transaction committed', 1, async () => {
      await Customer.transaction((trx) => Customer.query(trx).insert({ region: 'ap', id: 2, name: 'Kept', note: "it's kept" }));
      return countAp();
    });
    await c.eqf('nested transaction (SAVEPOINT) rolled back alone', [2, 3], async () => {
      await knex.transaction(async (trx) => {
        await Customer.query(trx).insert({ region: 'ap', id: 3, name: 'Before' });
        try {
          await trx.transaction(async (inner) => {
            await Customer.query(inner).insert({ region: 'ap', id: 4, name: 'After' });
            throw new Error('inner');
          });
        } catch (e) {
          if (e.message !== 'inner') throw e;
        }
      });
      return (await Customer.query().where('region', 'ap').orderBy('id')).map((r) => r.id);
    });
    await c.eqf('duplicate key is UniqueViolationError', 'UniqueViolationError', async () => {
      try {
        await Customer.query().insert({ region: 'eu', id: 2, name: 'Dup' });
        return 'no error';
      } catch (e) {
        return e instanceof UniqueViolationError ? 'UniqueViolationError' : `${e.name}: ${e.message}`;
      }
    });
  } finally {
    await knex.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
