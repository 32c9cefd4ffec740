-- GROUP BY, HAVING and COUNT/MIN/MAX (SUM and AVG: 17_sum_avg.sql).
DROP DATABASE IF EXISTS cli_agg;
CREATE DATABASE cli_agg;
USE cli_agg;

CREATE TABLE orders (
  customer_id INT NOT NULL,
  order_no INT NOT NULL,
  total DECIMAL(10,2) NOT NULL,
  qty INT,
  PRIMARY KEY (customer_id, order_no)
);
INSERT INTO orders VALUES (1, 1, 10.00, 1), (1, 2, 20.50, 2), (1, 3, 5.25, NULL), (2, 1, 100.00, 4), (3, 1, 1.00, 1), (3, 2, 2.00, 1);

SELECT customer_id, COUNT(*) AS n, COUNT(qty) AS nq, MIN(total) AS lo, MAX(total) AS hi
  FROM orders GROUP BY customer_id ORDER BY customer_id;
SELECT customer_id, COUNT(*) AS n FROM orders GROUP BY customer_id HAVING COUNT(*) > 1 ORDER BY n DESC;
SELECT COUNT(*), MIN(order_no), MAX(order_no), MAX(qty) FROM orders;
SELECT COUNT(*) FROM orders WHERE customer_id = 1;
SELECT COUNT(*) FROM orders WHERE customer_id = 99;

DROP DATABASE cli_agg;
