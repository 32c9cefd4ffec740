-- UPDATE and DELETE with WHERE clauses of every shape, and their affected-row counts.
DROP DATABASE IF EXISTS cli_update;
CREATE DATABASE cli_update;
USE cli_update;

CREATE TABLE accounts (
  id INT NOT NULL PRIMARY KEY,
  owner VARCHAR(40) NOT NULL,
  balance INT NOT NULL DEFAULT 0,
  status VARCHAR(10) DEFAULT 'open'
);

INSERT INTO accounts (id, owner, balance) VALUES (1, 'ann', 100), (2, 'bob', 50), (3, 'O''Brien', 0), (4, 'dan', 75), (5, 'eve', 20);
SELECT ROW_COUNT();
SELECT * FROM accounts ORDER BY id;

-- non-key predicate
UPDATE accounts SET balance = balance + 10 WHERE balance >= 50;
SELECT ROW_COUNT();
-- whole key; matches a row but changes nothing: 0 affected
UPDATE accounts SET status = 'open' WHERE id = 1;
SELECT ROW_COUNT();
-- no such row
UPDATE accounts SET status = 'closed' WHERE id = 99;
SELECT ROW_COUNT();
UPDATE accounts SET status = 'frozen' WHERE id = 3;
SELECT ROW_COUNT();
UPDATE accounts SET owner = CONCAT(owner, '!') WHERE id IN (1, 2);
SELECT ROW_COUNT();
SELECT * FROM accounts ORDER BY id;

DELETE FROM accounts WHERE id = 4;
SELECT ROW_COUNT();
DELETE FROM accounts WHERE id = 4;
SELECT ROW_COUNT();
DELETE FROM accounts WHERE id > 4;
SELECT ROW_COUNT();
SELECT id FROM accounts ORDER BY id;
DELETE FROM accounts WHERE status = 'frozen';
SELECT ROW_COUNT();
SELECT * FROM accounts ORDER BY id;

-- updating a key column moves the row
UPDATE accounts SET id = 10 WHERE id = 2;
SELECT ROW_COUNT();
SELECT * FROM accounts ORDER BY id;
SELECT * FROM accounts WHERE id = 2;
SELECT * FROM accounts WHERE id = 10;

DROP DATABASE cli_update;
