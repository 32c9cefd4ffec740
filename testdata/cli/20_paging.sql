-- More rows than one store page (1000 entities): scans, ranges and LIMIT follow pages transparently.
DROP DATABASE IF EXISTS cli_paging;
CREATE DATABASE cli_paging;
USE cli_paging;

CREATE TABLE nums (
  p INT NOT NULL,
  n INT NOT NULL,
  sq BIGINT NOT NULL,
  tag VARCHAR(10),
  PRIMARY KEY (p, n)
);
CREATE TABLE digits (d INT NOT NULL PRIMARY KEY);
INSERT INTO digits VALUES (0), (1), (2), (3), (4), (5), (6), (7), (8), (9);
INSERT INTO nums (p, n, sq, tag)
  SELECT i % 2, i, i * i, CASE WHEN i % 7 = 0 THEN 'seven' ELSE NULL END
  FROM (SELECT a.d + 10 * b.d + 100 * c.d + 1000 * e.d AS i FROM digits a, digits b, digits c, digits e) s
  WHERE i < 2500;
SELECT ROW_COUNT();

SELECT COUNT(*), MIN(n), MAX(n), COUNT(tag) FROM nums;
SELECT p, COUNT(*), MIN(n), MAX(n) FROM nums GROUP BY p ORDER BY p;
-- one partition, more than a page
SELECT COUNT(*) FROM nums WHERE p = 0;
SELECT COUNT(*) FROM nums WHERE p = 1 AND n BETWEEN 100 AND 2200;
-- filter on a non-key column across pages
SELECT COUNT(*) FROM nums WHERE tag = 'seven';
SELECT n FROM nums WHERE sq > 6240000 ORDER BY n;
-- LIMIT / OFFSET deep into the key order
SELECT n FROM nums WHERE p = 1 ORDER BY n LIMIT 3 OFFSET 1200;
SELECT n FROM nums ORDER BY n DESC LIMIT 3;
SELECT p, n FROM nums ORDER BY p, n LIMIT 2 OFFSET 1249;
-- delete across pages
DELETE FROM nums WHERE n >= 1000;
SELECT ROW_COUNT();
SELECT COUNT(*), MAX(n) FROM nums;

DROP DATABASE cli_paging;
