-- Comparisons that convert types: string literals against numeric keys and columns, numbers against
-- strings, fractions against integers, dates against strings. The store filter must never drop a row
-- SQL would return.
DROP DATABASE IF EXISTS cli_conv;
CREATE DATABASE cli_conv;
USE cli_conv;

CREATE TABLE t (
  id INT NOT NULL PRIMARY KEY,
  s VARCHAR(10),
  d DECIMAL(6,2),
  f DOUBLE,
  dt DATE,
  big BIGINT
);
INSERT INTO t VALUES
  (1, '1', 1.00, 1.0, '2024-01-01', 10),
  (2, '2', 2.50, 2.5, '2024-01-02', 20),
  (3, '10', 10.00, 10.0, '2024-02-01', 30),
  (4, 'abc', NULL, NULL, NULL, NULL),
  (5, ' 5', 5.00, 5.0, '2023-12-31', 9007199254740993);

SELECT id FROM t WHERE id = '2';
SELECT id FROM t WHERE id = 2.0;
SELECT id FROM t WHERE id = 2.5;
SELECT id FROM t WHERE id IN ('1', 3);
SELECT id FROM t WHERE id > '2' ORDER BY id;
SELECT id FROM t WHERE id BETWEEN 1.5 AND 3.5 ORDER BY id;
SELECT id FROM t WHERE d = 2.5;
SELECT id FROM t WHERE d = '2.50';
SELECT id FROM t WHERE d > 2 ORDER BY id;
SELECT id FROM t WHERE f = 2.5;
SELECT id FROM t WHERE f < 5 ORDER BY id;
SELECT id FROM t WHERE d = f ORDER BY id;
SELECT id FROM t WHERE dt = '2024-01-02';
SELECT id FROM t WHERE dt >= '2024-01-01' ORDER BY id;
SELECT id FROM t WHERE big = 9007199254740993;
SELECT id FROM t WHERE big > 15 ORDER BY id;
SELECT id FROM t WHERE s = '10';
SELECT id FROM t WHERE s > '2' ORDER BY id;
SELECT id FROM t WHERE s IN ('1', 'abc') ORDER BY id;

DROP DATABASE cli_conv;
