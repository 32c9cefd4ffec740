-- An IN-list on a case-insensitive column matches regardless of case.
DROP DATABASE IF EXISTS cli_collation_in;
CREATE DATABASE cli_collation_in;
USE cli_collation_in;

CREATE TABLE people (
  id INT NOT NULL PRIMARY KEY,
  name VARCHAR(20) COLLATE utf8mb4_general_ci,
  tag VARCHAR(20) COLLATE utf8mb4_bin
);
INSERT INTO people VALUES (1, 'ann', 'x'), (2, 'Bob', 'X'), (3, 'CLARA', 'y'), (4, 'dave', NULL), (5, NULL, 'Y');

SELECT id FROM people WHERE name IN ('clara', 'DAVE') ORDER BY id;
SELECT id FROM people WHERE name NOT IN ('ANN', 'bob') ORDER BY id;
SELECT id FROM people WHERE name = 'clara' OR name = 'DAVE' ORDER BY id;
-- Without ORDER BY (the engine's short analysis path for a single-table SELECT).
SELECT id FROM people WHERE name IN ('clara', 'DAVE');

DROP DATABASE cli_collation_in;
