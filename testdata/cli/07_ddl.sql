-- DDL: SHOW, information_schema, ALTER TABLE, RENAME, TRUNCATE, DROP.
DROP DATABASE IF EXISTS cli_ddl;
CREATE DATABASE cli_ddl;
USE cli_ddl;

CREATE TABLE people (
  id INT NOT NULL PRIMARY KEY,
  name VARCHAR(40) NOT NULL
);
CREATE TABLE notes (txt VARCHAR(20));
SHOW TABLES;
SELECT table_name FROM information_schema.tables WHERE table_schema = 'cli_ddl' ORDER BY table_name;
SELECT column_name, ordinal_position, is_nullable, data_type
  FROM information_schema.columns WHERE table_schema = 'cli_ddl' AND table_name = 'people' ORDER BY ordinal_position;

INSERT INTO people VALUES (1, 'ann'), (2, 'bob');
ALTER TABLE people ADD COLUMN age INT;
ALTER TABLE people ADD COLUMN city VARCHAR(20) NOT NULL DEFAULT 'none';
SELECT * FROM people ORDER BY id;
UPDATE people SET age = 30 WHERE id = 1;
ALTER TABLE people DROP COLUMN city;
SELECT * FROM people ORDER BY id;

-- a keyless table keeps duplicate rows
INSERT INTO notes VALUES ('x'), ('x'), (NULL);
SELECT txt, COUNT(*) FROM notes GROUP BY txt ORDER BY txt;

RENAME TABLE people TO persons;
SELECT * FROM people;
SELECT id, name FROM persons ORDER BY id;

TRUNCATE TABLE persons;
SELECT COUNT(*) FROM persons;
INSERT INTO persons (id, name) VALUES (3, 'cy');
SELECT id, name, age FROM persons;

CREATE TABLE persons (id INT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS persons (id INT PRIMARY KEY);
DROP TABLE notes;
SELECT * FROM notes;
DROP TABLE IF EXISTS notes;
SHOW TABLES;

DROP DATABASE cli_ddl;
SHOW DATABASES LIKE 'cli_ddl';
