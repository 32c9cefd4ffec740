-- The tables every hand-written compat client uses: composite primary keys; the
-- secondary index is created by a separate statement (see idx_customers_name).
CREATE TABLE customers (
  region VARCHAR(16) NOT NULL,
  id INT NOT NULL,
  name VARCHAR(64) NOT NULL,
  note VARCHAR(255) NULL,
  PRIMARY KEY (region, id)
);
CREATE TABLE orders (
  region VARCHAR(16) NOT NULL,
  customer_id INT NOT NULL,
  order_no INT NOT NULL,
  qty INT NOT NULL,
  price DECIMAL(10,2) NULL,
  PRIMARY KEY (region, customer_id, order_no)
);
