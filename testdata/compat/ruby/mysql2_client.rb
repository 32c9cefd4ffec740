# frozen_string_literal: true

# Ruby mysql2 (Debian ruby-mysql2, over libmariadb): text queries with client.escape,
# server-side prepared statements (client.prepare / stmt.execute), typed results (SUM over
# INT is BigDecimal, COUNT Integer), affected_rows and last_id, BEGIN/ROLLBACK/COMMIT seen
# from a second client, SAVEPOINT, streaming results, multi-statement results, async
# queries, errors with error_number/sql_state, ping.
require 'bigdecimal'
require 'mysql2'
require_relative 'compat'
include Compat

DB = 'compat_mysql2rb'
c = Checker.new

def connect(**kw)
  Mysql2::Client.new(host: HOST, port: PORT, username: USER, password: PASSWORD, encoding: 'utf8mb4', **kw)
end

admin = connect
c.run('create database') do
  admin.query("DROP DATABASE IF EXISTS #{DB}")
  admin.query("CREATE DATABASE #{DB}")
end
admin.close

db = connect(database: DB)
c.run('create tables (composite primary keys)') do
  db.query(<<~SQL)
    CREATE TABLE customers (region VARCHAR(16) NOT NULL, id INT NOT NULL,
      name VARCHAR(64) NOT NULL, note VARCHAR(255) NULL, PRIMARY KEY (region, id))
  SQL
  db.query(<<~SQL)
    CREATE TABLE orders (region VARCHAR(16) NOT NULL, customer_id INT NOT NULL,
      order_no INT NOT NULL, qty INT NOT NULL, price DECIMAL(10,2) NULL,
      PRIMARY KEY (region, customer_id, order_no))
  SQL
  db.query('CREATE TABLE events (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, what VARCHAR(32) NOT NULL)')
end
c.index('create secondary index') { db.query('CREATE INDEX idx_customers_name ON customers (name)') }

q = ->(v) { v.nil? ? 'NULL' : "'#{db.escape(v.to_s)}'" }
c.eqf('insert with escape (text protocol, NULL, quotes)', 3) do
  CUSTOMERS.sum do |r, i, name, note|
    db.query("INSERT INTO customers (region, id, name, note) VALUES (#{q[r]}, #{i}, #{q[name]}, #{q[note]})")
    db.affected_rows
  end
end
c.eqf('insert with a prepared statement (binary protocol, NULL)', 4) do
  st = db.prepare('INSERT INTO orders VALUES (?, ?, ?, ?, ?)')
  n = ORDERS.sum do |row|
    st.execute(*row.map { |v| v.is_a?(String) && v =~ /\A\d+\.\d+\z/ ? BigDecimal(v) : v })
    st.affected_rows
  end
  st.close
  n
end

sel = lambda do |sql, *args|
  st = db.prepare(sql)
  rows = st.execute(*args, as: :array).to_a
  st.close
  rows
