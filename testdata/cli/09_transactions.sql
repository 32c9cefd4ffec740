-- Transactions: read-your-writes, ROLLBACK, COMMIT, autocommit off and on.
DROP DATABASE IF EXISTS cli_txn;
CREATE DATABASE cli_txn;
USE cli_txn;

CREATE TABLE kv (
  k VARCHAR(10) NOT NULL PRIMARY KEY,
  v INT
);
INSERT INTO kv VALUES ('a', 1), ('b', 2);

BEGIN;
INSERT INTO kv VALUES ('c', 3);
UPDATE kv SET v = 20 WHERE k = 'b';
DELETE FROM kv WHERE k = 'a';
-- inside the transaction its own writes are visible
SELECT * FROM kv ORDER BY k;
SELECT * FROM kv WHERE k = 'c';
ROLLBACK;
SELECT * FROM kv ORDER BY k;

START TRANSACTION;
INSERT INTO kv VALUES ('c', 3);
UPDATE kv SET v = v * 10 WHERE k IN ('a', 'b');
SELECT ROW_COUNT();
COMMIT;
SELECT * FROM kv ORDER BY k;

SET autocommit = 0;
INSERT INTO kv VALUES ('e', 5);
ROLLBACK;
SELECT * FROM kv ORDER BY k;
INSERT INTO kv VALUES ('f', 6);
COMMIT;
SET autocommit = 1;
SELECT * FROM kv ORDER BY k;
SELECT @@autocommit;

DROP DATABASE cli_txn;
