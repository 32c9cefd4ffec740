-- Joins and subqueries (derived tables and window functions: 18_derived_window.sql).
DROP DATABASE IF EXISTS cli_join;
CREATE DATABASE cli_join;
USE cli_join;

CREATE TABLE customers (
  id INT NOT NULL PRIMARY KEY,
  name VARCHAR(40) NOT NULL,
  country VARCHAR(2)
);
CREATE TABLE orders (
  customer_id INT NOT NULL,
  order_no INT NOT NULL,
  qty INT NOT NULL,
  PRIMARY KEY (customer_id, order_no)
);
INSERT INTO customers VALUES (1, 'Ann', 'DE'), (2, 'Bob', 'FR'), (3, 'O''Brien', 'IE'), (4, 'Dan', NULL);
INSERT INTO orders VALUES (1, 1, 10), (1, 2, 20), (1, 3, 5), (2, 1, 100), (3, 1, 1), (3, 2, 2);

-- inner join
SELECT c.name, o.order_no, o.qty
  FROM customers c JOIN orders o ON o.customer_id = c.id
  ORDER BY c.name, o.order_no;
-- join restricted to one customer's key
SELECT c.name, o.order_no FROM customers c JOIN orders o ON o.customer_id = c.id WHERE c.id = 1 ORDER BY o.order_no;
-- left join keeps the customer without orders
SELECT c.name, COUNT(o.order_no) AS orders, COALESCE(SUM(o.qty), 0) AS items
  FROM customers c LEFT JOIN orders o ON o.customer_id = c.id
  GROUP BY c.id, c.name ORDER BY c.id;
SELECT c.country, COUNT(*) FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.country ORDER BY c.country;
-- subqueries
SELECT name FROM customers WHERE id IN (SELECT customer_id FROM orders WHERE qty > 50) ORDER BY name;
SELECT name FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id) ORDER BY name;
SELECT name, (SELECT MAX(qty) FROM orders o WHERE o.customer_id = c.id) AS biggest FROM customers c ORDER BY id;
DROP DATABASE cli_join;
