-- More errors a client sees: unknown columns and databases, values that do not fit, NULL into NOT NULL
-- on UPDATE, division by zero (NULL, no error).
DROP DATABASE IF EXISTS cli_errors2;
CREATE DATABASE cli_errors2;
USE cli_errors2;

CREATE TABLE t (id INT NOT NULL PRIMARY KEY, s VARCHAR(3) NOT NULL, n TINYINT);
INSERT INTO t VALUES (1, 'abc', 1);
SELECT nosuchcol FROM t;
SELECT * FROM t WHERE nosuchcol = 1;
USE nosuchdb;
INSERT INTO t VALUES (2, 'abcd', 1);
INSERT INTO t VALUES (3, 'x', 300);
UPDATE t SET s = NULL WHERE id = 1;
SELECT 1 / 0, 1 % 0;
SELECT * FROM t ORDER BY id;
DROP TABLE nosuchtable;
DROP DATABASE nosuchdb;

DROP DATABASE cli_errors2;
