-- Keyless tables, RENAME TABLE, TRUNCATE, DROP TABLE.
DROP DATABASE IF EXISTS cli_ddl;
CREATE DATABASE cli_ddl;
USE cli_ddl;

CREATE TABLE people (
  id INT NOT NULL PRIMARY KEY,
  name VARCHAR(40) NOT NULL
);
CREATE TABLE notes (txt VARCHAR(20));
INSERT INTO people VALUES (1, 'ann'), (2, 'bob');
-- a keyless table keeps duplicate rows
INSERT INTO notes VALUES ('x'), ('x'), (NULL);
SELECT txt, COUNT(*) FROM notes GROUP BY txt ORDER BY txt;

RENAME TABLE people TO persons;
SHOW TABLES;
SELECT id, name FROM persons ORDER BY id;

TRUNCATE TABLE persons;
SELECT COUNT(*) FROM persons;
INSERT INTO persons (id, name) VALUES (3, 'cy');
SELECT id, name FROM persons;

DROP TABLE notes;
DROP TABLE IF EXISTS notes;
SHOW TABLES;

DROP DATABASE cli_ddl;
