-- Composite primary keys, a declared partition key, multi-row INSERT with quotes and NULLs, and reads by whole key, key prefix, IN-lists and ranges.
DROP DATABASE IF EXISTS cli_keys;
CREATE DATABASE cli_keys;
USE cli_keys;

CREATE TABLE orders (
  tenant VARCHAR(20) NOT NULL,
  id INT NOT NULL,
  customer VARCHAR(40),
  amount DECIMAL(10,2),
  note VARCHAR(100),
  PRIMARY KEY (tenant, id)
);

CREATE TABLE events (
  tenant VARCHAR(20) NOT NULL,
  region VARCHAR(10) NOT NULL,
  seq BIGINT NOT NULL,
  kind VARCHAR(20),
  PRIMARY KEY (tenant, region, seq)
) COMMENT 'sqlgw: partition_key=(tenant,region)';

INSERT INTO orders VALUES
  ('acme', 1, 'O''Brien', 10.50, 'first'),
  ('acme', 2, 'Smith', 99.99, NULL),
  ('acme', 3, NULL, 0.00, 'it''s "quoted"'),
  ('acme', 10, 'Zoë', 1234.56, 'unicode'),
  ('beta', 1, 'Jones', 5.00, 'back\\slash'),
  ('beta', 2, 'O''Brien', 7.25, NULL),
  ('gamma', 7, 'Li', NULL, '');

INSERT INTO events VALUES
  ('acme', 'eu', 1, 'login'),
  ('acme', 'eu', 2, 'logout'),
  ('acme', 'us', 1, 'login'),
  ('beta', 'eu', 5, 'login');

-- whole key: one row
SELECT * FROM orders WHERE tenant = 'acme' AND id = 2;
-- whole key, no row
SELECT * FROM orders WHERE tenant = 'acme' AND id = 99;
-- key prefix (one partition), key order
SELECT id, customer FROM orders WHERE tenant = 'acme' ORDER BY id;
-- range inside a partition
SELECT id, amount FROM orders WHERE tenant = 'acme' AND id BETWEEN 2 AND 10 ORDER BY id;
SELECT id FROM orders WHERE tenant = 'acme' AND id > 2 ORDER BY id;
-- range on the leading key column
SELECT tenant, id FROM orders WHERE tenant >= 'b' ORDER BY tenant, id;
-- IN-lists on the whole key
SELECT tenant, id, customer FROM orders WHERE (tenant, id) IN (('acme', 1), ('beta', 2), ('zzz', 1)) ORDER BY tenant, id;
SELECT tenant, id FROM orders WHERE tenant = 'beta' AND id IN (1, 2, 3) ORDER BY id;
SELECT tenant, id FROM orders WHERE (tenant = 'acme' AND id = 3) OR (tenant = 'gamma' AND id = 7) ORDER BY tenant, id;
-- NULL handling
SELECT tenant, id FROM orders WHERE customer IS NULL ORDER BY tenant, id;
SELECT tenant, id FROM orders WHERE note IS NOT NULL AND note <> '' ORDER BY tenant, id;
SELECT tenant, id FROM orders WHERE amount < 10 ORDER BY tenant, id;
SELECT tenant, id, customer FROM orders WHERE customer = 'O''Brien' ORDER BY tenant, id;
-- non-key predicates, ORDER BY a non-key column, LIMIT
SELECT tenant, id, amount FROM orders WHERE amount > 5 ORDER BY amount DESC;
SELECT tenant, id FROM orders ORDER BY tenant DESC, id DESC LIMIT 3;
SELECT tenant, id FROM orders ORDER BY tenant, id LIMIT 2 OFFSET 2;
SELECT id FROM orders WHERE tenant = 'acme' ORDER BY id LIMIT 2;
-- the declared partition key table
SELECT * FROM events WHERE tenant = 'acme' AND region = 'eu' ORDER BY seq;
SELECT * FROM events WHERE tenant = 'acme' AND region = 'eu' AND seq = 2;
SELECT * FROM events WHERE tenant = 'acme' ORDER BY region, seq;
SELECT COUNT(*) FROM events;

DROP DATABASE cli_keys;
