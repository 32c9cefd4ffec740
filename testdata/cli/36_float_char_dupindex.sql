-- FLOAT and DOUBLE in text results as MySQL and MariaDB write them (my_gcvt), CHAR values
-- without their trailing spaces, and warning 1831 only for a real duplicate index
-- (twelfth session). The warning a real duplicate gets is not compared: MariaDB words it as a
-- Note of its own, MySQL 8.0 as a Warning naming the table (sqlgw/lead12_e2e_test.go checks it).
DROP DATABASE IF EXISTS cli_fcd;
CREATE DATABASE cli_fcd;
USE cli_fcd;

CREATE TABLE g (id INT NOT NULL PRIMARY KEY, f FLOAT, d DOUBLE);
INSERT INTO g VALUES
  (1, 1234567, 1234567),
  (2, 0.000012345678, 0.000012345678),
  (3, -1.5e-7, -1.5e-7),
  (4, 1e7, 1e16),
  (5, 123456.789, 1e300),
  (6, 1.1, 2.5),
  (7, 100, 123456789012345),
  (8, 3.4028234e38, 1234567890123456);
SELECT id, f, d FROM g ORDER BY id;
SELECT id, d * 2, f + 0 FROM g WHERE id IN (1, 6) ORDER BY id;
SELECT SUM(d) FROM g WHERE id IN (1, 4);
SELECT 1234567.0e0, 1e20, -2.5e25, 0.00001e0, 1e-300, 1.5e-7;

CREATE TABLE c (id INT NOT NULL PRIMARY KEY, ch CHAR(5), vc VARCHAR(5), k CHAR(4), KEY (k));
INSERT INTO c VALUES (1, 'ab  ', 'ab  ', 'x  '), (2, '  a ', '  a ', 'x'), (3, '', '', ' ');
SELECT id, CONCAT('[', ch, ']'), LENGTH(ch), CONCAT('[', vc, ']'), CONCAT('[', k, ']') FROM c ORDER BY id;
SELECT id FROM c WHERE ch = 'ab';
SELECT id FROM c WHERE k = 'x' ORDER BY id;
UPDATE c SET ch = 'q   ' WHERE id = 3;
SELECT CONCAT('[', ch, ']') FROM c WHERE id = 3;

CREATE TABLE ix (id INT NOT NULL PRIMARY KEY, a INT, b INT, KEY (a), KEY (b));
SHOW WARNINGS;
CREATE INDEX iab ON ix (a, b);
SHOW WARNINGS;

DROP DATABASE cli_fcd;
