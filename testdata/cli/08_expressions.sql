-- DISTINCT, expressions, string functions, CASE and LIKE.
DROP DATABASE IF EXISTS cli_expr;
CREATE DATABASE cli_expr;
USE cli_expr;

CREATE TABLE customers (
  id INT NOT NULL PRIMARY KEY,
  name VARCHAR(40) NOT NULL,
  country VARCHAR(2)
);
INSERT INTO customers VALUES (1, 'Ann', 'DE'), (2, 'Bob', 'FR'), (3, 'O''Brien', 'IE'), (4, 'Dan', NULL), (5, 'Otto', 'DE');

SELECT DISTINCT country FROM customers ORDER BY country;
SELECT id, UPPER(name), LENGTH(name), CONCAT(name, '!'), id * 2 + 1 FROM customers ORDER BY id;
SELECT COUNT(*), COUNT(country), COUNT(DISTINCT country) FROM customers;
SELECT name FROM customers WHERE name LIKE 'O%' ORDER BY name;
SELECT name FROM customers WHERE name LIKE '%''%' ORDER BY name;
SELECT id, CASE WHEN country IS NULL THEN 'unknown' ELSE country END AS c FROM customers ORDER BY id;
SELECT id, IFNULL(country, '--') FROM customers WHERE id BETWEEN 3 AND 4 ORDER BY id;
SELECT id FROM customers WHERE country IN ('DE', 'IE') ORDER BY id;
SELECT id FROM customers WHERE country NOT IN ('DE') ORDER BY id;
SELECT id FROM customers WHERE id <> 3 AND country = 'DE' ORDER BY id;

DROP DATABASE cli_expr;
