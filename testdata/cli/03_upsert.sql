-- INSERT IGNORE, INSERT ... ON DUPLICATE KEY UPDATE and REPLACE, with their affected-row counts.
DROP DATABASE IF EXISTS cli_upsert;
CREATE DATABASE cli_upsert;
USE cli_upsert;

CREATE TABLE accounts (
  id INT NOT NULL PRIMARY KEY,
  owner VARCHAR(40) NOT NULL,
  balance INT NOT NULL DEFAULT 0
);
INSERT INTO accounts VALUES (1, 'ann', 100), (2, 'bob', 50);

INSERT IGNORE INTO accounts (id, owner) VALUES (1, 'ignored'), (6, 'fay');
SELECT ROW_COUNT();
SELECT * FROM accounts ORDER BY id;

-- existing row updated: 2 affected
INSERT INTO accounts (id, owner, balance) VALUES (1, 'ann', 1) ON DUPLICATE KEY UPDATE balance = balance + VALUES(balance);
SELECT ROW_COUNT();
-- new row: 1 affected
INSERT INTO accounts (id, owner, balance) VALUES (7, 'gus', 7) ON DUPLICATE KEY UPDATE balance = balance + 1;
SELECT ROW_COUNT();
-- existing row, unchanged: 0 affected
INSERT INTO accounts (id, owner, balance) VALUES (7, 'gus', 7) ON DUPLICATE KEY UPDATE balance = 7;
SELECT ROW_COUNT();
SELECT * FROM accounts ORDER BY id;

-- REPLACE of an existing row: 2 affected; of a new row: 1
REPLACE INTO accounts (id, owner, balance) VALUES (2, 'bob2', 0);
SELECT ROW_COUNT();
REPLACE INTO accounts (id, owner, balance) VALUES (8, 'hal', 8);
SELECT ROW_COUNT();
SELECT * FROM accounts ORDER BY id;

DROP DATABASE cli_upsert;
