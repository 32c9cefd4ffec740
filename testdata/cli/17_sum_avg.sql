-- SUM and AVG over INT and DECIMAL columns: result types, scale and NULLs.
DROP DATABASE IF EXISTS cli_sum;
CREATE DATABASE cli_sum;
USE cli_sum;

CREATE TABLE orders (
  customer_id INT NOT NULL,
  order_no INT NOT NULL,
  total DECIMAL(10,2) NOT NULL,
  qty INT,
  PRIMARY KEY (customer_id, order_no)
);
INSERT INTO orders VALUES (1, 1, 10.00, 1), (1, 2, 20.50, 2), (1, 3, 5.25, NULL), (2, 1, 100.00, 4), (3, 1, 1.00, 1), (3, 2, 2.00, 1);

SELECT customer_id, SUM(qty) AS sq, SUM(total) AS st FROM orders GROUP BY customer_id ORDER BY customer_id;
SELECT customer_id, SUM(qty) AS s FROM orders GROUP BY customer_id HAVING SUM(qty) > 2 ORDER BY s DESC;
SELECT SUM(qty), SUM(total), AVG(qty), AVG(total) FROM orders;
SELECT SUM(qty) FROM orders WHERE customer_id = 99;

DROP DATABASE cli_sum;
