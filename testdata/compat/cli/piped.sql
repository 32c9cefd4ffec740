-- Piped into the client after schema.sql and data.sql, in one session.
SELECT name, note FROM customers WHERE region = 'eu' AND id = 1;
SELECT c.name AS name, COUNT(*) AS n, SUM(o.qty) AS qty, SUM(o.price) AS total
  FROM customers c JOIN orders o ON o.region = c.region AND o.customer_id = c.id
  GROUP BY c.region, c.id, c.name ORDER BY c.region, c.id;
UPDATE orders SET qty = qty + 1 WHERE region = 'eu';
SELECT ROW_COUNT() AS updated;
START TRANSACTION;
DELETE FROM orders WHERE region = 'us';
SELECT COUNT(*) AS in_tx FROM orders;
ROLLBACK;
SELECT COUNT(*) AS after_rollback FROM orders;
SET @min = 10;
PREPARE big FROM 'SELECT region, customer_id AS c, order_no AS o, qty FROM orders WHERE qty > ? ORDER BY region, customer_id, order_no';
EXECUTE big USING @min;
DEALLOCATE PREPARE big;
START TRANSACTION;
INSERT INTO customers VALUES ('us', 2, 'Two', 'tab	and \\ backslash');
SAVEPOINT a;
DELETE FROM customers WHERE region = 'us';
ROLLBACK TO SAVEPOINT a;
COMMIT;
SELECT id, name, note FROM customers WHERE region = 'us' ORDER BY id;
SELECT @total := SUM(qty) AS total FROM orders;
SELECT @total AS again;
