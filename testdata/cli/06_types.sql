-- Column types round-trip through the store, and keys of several types sort as SQL sorts.
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
  (-5, 0, 0, 1, 1.5, 1e10, TRUE, 'Zoë', 'Ω', 'ünïcödé', '2038-01-19 03:14:08', '9999-12-31', X'41');
SELECT id, ti, bi, ub, d, f, b, s, c, tx, dt, da, HEX(vb) FROM t ORDER BY id;

-- negative and positive integer keys in SQL order
SELECT id FROM t WHERE id < 2 ORDER BY id;
SELECT id FROM t WHERE id BETWEEN -10 AND 1 ORDER BY id;

CREATE TABLE skeys (s VARCHAR(20) NOT NULL PRIMARY KEY, n INT);
INSERT INTO skeys VALUES ('b', 1), ('a', 2), ('ab', 3), ('a b', 4), ('B2', 5), ('', 6);
SELECT s, n FROM skeys ORDER BY s COLLATE utf8mb4_bin;
SELECT s FROM skeys WHERE s = 'ab';

CREATE TABLE dkeys (d DATE NOT NULL, n INT NOT NULL, PRIMARY KEY (d, n));
INSERT INTO dkeys VALUES ('2024-01-02', 1), ('2023-12-31', 2), ('2024-01-01', 3), ('2024-01-01', 1);
SELECT d, n FROM dkeys WHERE d >= '2024-01-01' ORDER BY d, n;

DROP DATABASE cli_types;
