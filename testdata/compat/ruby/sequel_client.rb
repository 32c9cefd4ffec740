# frozen_string_literal: true

# Sequel (Debian ruby-sequel) with its mysql2 adapter: Sequel::Migrator over a migrations
# folder (schema_migrations; create_table with a composite primary_key, add_index,
# alter_table add_column/set_column_type), migrating down and up again, schema parsing
# (db.schema, db.indexes, primary keys), Sequel::Model with a composite primary key and a
# one_to_many association over a composite key, datasets with where/join/group_and_count/
# sum, prepared statements with placeholders, update/delete counts,
# on_duplicate_key_update, import (multi-row insert), transactions with rollback, commit
# and savepoint: true, for_update, and Sequel::UniqueConstraintViolation.
require 'bigdecimal'
require 'fileutils'
require 'tmpdir'
require 'sequel'
require_relative 'compat'
include Compat

DB_NAME = 'compat_sequel'
c = Checker.new
opts = { adapter: 'mysql2', host: HOST, port: PORT, user: USER, password: PASSWORD, encoding: 'utf8mb4' }
Sequel.extension :migration

c.run('create database') do
  Sequel.connect(opts) do |db|
    db.run("DROP DATABASE IF EXISTS #{DB_NAME}")
    db.run("CREATE DATABASE #{DB_NAME}")
  end
end
DB = Sequel.connect(opts.merge(database: DB_NAME, max_connections: 4))

dir = Dir.mktmpdir('compat-sequel')
at_exit { FileUtils.rm_rf(dir) }
File.write(File.join(dir, '001_shop.rb'), <<~RUBY)
  Sequel.migration do
    change do
      create_table(:customers) do
        String :region, size: 16, null: false
        Integer :id, null: false
        String :name, size: 64, null: false
        String :note, size: 255
        primary_key [:region, :id]
      end
      create_table(:orders) do
        String :region, size: 16, null: false
        Integer :customer_id, null: false
        Integer :order_no, null: false
        Integer :qty, null: false
        BigDecimal :price, size: [10, 2]
        primary_key [:region, :customer_id, :order_no]
      end
    end
  end
RUBY
File.write(File.join(dir, '002_index.rb'), <<~RUBY)
  Sequel.migration do
    change do
      alter_table(:customers) do
        add_index :name, name: :idx_customers_name
        add_column :email, String, size: 64
      end
    end
  end
RUBY
File.write(File.join(dir, '003_widen.rb'), <<~RUBY)
  Sequel.migration do
    up { alter_table(:customers) { set_column_type :email, String, size: 128 } }
    down { alter_table(:customers) { set_column_type :email, String, size: 64 } }
  end
RUBY

c.run('Migrator.run to the latest version') { Sequel::Migrator.run(DB, dir) }
c.eqf('schema_info version', 3) { DB[:schema_info].get(:version) }
c.eqf('Migrator.is_current?', true) { Sequel::Migrator.is_current?(DB, dir) }
c.run('migrate down to 2 and up again') do
  Sequel::Migrator.run(DB, dir, target: 2)
  Sequel::Migrator.run(DB, dir)
end
c.eqf('db.schema of orders: primary key and types', [[:region, true, :string], [:customer_id, true, :integer], [:order_no, true, :integer], [:qty, false, :integer], [:price, false, :decimal]]) do
  DB.schema(:orders, reload: true).map { |name, info| [name, info[:primary_key], info[:type]] }
end
c.eqf('db.indexes of customers', { idx_customers_name: { columns: [:name], unique: false } }) do
  DB.indexes(:customers).transform_values { |v| { columns: v[:columns], unique: v[:unique] } }
end
c.eqf('email widened to varchar(128)', 'varchar(128)') { DB.schema(:customers, reload: true).to_h[:email][:db_type] }

class Order < Sequel::Model(DB[:orders])
  unrestrict_primary_key
end

class Customer < Sequel::Model(DB[:customers])
  unrestrict_primary_key
  one_to_many :orders, key: %i[region customer_id], primary_key: %i[region id]
end

