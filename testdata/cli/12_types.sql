-- Column types round-trip through the store.
DROP DATABASE IF EXISTS cli_types;
CREATE DATABASE cli_types;
USE cli_types;

CREATE TABLE t (
  id INT NOT NULL PRIMARY KEY,
  ti TINYINT,
  bi BIGINT,
  ub INT UNSIGNED,
  d DECIMAL(12,4),
  f DOUBLE,
  b BOOLEAN,
  s VARCHAR(30),
  c CHAR(3),
  tx TEXT,
  dt DATETIME,
  da DATE,
  vb VARBINARY(8)
);
INSERT INTO t VALUES
  (1, -128, -9223372036854775808, 0, -12345678.1234, -1.5, TRUE, 'abc', 'x', 'long text', '2024-02-29 23:59:59', '2024-02-29', X'00FF'),
  (2, 127, 9223372036854775807, 4294967295, 0.0001, 0, FALSE, '', 'xyz', '', '1970-01-01 00:00:00', '1000-01-01', X''),
  (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
  (-5, 0, 0, 1, 1.5, 2500.25, TRUE, 'Zoë', 'Ω', 'ünïcödé', '2038-01-19 03:14:08', '9999-12-31', X'41');
SELECT id, ti, bi, ub, d, f, b, s, c, tx, dt, da, HEX(vb) FROM t ORDER BY id;
SELECT id FROM t WHERE d > 0 ORDER BY id;
SELECT id FROM t WHERE dt >= '2000-01-01' ORDER BY id;
SELECT id FROM t WHERE b = TRUE ORDER BY id;
SELECT id FROM t WHERE ub > 1 ORDER BY id;

DROP DATABASE cli_types;
