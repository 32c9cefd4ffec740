-- ALTER TABLE ADD / DROP COLUMN on a populated table.
DROP DATABASE IF EXISTS cli_alter;
CREATE DATABASE cli_alter;
USE cli_alter;

CREATE TABLE people (
  id INT NOT NULL PRIMARY KEY,
  name VARCHAR(40) NOT NULL
);
INSERT INTO people VALUES (1, 'ann'), (2, 'bob');
ALTER TABLE people ADD COLUMN age INT;
SELECT * FROM people ORDER BY id;
UPDATE people SET age = 30 WHERE id = 1;
ALTER TABLE people ADD COLUMN city VARCHAR(20) NOT NULL DEFAULT 'none';
SELECT * FROM people ORDER BY id;
INSERT INTO people (id, name) VALUES (3, 'cy');
ALTER TABLE people DROP COLUMN city;
SELECT * FROM people ORDER BY id;

DROP DATABASE cli_alter;