c.eqf('Model primary key is composite', %i[region id]) { Customer.primary_key }
c.run('Model create (quotes, NULL)') do
  CUSTOMERS.each { |r, i, name, note| Customer.create(region: r, id: i, name: name, note: note) }
end
c.eqf('import (multi-row INSERT)', 4) do
  DB[:orders].import(%i[region customer_id order_no qty price], ORDERS)
  DB[:orders].count
end
c.eqf('Model[] with a composite key', ["O'Brien", "it's fragile"]) { Customer['eu', 1].values.values_at(:name, :note) }
c.eqf('read NULL by key', nil) { Customer['eu', 2].note }
c.eqf('missing key is nil', nil) { Customer['eu', 99] }
c.eqf('where on the indexed column', [['eu', 1]]) { Customer.where(name: "O'Brien").select_map(%i[region id]) }
c.eqf('one_to_many over a composite key', [2, 1, 1]) { Customer.order(:region, :id).all.map { |x| x.orders.size } }
c.eqf('join, group and sum (BigDecimal)', [["O'Brien", 2, BigDecimal('30'), BigDecimal('3.75')], ['Smith', 1, BigDecimal('5'), nil], ['Jones', 1, BigDecimal('7'), BigDecimal('3.00')]]) do
  DB[:customers].join(:orders, region: :region, customer_id: :id)
    .group(Sequel[:customers][:region], Sequel[:customers][:id], Sequel[:customers][:name])
    .order(Sequel[:customers][:region], Sequel[:customers][:id])
    .select(Sequel[:customers][:name], Sequel.function(:count).*.as(:n), Sequel.function(:sum, :qty).as(:qty), Sequel.function(:sum, :price).as(:total))
    .map { |r| r.values_at(:name, :n, :qty, :total) }
end
c.eqf('prepared statement with placeholders, called twice', [3, 1]) do
  ps = DB[:orders].where(region: :$r).prepare(:select, :orders_by_region)
  [ps.call(r: 'eu').size, ps.call(r: 'us').size]
end
c.eqf('update count', 2) { DB[:customers].where(region: 'eu').update(note: 'updated') }
c.eqf('delete count', 2) { DB[:orders].where(region: 'eu', customer_id: 1).delete }
c.eqf('on_duplicate_key_update (upsert)', 'upserted') do
  DB[:customers].on_duplicate_key_update(:note).insert(region: 'us', id: 1, name: 'Jones', note: 'upserted')
  Customer['us', 1].note
end

count_ap = -> { DB.synchronize { DB[:customers].where(region: 'ap').count } }
other = Sequel.connect(opts.merge(database: DB_NAME, max_connections: 1))
c.eqf('transaction rolled back by Sequel::Rollback', [0, 0]) do
  seen = nil
  DB.transaction do
    DB[:customers].insert(region: 'ap', id: 1, name: 'Rolled')
    seen = other[:customers].where(region: 'ap').count
    raise Sequel::Rollback
  end
  [seen, count_ap.call]
end
c.eqf('transaction committed', 1) do
  DB.transaction { DB[:customers].insert(region: 'ap', id: 2, name: 'Kept', note: "it's kept") }
  other[:customers].where(region: 'ap').count
end
c.eqf('savepoint: true rolled back alone', [2, 3]) do
  DB.transaction do
    DB[:customers].insert(region: 'ap', id: 3, name: 'Before')
    DB.transaction(savepoint: true) do
      DB[:customers].insert(region: 'ap', id: 4, name: 'After')
      raise Sequel::Rollback
    end
  end
  DB[:customers].where(region: 'ap').order(:id).select_map(:id)
end
c.eqf('for_update in a transaction', 'Smith') { DB.transaction { DB[:customers].where(region: 'eu', id: 2).for_update.get(:name) } }
c.eqf('duplicate key is Sequel::UniqueConstraintViolation', 'Sequel::UniqueConstraintViolation') do
  DB[:customers].insert(region: 'eu', id: 2, name: 'Dup')
  'no error'
rescue Sequel::DatabaseError => e
  e.class.name
end
c.eqf('literal escaping round trip', "it's \\ \"quoted\"") { DB.get(Sequel.lit('?', "it's \\ \"quoted\"")) }
other.disconnect
DB.disconnect
c.finish
