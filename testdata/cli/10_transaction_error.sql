-- A failing statement inside a transaction: the statement changes nothing, the earlier ones stay and commit.
DROP DATABASE IF EXISTS cli_txnerr;
CREATE DATABASE cli_txnerr;
USE cli_txnerr;

CREATE TABLE kv (
  k VARCHAR(10) NOT NULL PRIMARY KEY,
  v INT
);
INSERT INTO kv VALUES ('a', 1);
BEGIN;
INSERT INTO kv VALUES ('d', 4);
INSERT INTO kv VALUES ('e', 5), ('a', 0);
SELECT * FROM kv ORDER BY k;
COMMIT;
SELECT * FROM kv ORDER BY k;

DROP DATABASE cli_txnerr;
