# frozen_string_literal: true

# Active Record 6.1 (Debian ruby-activerecord) with its mysql2 adapter: the adapter's
# connect-time session setup (sql_mode, @@SESSION variables), create_database, migrations
# run by MigrationContext (schema_migrations, ar_internal_metadata, the GET_LOCK advisory
# lock), create_table with a composite primary key, add_index, the schema read back
# (columns, primary_keys, indexes, SchemaDumper), models and finders, aggregates,
# update_all/delete_all counts, insert_all/upsert_all, lock (FOR UPDATE), transactions
# with rollback and a nested savepoint (requires_new), and a second migrate that has
# nothing to do.
require 'bigdecimal'
require 'fileutils'
require 'stringio'
require 'tmpdir'
require 'logger'
require 'active_record'
require_relative 'compat'
include Compat

DB = 'compat_activerecord'
c = Checker.new
ActiveRecord::Migration.verbose = false
ActiveRecord::Base.logger = Logger.new(ENV['COMPAT_VERBOSE'] ? $stderr : File::NULL)
CONF = { adapter: 'mysql2', host: HOST, port: PORT, username: USER, password: PASSWORD, encoding: 'utf8mb4' }.freeze

c.run('create_database') do
  ActiveRecord::Base.establish_connection(CONF)
  ActiveRecord::Base.connection.drop_database(DB)
  ActiveRecord::Base.connection.create_database(DB)
end
ActiveRecord::Base.establish_connection(CONF.merge(database: DB))
conn = ActiveRecord::Base.connection

dir = Dir.mktmpdir('compat-ar')
at_exit { FileUtils.rm_rf(dir) }
File.write(File.join(dir, '20240101000001_create_shop.rb'), <<~RUBY)
  class CreateShop < ActiveRecord::Migration[6.1]
    def change
      create_table :customers, primary_key: [:region, :id] do |t|
        t.string :region, limit: 16, null: false
        t.integer :id, null: false
        t.string :name, limit: 64, null: false
        t.string :note, null: true
      end
      create_table :orders, primary_key: [:region, :customer_id, :order_no] do |t|
        t.string :region, limit: 16, null: false
        t.integer :customer_id, null: false
        t.integer :order_no, null: false
        t.integer :qty, null: false
        t.decimal :price, precision: 10, scale: 2
      end
      create_table :events do |t|
        t.string :what, null: false
        t.timestamps
      end
    end
  end
RUBY
File.write(File.join(dir, '20240101000002_add_name_index.rb'), <<~RUBY)
  class AddNameIndex < ActiveRecord::Migration[6.1]
    def change
      add_index :customers, :name, name: 'idx_customers_name'
    end
  end
RUBY

ctx = -> { ActiveRecord::MigrationContext.new([dir], ActiveRecord::SchemaMigration) }
c.run('migrate 0001 (composite primary keys, timestamps)') { ctx.call.up(20240101000001) }
c.index('migrate 0002 (secondary index)') { ctx.call.up(20240101000002) }
c.eqf('schema_migrations records both', %w[20240101000001 20240101000002]) { ctx.call.get_all_versions.map(&:to_s) }
c.eqf('nothing pending after migrate', false) { ctx.call.needs_migration? }
c.run('migrate again does nothing') { ctx.call.migrate }
c.eqf('ar_internal_metadata environment', 'default_env') do
  conn.select_value("SELECT value FROM ar_internal_metadata WHERE `key` = 'environment'")
end

class Customer < ActiveRecord::Base
  self.primary_key = nil # composite keys need Active Record 7.1
end

class Order < ActiveRecord::Base
  self.primary_key = nil
end

class Event < ActiveRecord::Base; end

# Rows of the keyless models after an AUTO_INCREMENT insert on the connection: create!
# would write LAST_INSERT_ID() to the (nil) primary key, so insert with insert_all!.
def add_customer(region, id, name, note = nil)
  Customer.insert_all!([{ region: region, id: id, name: name, note: note }])
end

c.eqf('primary_keys of orders', %w[region customer_id order_no]) { conn.primary_keys('orders') }
c.eqf('columns of customers (name, sql_type, null)',
      [['region', 'varchar(16)', false], ['id', 'int(11)', false], ['name', 'varchar(64)', false], ['note', 'varchar(255)', true]]) do
  conn.columns('customers').map { |col| [col.name, col.sql_type.sub(/\Aint\z/, 'int(11)'), col.null] }
end
c.eqf('indexes of customers', [['idx_customers_name', ['name'], false]]) do
  conn.indexes('customers').map { |i| [i.name, i.columns, i.unique] }
end
c.eqf('SchemaDumper writes the composite key and the index', [true, true]) do
  io = StringIO.new
  ActiveRecord::SchemaDumper.dump(conn, io)
  s = io.string
  [s.include?('create_table "customers", primary_key: ["region", "id"]'), s.include?('t.index ["name"], name: "idx_customers_name"')]
end

c.run('insert with create! (quotes, NULL)') do
  CUSTOMERS.each { |r, i, name, note| Customer.create!(region: r, id: i, name: name, note: note) }
end
c.eqf('insert_all of orders', 4) do
  Order.insert_all(ORDERS.map { |r, cid, no, qty, price| { region: r, customer_id: cid, order_no: no, qty: qty, price: price } }).length
  Order.count
