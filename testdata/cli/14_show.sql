-- SHOW TABLES and information_schema reflect the schema (columns aliased: MySQL and MariaDB spell information_schema headers differently).
DROP DATABASE IF EXISTS cli_show;
CREATE DATABASE cli_show;
USE cli_show;

CREATE TABLE people (
  id INT NOT NULL PRIMARY KEY,
  name VARCHAR(40) NOT NULL,
  age INT
);
CREATE TABLE notes (txt VARCHAR(20));
SHOW TABLES;
SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'cli_show' ORDER BY t;
SELECT column_name AS c, ordinal_position AS pos, is_nullable AS nullable, data_type AS type, column_key AS k
  FROM information_schema.columns WHERE table_schema = 'cli_show' AND table_name = 'people' ORDER BY pos;

DROP DATABASE cli_show;
