-- START TRANSACTION READ ONLY: reads work, writes are refused with an error (the connection stays up).
DROP DATABASE IF EXISTS cli_readonly;
CREATE DATABASE cli_readonly;
USE cli_readonly;

CREATE TABLE t (a INT NOT NULL PRIMARY KEY, b VARCHAR(10));
INSERT INTO t VALUES (1, 'one'), (2, 'two');

START TRANSACTION READ ONLY;
SELECT * FROM t ORDER BY a;
UPDATE t SET b = 'uno' WHERE a = 1;
INSERT INTO t VALUES (3, 'three');
DELETE FROM t WHERE a = 2;
COMMIT;
SELECT * FROM t ORDER BY a;

DROP DATABASE cli_readonly;
