-- Derived tables and window functions.
DROP DATABASE IF EXISTS cli_window;
CREATE DATABASE cli_window;
USE cli_window;

CREATE TABLE orders (
  customer_id INT NOT NULL,
  order_no INT NOT NULL,
  qty INT NOT NULL,
  PRIMARY KEY (customer_id, order_no)
);
INSERT INTO orders VALUES (1, 1, 10), (1, 2, 20), (1, 3, 5), (2, 1, 100), (3, 1, 1), (3, 2, 2);

-- derived table
SELECT t.customer_id, t.s FROM (SELECT customer_id, SUM(qty) AS s FROM orders GROUP BY customer_id) t WHERE t.s < 50 ORDER BY t.customer_id;
-- window functions
SELECT customer_id, order_no, qty, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY qty DESC) AS rk
  FROM orders ORDER BY customer_id, rk;
SELECT customer_id, order_no, SUM(qty) OVER (PARTITION BY customer_id ORDER BY order_no) AS running
  FROM orders ORDER BY customer_id, order_no;

DROP DATABASE cli_window;
