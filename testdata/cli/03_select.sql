-- GROUP BY, aggregates, joins, subqueries and window functions.
DROP DATABASE IF EXISTS cli_select;
CREATE DATABASE cli_select;
USE cli_select;

CREATE TABLE customers (
  id INT NOT NULL PRIMARY KEY,
  name VARCHAR(40) NOT NULL,
  country VARCHAR(2)
);
CREATE TABLE orders (
  customer_id INT NOT NULL,
  order_no INT NOT NULL,
  total DECIMAL(10,2) NOT NULL,
  PRIMARY KEY (customer_id, order_no)
);

INSERT INTO customers VALUES (1, 'Ann', 'DE'), (2, 'Bob', 'FR'), (3, 'O''Brien', 'IE'), (4, 'Dan', NULL);
INSERT INTO orders VALUES (1, 1, 10.00), (1, 2, 20.50), (1, 3, 5.25), (2, 1, 100.00), (3, 1, 1.00), (3, 2, 2.00);

SELECT customer_id, COUNT(*) AS n, SUM(total) AS s, MIN(total) AS lo, MAX(total) AS hi
  FROM orders GROUP BY customer_id ORDER BY customer_id;
SELECT customer_id, SUM(total) AS s FROM orders GROUP BY customer_id HAVING SUM(total) > 10 ORDER BY s DESC;
SELECT country, COUNT(*) FROM customers GROUP BY country ORDER BY country;

-- inner join
SELECT c.name, o.order_no, o.total
  FROM customers c JOIN orders o ON o.customer_id = c.id
  ORDER BY c.name, o.order_no;
-- join on the key of one customer
SELECT c.name, o.order_no FROM customers c JOIN orders o ON o.customer_id = c.id WHERE c.id = 1 ORDER BY o.order_no;
-- left join with the unmatched customer
SELECT c.name, COUNT(o.order_no) AS orders, COALESCE(SUM(o.total), 0) AS spent
  FROM customers c LEFT JOIN orders o ON o.customer_id = c.id
  GROUP BY c.id, c.name ORDER BY c.id;
-- subqueries
SELECT name FROM customers WHERE id IN (SELECT customer_id FROM orders WHERE total > 50) ORDER BY name;
SELECT name FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id) ORDER BY name;
SELECT name, (SELECT MAX(total) FROM orders o WHERE o.customer_id = c.id) AS biggest FROM customers c ORDER BY id;
-- derived table
SELECT t.customer_id, t.s FROM (SELECT customer_id, SUM(total) AS s FROM orders GROUP BY customer_id) t WHERE t.s < 50 ORDER BY t.customer_id;
-- window function
SELECT customer_id, order_no, total, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY total DESC) AS rk
  FROM orders ORDER BY customer_id, rk;
-- DISTINCT, expressions, string functions
SELECT DISTINCT customer_id FROM orders ORDER BY customer_id;
SELECT id, UPPER(name), LENGTH(name), CONCAT(name, '!') FROM customers ORDER BY id;
SELECT COUNT(*), COUNT(country), COUNT(DISTINCT country) FROM customers;
SELECT name FROM customers WHERE name LIKE 'O%' ORDER BY name;
SELECT id, CASE WHEN country IS NULL THEN 'unknown' ELSE country END AS c FROM customers ORDER BY id;

DROP DATABASE cli_select;
