-- SQL's NULL semantics in filters: <>, NOT, IN / NOT IN with NULLs, IS [NOT] NULL, <=>, and absent
-- (never written) values after ALTER TABLE ADD COLUMN.
DROP DATABASE IF EXISTS cli_nulls;
CREATE DATABASE cli_nulls;
USE cli_nulls;

CREATE TABLE t (
  k VARCHAR(5) NOT NULL,
  id INT NOT NULL,
  a INT,
  s VARCHAR(10),
  PRIMARY KEY (k, id)
);
INSERT INTO t VALUES ('p', 1, 1, 'x'), ('p', 2, NULL, 'y'), ('p', 3, 3, NULL), ('q', 1, NULL, NULL), ('q', 2, 2, 'x');

SELECT k, id FROM t WHERE a <> 1 ORDER BY k, id;
SELECT k, id FROM t WHERE NOT (a = 1) ORDER BY k, id;
SELECT k, id FROM t WHERE a IS NULL ORDER BY k, id;
SELECT k, id FROM t WHERE a IS NOT NULL AND k = 'p' ORDER BY id;
SELECT k, id FROM t WHERE a IN (1, NULL) ORDER BY k, id;
SELECT k, id FROM t WHERE a NOT IN (1, 2) ORDER BY k, id;
SELECT k, id FROM t WHERE a NOT IN (1, NULL) ORDER BY k, id;
SELECT k, id FROM t WHERE a <=> NULL ORDER BY k, id;
SELECT k, id FROM t WHERE s <> 'x' ORDER BY k, id;
SELECT k, id FROM t WHERE k = 'p' AND (a > 1 OR s = 'x') ORDER BY id;
SELECT k, id FROM t WHERE a < 3 OR a IS NULL ORDER BY k, id;
SELECT COUNT(a), COUNT(*), COUNT(s) FROM t;

ALTER TABLE t ADD COLUMN extra INT;
SELECT k, id FROM t WHERE extra IS NULL ORDER BY k, id;
SELECT k, id FROM t WHERE extra = 0 OR extra IS NULL ORDER BY k, id;
SELECT k, id FROM t WHERE extra <> 5 ORDER BY k, id;
UPDATE t SET extra = 5 WHERE k = 'q';
SELECT k, id FROM t WHERE extra <> 5 OR extra IS NULL ORDER BY k, id;

DROP DATABASE cli_nulls;
