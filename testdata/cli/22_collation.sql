-- A case-insensitive column: comparisons match regardless of case, whether the gateway pushes them
-- down or evaluates them itself (IN-lists: 23_collation_in.sql; keys: 24_collation_key.sql).
DROP DATABASE IF EXISTS cli_collation;
CREATE DATABASE cli_collation;
USE cli_collation;

CREATE TABLE people (
  id INT NOT NULL PRIMARY KEY,
  name VARCHAR(20) COLLATE utf8mb4_general_ci,
  tag VARCHAR(20) COLLATE utf8mb4_bin
);
INSERT INTO people VALUES (1, 'ann', 'x'), (2, 'Bob', 'X'), (3, 'CLARA', 'y'), (4, 'dave', NULL), (5, NULL, 'Y');

SELECT id FROM people WHERE name = 'ANN';
SELECT id FROM people WHERE name = 'bob';
SELECT id FROM people WHERE name > 'B' ORDER BY id;
SELECT id FROM people WHERE name >= 'b' AND name < 'D' ORDER BY id;
SELECT id FROM people WHERE name LIKE 'c%';
SELECT id, name FROM people ORDER BY name, id;
-- the binary column distinguishes case
SELECT id FROM people WHERE tag = 'x';
SELECT id FROM people WHERE tag = 'X';
SELECT id FROM people WHERE tag > 'Y' ORDER BY id;

DROP DATABASE cli_collation;
