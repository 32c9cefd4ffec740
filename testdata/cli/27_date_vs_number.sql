-- A DATE column compared with a number: MySQL compares them as dates/numbers, not as strings.
DROP DATABASE IF EXISTS cli_datenum;
CREATE DATABASE cli_datenum;
USE cli_datenum;

CREATE TABLE t (id INT NOT NULL PRIMARY KEY, dt DATE);
INSERT INTO t VALUES (1, '2024-01-01'), (2, '2024-01-02'), (3, '2024-02-01'), (4, NULL), (5, '2023-12-31');
SELECT id FROM t WHERE dt < 20240102 ORDER BY id;
SELECT id FROM t WHERE dt = 20240201;
SELECT id FROM t WHERE dt BETWEEN 20231231 AND 20240101 ORDER BY id;

DROP DATABASE cli_datenum;
