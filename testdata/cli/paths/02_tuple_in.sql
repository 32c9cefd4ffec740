-- An IN-list of whole-key tuples is a MultiGet (one point get per key), never a scan.
DROP DATABASE IF EXISTS cli_tuple_in;
CREATE DATABASE cli_tuple_in;
USE cli_tuple_in;
CREATE TABLE orders (
  tenant VARCHAR(20) NOT NULL,
  id INT NOT NULL,
  amount INT,
  PRIMARY KEY (tenant, id)
);
INSERT INTO orders VALUES ('acme', 1, 10), ('acme', 2, 20), ('beta', 1, 40), ('gamma', 1, 50);

EXPLAIN SELECT * FROM orders WHERE (tenant, id) IN (('acme', 1), ('beta', 1));
EXPLAIN SELECT * FROM orders WHERE (tenant = 'acme' AND id = 2) OR (tenant = 'gamma' AND id = 1);

DROP DATABASE cli_tuple_in;
