INSERT INTO customers (region, id, name, note) VALUES
  ('eu', 1, 'O''Brien', 'it''s fragile'),
  ('eu', 2, 'Smith', NULL),
  ('us', 1, 'Jones', 'plain');
INSERT INTO orders (region, customer_id, order_no, qty, price) VALUES
  ('eu', 1, 1, 10, 1.50),
  ('eu', 1, 2, 20, 2.25),
  ('eu', 2, 1, 5, NULL),
  ('us', 1, 1, 7, 3.00);