end
c.eqf('find by composite key with quotes', ["O'Brien", "it's fragile"]) do
  x = Customer.find_by(region: 'eu', id: 1)
  [x.name, x.note]
end
c.eqf('read NULL by key', nil) { Customer.find_by!(region: 'eu', id: 2).note }
c.eqf('read by secondary-index column', [['eu', 1]]) { Customer.where(name: "O'Brien").pluck(:region, :id) }
c.eqf('read missing key', nil) { Customer.find_by(region: 'eu', id: 99) }
c.eqf('joins with group and sum', { ['eu', 1] => 30, ['eu', 2] => 5, ['us', 1] => 7 }) do
  Order.group(:region, :customer_id).sum(:qty)
end
c.eqf('raw join with aggregates: DECIMAL sums are BigDecimal',
      [["O'Brien", 2, BigDecimal('30'), BigDecimal('3.75')], ['Smith', 1, BigDecimal('5'), nil], ['Jones', 1, BigDecimal('7'), BigDecimal('3.00')]]) do
  conn.select_rows(<<~SQL)
    SELECT c.name, COUNT(*) AS n, SUM(o.qty) AS qty, SUM(o.price) AS total
    FROM customers c JOIN orders o ON o.region = c.region AND o.customer_id = c.id
    GROUP BY c.region, c.id, c.name ORDER BY c.region, c.id
  SQL
end
c.eqf('sum of a DECIMAL column', BigDecimal('6.75')) { Order.sum(:price) }
c.eqf('update_all count', 2) { Customer.where(region: 'eu').update_all(note: 'updated') }
c.eqf('update_all with no change counts matched rows (the adapter sets FOUND_ROWS)', 1) do
  Customer.where(region: 'eu', id: 1).update_all(note: 'updated')
end
c.eqf('delete_all count', 2) { Order.where(region: 'eu', customer_id: 1).delete_all }
c.eqf('upsert_all (ON DUPLICATE KEY UPDATE)', [2, 'upserted']) do
  Customer.upsert_all([{ region: 'us', id: 1, name: 'Jones', note: 'upserted' }, { region: 'us', id: 2, name: 'New', note: nil }])
  [Customer.where(region: 'us').count, Customer.find_by(region: 'us', id: 1).note]
end

c.eqf('model with AUTO_INCREMENT id and timestamps', [true, 'first']) do
  e = Event.create!(what: 'first')
  [e.id.positive? && !e.created_at.nil?, Event.find(e.id).what]
end
c.eqf('update and destroy a model', [1, 0]) do
  e = Event.create!(what: 'second')
  e.update!(what: 'changed')
  n = Event.where(what: 'changed').count
  e.destroy!
  [n, Event.where(what: 'changed').count]
end
c.eqf('find_or_create_by', [true, false]) do
  a = Event.find_or_create_by!(what: 'once')
  b = Event.find_or_create_by!(what: 'once')
  [a.previously_new_record?, b.previously_new_record?]
end

other = Class.new(ActiveRecord::Base) do
  self.abstract_class = true
  def self.name = 'OtherConnection'
end
other.establish_connection(CONF.merge(database: DB))
count_ap = -> { other.connection.select_value("SELECT COUNT(*) FROM customers WHERE region = 'ap'") }
c.eqf('transaction rolled back by ActiveRecord::Rollback', [0, 0]) do
  seen = nil
  Customer.transaction do
    add_customer('ap', 1, 'Rolled')
    seen = count_ap.call
    raise ActiveRecord::Rollback
  end
  [seen, count_ap.call]
end
c.eqf('transaction committed', 1) do
  Customer.transaction { add_customer('ap', 2, 'Kept', "it's kept") }
  count_ap.call
end
c.eqf('nested transaction (requires_new: SAVEPOINT) rolled back alone', [2, 3]) do
  Customer.transaction do
    add_customer('ap', 3, 'Before')
    Customer.transaction(requires_new: true) do
      add_customer('ap', 4, 'After')
      raise ActiveRecord::Rollback
    end
  end
  Customer.where(region: 'ap').order(:id).pluck(:id)
end
c.eqf('lock (SELECT ... FOR UPDATE) in a transaction', 'Smith') do
  Customer.transaction { Customer.lock.where(region: 'eu', id: 2).first.name }
end
c.eqf('RecordNotUnique on a duplicate key', 'ActiveRecord::RecordNotUnique') do
  add_customer('eu', 2, 'Dup')
  'no error'
rescue ActiveRecord::ActiveRecordError => e
  e.class.name
end
c.eqf('StatementInvalid for a missing table', 'ActiveRecord::StatementInvalid') do
  conn.select_all('SELECT * FROM nope')
  'no error'
rescue ActiveRecord::ActiveRecordError => e
  e.class.name
end
c.eqf('sanitize_sql round trip', ["it's \\ \"quoted\""]) do
  conn.select_rows(ActiveRecord::Base.sanitize_sql(['SELECT ?', "it's \\ \"quoted\""])).first
end
c.eqf('migration down (rollback) drops the index', []) do
  ctx.call.down(20240101000001)
  conn.indexes('customers').map(&:name)
end
c.finish