end
c.eqf('read by key with quotes (prepared)', [["O'Brien", "it's fragile"]]) { sel.call('SELECT name, note FROM customers WHERE region = ? AND id = ?', 'eu', 1) }
c.eqf('read NULL by key (prepared)', [['Smith', nil]]) { sel.call('SELECT name, note FROM customers WHERE region = ? AND id = ?', 'eu', 2) }
c.eqf('read by secondary-index column (text)', [['eu', 1]]) do
  db.query("SELECT region, id FROM customers WHERE name = #{q["O'Brien"]}", as: :array).to_a
end
c.eqf('read missing key', []) { sel.call('SELECT name FROM customers WHERE region = ? AND id = ?', 'eu', 99) }
join = <<~SQL
  SELECT c.name, COUNT(*) AS n, SUM(o.qty) AS qty, SUM(o.price) AS total
  FROM customers c JOIN orders o ON o.region = c.region AND o.customer_id = c.id
  WHERE c.region <> ? GROUP BY c.region, c.id, c.name ORDER BY c.region, c.id
SQL
want = [["O'Brien", 2, BigDecimal('30'), BigDecimal('3.75')], ['Smith', 1, BigDecimal('5'), nil], ['Jones', 1, BigDecimal('7'), BigDecimal('3.00')]]
c.eqf('join with aggregate (prepared: BigDecimal sums, Integer count)', want) { sel.call(join, 'zz') }
c.eqf('join with aggregate (text)', want) { db.query(join.sub('?', "'zz'"), as: :array).to_a }
c.eqf('prepared statement re-executed', [3, 1, 1]) do
  st = db.prepare('SELECT COUNT(*) AS n FROM orders WHERE region = ? AND qty > ?')
  out = [['eu', 0], ['eu', 10], ['us', 0]].map { |a| st.execute(*a).first['n'] }
  st.close
  out
end

c.eqf('update affected_rows', 2) do
  db.query("UPDATE customers SET note = 'updated' WHERE region = 'eu'")
  db.affected_rows
end
c.eqf('update with no change affects 0 rows (no FOUND_ROWS flag)', 0) do
  st = db.prepare('UPDATE customers SET note = ? WHERE region = ? AND id = ?')
  st.execute('updated', 'eu', 1)
  st.affected_rows
end
found = connect(database: DB, flags: Mysql2::Client::FOUND_ROWS)
c.eqf('update with no change matches 1 with FOUND_ROWS', 1) do
  found.query("UPDATE customers SET note = 'updated' WHERE region = 'eu' AND id = 1")
  found.affected_rows
end
c.eqf('delete affected_rows', 2) do
  db.query("DELETE FROM orders WHERE region = 'eu' AND customer_id = 1")
  db.affected_rows
end
c.eqf('last_id after AUTO_INCREMENT inserts (text and prepared)', [1, 2]) do
  db.query("INSERT INTO events (what) VALUES ('first')")
  a = db.last_id
  st = db.prepare('INSERT INTO events (what) VALUES (?)')
  st.execute('second')
  [a, st.last_id]
end

other = connect(database: DB)
count_ap = -> { other.query("SELECT COUNT(*) AS n FROM customers WHERE region = 'ap'").first['n'] }
c.run('BEGIN') { db.query('BEGIN') }
db.query("INSERT INTO customers VALUES ('ap', 1, 'Rolled', NULL)")
c.eq('uncommitted insert invisible to another client', 0, count_ap.call)
c.run('ROLLBACK') { db.query('ROLLBACK') }
c.eq('ROLLBACK discards the insert', 0, count_ap.call)
db.query('START TRANSACTION')
db.query("INSERT INTO customers VALUES ('ap', 2, 'Kept', 'it''s kept')")
c.run('COMMIT') { db.query('COMMIT') }
c.eq('COMMIT keeps the insert', 1, count_ap.call)
db.query('BEGIN')
db.query("INSERT INTO customers VALUES ('ap', 3, 'Before', NULL)")
c.run('SAVEPOINT') { db.query('SAVEPOINT sp1') }
db.query("INSERT INTO customers VALUES ('ap', 4, 'After', NULL)")
c.run('ROLLBACK TO SAVEPOINT') { db.query('ROLLBACK TO SAVEPOINT sp1') }
db.query('COMMIT')
c.eqf('savepoint rolled back only the later insert', [[2], [3]]) do
  other.query("SELECT id FROM customers WHERE region = 'ap' ORDER BY id", as: :array).to_a
end

c.eqf('streaming result (stream: true, cache_rows: false)', 5) do
  n = 0
  db.query('SELECT region, id FROM customers', stream: true, cache_rows: false).each { n += 1 }
  n
end
multi = connect(database: DB, flags: Mysql2::Client::MULTI_STATEMENTS)
c.eqf('multiple statements, multiple results', [[[1]], [[2], [3]]]) do
  out = [multi.query('SELECT 1; SELECT 2 UNION ALL SELECT 3', as: :array).to_a]
  while multi.next_result
    out << multi.store_result.to_a
  end
  out
end
c.eqf('async query', 5) do
  a = connect(database: DB)
  a.query('SELECT COUNT(*) AS n FROM customers', async: true)
  IO.select([IO.for_fd(a.socket, autoclose: false)], nil, nil, 5)
  a.async_result.first['n']
end
c.eqf('parameter round trip (prepared)', ["it's \\ \"quoted\" \u00e9", nil]) do
  sel.call('SELECT ?, ?', "it's \\ \"quoted\" \u00e9", nil).first
end
[['text', -> { db.query("INSERT INTO customers VALUES ('eu', 2, 'Dup', NULL)") }],
 ['prepared', -> { db.prepare('INSERT INTO customers VALUES (?, ?, ?, ?)').execute('eu', 2, 'Dup', nil) }]].each do |mode, fn|
  fn.call
  c.fail_check("duplicate key is 1062 / 23000 (#{mode})", 'no error')
rescue Mysql2::Error => e
  c.eq("duplicate key is 1062 / 23000 (#{mode})", [1062, '23000'], [e.error_number, e.sql_state])
end
begin
  db.query('SELECT * FROM nope')
  c.fail_check('missing table is 1146 / 42S02', 'no error')
rescue Mysql2::Error => e
  c.eq('missing table is 1146 / 42S02', [1146, '42S02'], [e.error_number, e.sql_state])
end
c.eqf('ping', true) { db.ping }
c.eqf('server_info has a version', true) { db.server_info[:version].to_s =~ /\A\d+\.\d+/ ? true : false }
c.finish
