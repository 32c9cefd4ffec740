'use strict';
// Sequelize 6 (mysql dialect over mysql2): models with composite primary keys, sync(),
// a separate addIndex, bulkCreate, finders, aggregates, raw queries with replacements and
// bind parameters, update/destroy counts, managed transactions with rollback, commit and
// a nested savepoint, and queryInterface introspection.
const { Sequelize, DataTypes, QueryTypes, Op } = require('sequelize');
const { conn, CUSTOMERS, ORDERS, Checker } = require('./compat');

const DB = 'compat_sequelize';
const c = new Checker();

c.main(async () => {
  const root = new Sequelize('', conn.user, conn.password, { host: conn.host, port: conn.port, dialect: 'mysql', logging: false });
  await c.run('create database', async () => {
    await root.query(`DROP DATABASE IF EXISTS ${DB}`);
    await root.query(`CREATE DATABASE ${DB}`);
  });
  await root.close();

  const sql = [];
  const seq = new Sequelize(DB, conn.user, conn.password, {
    host: conn.host, port: conn.port, dialect: 'mysql', logging: (s) => sql.push(s),
    dialectOptions: { charset: 'utf8mb4' }, define: { timestamps: false, underscored: true },
  });
  const Customer = seq.define('Customer', {
    region: { type: DataTypes.STRING(16), primaryKey: true },
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: false },
    name: { type: DataTypes.STRING(64), allowNull: false },
    note: { type: DataTypes.STRING(255), allowNull: true },
  }, { tableName: 'customers' });
  const Order = seq.define('Order', {
    region: { type: DataTypes.STRING(16), primaryKey: true },
    customerId: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: false },
    orderNo: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: false },
    qty: { type: DataTypes.INTEGER, allowNull: false },
    price: { type: DataTypes.DECIMAL(10, 2), allowNull: true },
  }, { tableName: 'orders' });

  await c.run('sync (composite primary keys)', () => seq.sync());
  await c.run('sync again (idempotent)', () => seq.sync());
  const qi = seq.getQueryInterface();
  const indexOk = await c.index('addIndex (separate CREATE INDEX)', () => qi.addIndex('customers', ['name'], { name: 'idx_customers_name' }));

  await c.run('bulkCreate', async () => {
    await Customer.bulkCreate(CUSTOMERS.map(([region, id, name, note]) => ({ region, id, name, note })));
    await Order.bulkCreate(ORDERS.map(([region, customerId, orderNo, qty, price]) => ({ region, customerId, orderNo, qty, price })));
  });
  let cu = await Customer.findOne({ where: { region: 'eu', id: 1 } });
  c.eq('findOne by composite key with quotes', ["O'Brien", "it's fragile"], cu && [cu.name, cu.note]);
  cu = await Customer.findOne({ where: { region: 'eu', id: 2 } });
  c.eq('NULL column', ['Smith', null], cu && [cu.name, cu.note]);
  c.eq('findAll by secondary-index column', [['eu', 1]],
    (await Customer.findAll({ where: { name: "O'Brien" } })).map((x) => [x.region, x.id]));
  c.eq('findAll with IN and order', [1, 2],
    (await Customer.findAll({ where: { region: 'eu', id: { [Op.in]: [1, 2, 3] } }, order: [['id', 'ASC']] })).map((x) => x.id));
  c.eq('count', 3, await Order.count({ where: { region: 'eu' } }));
  c.eq('sum', 35, Number(await Order.sum('qty', { where: { region: 'eu' } })));
  const rows = await seq.query(`SELECT c.name, COUNT(*) AS n, SUM(o.qty) AS qty, SUM(o.price) AS total
      FROM customers c JOIN orders o ON o.region = c.region AND o.customer_id = c.id
      WHERE c.region IN (:regions) GROUP BY c.region, c.id, c.name ORDER BY c.region, c.id`,
  { replacements: { regions: ['eu', 'us'] }, type: QueryTypes.SELECT });
  c.eq('join with aggregate (replacements)', [
    { name: "O'Brien", n: 2, qty: '30', total: '3.75' },
    { name: 'Smith', n: 1, qty: '5', total: null },
    { name: 'Jones', n: 1, qty: '7', total: '3.00' },
  ], rows);
  c.eq('bind parameters ($1, server-side)', [{ name: "O'Brien" }],
    await seq.query('SELECT name FROM customers WHERE region = $1 AND note = $2', { bind: ['eu', "it's fragile"], type: QueryTypes.SELECT }));

  await c.eqf('update count', [2], () => Customer.update({ note: 'updated' }, { where: { region: 'eu' } }));
  await c.eqf('destroy count', 2, () => Order.destroy({ where: { region: 'eu', customerId: 1 } }));

  await c.eqf('managed transaction rolled back', 0, async () => {
    await seq.transaction(async (t) => {
      await Customer.create({ region: 'ap', id: 1, name: 'Rolled', note: null }, { transaction: t });
      throw new Error('roll back');
    }).catch((e) => { if (e.message !== 'roll back') throw e; });
    return Customer.count({ where: { region: 'ap' } });
  });
  await c.run('managed transaction with a nested savepoint', () => seq.transaction(async (t) => {
    await Customer.create({ region: 'ap', id: 2, name: 'Outer', note: null }, { transaction: t });
    await seq.transaction({ transaction: t }, async (t2) => {
      await Customer.create({ region: 'ap', id: 3, name: 'Inner', note: null }, { transaction: t2 });
      throw new Error('inner');
    }).catch((e) => { if (e.message !== 'inner') throw e; });
  }));
  c.eq('commit kept the outer row only', [2], (await Customer.findAll({ where: { region: 'ap' } })).map((x) => x.id));
  c.true('savepoint statements were sent', sql.some((s) => /SAVEPOINT/.test(s)), 'no SAVEPOINT in the log');

  await c.eqf('upsert (ON DUPLICATE KEY UPDATE)', ['upserted', 'Jones'], async () => {
    await Customer.upsert({ region: 'us', id: 1, name: 'Jones', note: 'upserted' });
    const x = await Customer.findOne({ where: { region: 'us', id: 1 } });
    return [x.note, x.name];
  });
  await c.eqf('findOrCreate (create, then find)', [true, false], async () => {
    const [, created] = await Customer.findOrCreate({ where: { region: 'zz', id: 9 }, defaults: { name: 'New' } });
    const [, again] = await Customer.findOrCreate({ where: { region: 'zz', id: 9 }, defaults: { name: 'New' } });
    return [created, again];
  });
  await c.eqf('LIKE, ORDER BY, LIMIT/OFFSET', ['New', "O'Brien"], async () => (await Customer.findAll({
    where: { name: { [Op.like]: '%e%' } }, order: [['name', 'ASC']], limit: 2, offset: 1,
  })).map((x) => x.name));
  await c.eqf('transaction with lock: UPDATE (SELECT ... FOR UPDATE)', 'locked', async () => {
    await seq.transaction(async (t) => {
      const x = await Customer.findOne({ where: { region: 'us', id: 1 }, transaction: t, lock: t.LOCK.UPDATE });
      await x.update({ note: 'locked' }, { transaction: t });
    });
    return (await Customer.findOne({ where: { region: 'us', id: 1 } })).note;
  });

  const desc = await c.run('describeTable', () => qi.describeTable('orders'));
  if (desc) {
    c.eq('describeTable keys and types',
      { region: [true, 'VARCHAR(16)'], customer_id: [true, 'INT'], order_no: [true, 'INT'], qty: [false, 'INT'], price: [false, 'DECIMAL(10,2)'] },
      Object.fromEntries(Object.entries(desc).map(([k, v]) => [k, [v.primaryKey, v.type.replace('INT(11)', 'INT')]])));
  }
  const idx = await c.run('showIndex', () => qi.showIndex('customers'));
  if (idx) {
    c.eq('showIndex', indexOk ? ['PRIMARY', 'idx_customers_name'] : ['PRIMARY'], idx.map((i) => i.name));
  }
  const tables = await c.run('showAllTables', () => qi.showAllTables());
  c.eq('tables', ['customers', 'orders'], tables && tables.map((t) => (typeof t === 'string' ? t : t.tableName)).sort());
  await seq.close();
});
