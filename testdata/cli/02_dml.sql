-- UPDATE and DELETE with affected-row counts, duplicate keys, INSERT IGNORE,
-- ON DUPLICATE KEY UPDATE, REPLACE, AUTO_INCREMENT and DEFAULTs.
DROP DATABASE IF EXISTS cli_dml;
CREATE DATABASE cli_dml;
USE cli_dml;

CREATE TABLE accounts (
  id INT NOT NULL PRIMARY KEY,
  owner VARCHAR(40) NOT NULL,
  balance INT NOT NULL DEFAULT 0,
  status VARCHAR(10) DEFAULT 'open'
);

INSERT INTO accounts (id, owner, balance) VALUES (1, 'ann', 100), (2, 'bob', 50), (3, 'O''Brien', 0), (4, 'dan', 75);
SELECT ROW_COUNT();
SELECT * FROM accounts ORDER BY id;

UPDATE accounts SET balance = balance + 10 WHERE balance >= 50;
SELECT ROW_COUNT();
-- matches a row but changes nothing: 0 affected
UPDATE accounts SET status = 'open' WHERE id = 1;
SELECT ROW_COUNT();
UPDATE accounts SET status = 'closed' WHERE id = 99;
SELECT ROW_COUNT();
UPDATE accounts SET status = 'frozen' WHERE id = 3;
SELECT ROW_COUNT();
SELECT * FROM accounts ORDER BY id;

DELETE FROM accounts WHERE id = 4;
SELECT ROW_COUNT();
DELETE FROM accounts WHERE id = 4;
SELECT ROW_COUNT();
SELECT id FROM accounts ORDER BY id;

-- duplicate primary key: error 1062, the statement changes nothing
INSERT INTO accounts (id, owner) VALUES (2, 'dup');
INSERT INTO accounts (id, owner) VALUES (5, 'eve'), (1, 'dup');
SELECT id, owner FROM accounts ORDER BY id;

INSERT IGNORE INTO accounts (id, owner) VALUES (1, 'ignored'), (6, 'fay');
SELECT ROW_COUNT();
SELECT id, owner FROM accounts ORDER BY id;

INSERT INTO accounts (id, owner, balance) VALUES (1, 'ann', 1) ON DUPLICATE KEY UPDATE balance = balance + VALUES(balance);
SELECT ROW_COUNT();
INSERT INTO accounts (id, owner, balance) VALUES (7, 'gus', 7) ON DUPLICATE KEY UPDATE balance = balance + 1;
SELECT ROW_COUNT();
REPLACE INTO accounts (id, owner, balance) VALUES (2, 'bob2', 0);
SELECT ROW_COUNT();
SELECT * FROM accounts ORDER BY id;

-- NOT NULL without a default
INSERT INTO accounts (id) VALUES (8);
INSERT INTO accounts (id, owner) VALUES (NULL, 'x');

CREATE TABLE logs (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  msg VARCHAR(50)
);
INSERT INTO logs (msg) VALUES ('a'), ('b');
INSERT INTO logs (msg) VALUES ('c');
SELECT LAST_INSERT_ID();
SELECT * FROM logs ORDER BY id;
DELETE FROM logs;
SELECT ROW_COUNT();
SELECT COUNT(*) FROM logs;

DROP DATABASE cli_dml;
