-- Errors a client sees: duplicate keys (a failing multi-row INSERT changes nothing), NOT NULL, unknown and existing tables. The mariadb client runs with --force, so each error prints and the script goes on.
DROP DATABASE IF EXISTS cli_errors;
CREATE DATABASE cli_errors;
USE cli_errors;

CREATE TABLE accounts (
  id INT NOT NULL PRIMARY KEY,
  owner VARCHAR(40) NOT NULL
);
CREATE TABLE pairs (
  a VARCHAR(10) NOT NULL,
  b INT NOT NULL,
  PRIMARY KEY (a, b)
);
INSERT INTO accounts VALUES (1, 'ann'), (2, 'bob');
INSERT INTO pairs VALUES ('x', 1);

INSERT INTO accounts VALUES (2, 'dup');
INSERT INTO accounts VALUES (5, 'eve'), (1, 'dup');
SELECT * FROM accounts ORDER BY id;
INSERT INTO pairs VALUES ('x', 1);
INSERT INTO accounts (id) VALUES (8);
INSERT INTO accounts VALUES (NULL, 'x');
SELECT * FROM nosuchtable;
CREATE TABLE accounts (id INT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS accounts (id INT PRIMARY KEY);
SELECT * FROM accounts ORDER BY id;

DROP DATABASE cli_errors;
