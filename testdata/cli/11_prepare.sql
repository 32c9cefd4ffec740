-- SQL-level PREPARE / EXECUTE / DEALLOCATE PREPARE.
DROP DATABASE IF EXISTS cli_prepare;
CREATE DATABASE cli_prepare;
USE cli_prepare;

CREATE TABLE items (
  shop VARCHAR(10) NOT NULL,
  sku INT NOT NULL,
  name VARCHAR(40),
  price DECIMAL(8,2),
  PRIMARY KEY (shop, sku)
);

PREPARE ins FROM 'INSERT INTO items VALUES (?, ?, ?, ?)';
SET @s = 'north', @k = 1, @n = 'O''Brien''s tea', @p = 3.50;
EXECUTE ins USING @s, @k, @n, @p;
SET @k = 2, @n = 'coffee', @p = 4.25;
EXECUTE ins USING @s, @k, @n, @p;
SET @s = 'south', @k = 1, @n = NULL, @p = NULL;
EXECUTE ins USING @s, @k, @n, @p;
DEALLOCATE PREPARE ins;

PREPARE sel FROM 'SELECT shop, sku, name, price FROM items WHERE shop = ? AND sku = ?';
SET @s = 'north', @k = 1;
EXECUTE sel USING @s, @k;
SET @k = 2;
EXECUTE sel USING @s, @k;
SET @k = 3;
EXECUTE sel USING @s, @k;
DEALLOCATE PREPARE sel;

PREPARE rng FROM 'SELECT sku, name FROM items WHERE shop = ? AND sku >= ? ORDER BY sku';
SET @s = 'north', @k = 0;
EXECUTE rng USING @s, @k;
DEALLOCATE PREPARE rng;

PREPARE upd FROM 'UPDATE items SET price = price + ? WHERE shop = ?';
SET @d = 1;
EXECUTE upd USING @d, @s;
SELECT ROW_COUNT();
DEALLOCATE PREPARE upd;
SELECT * FROM items ORDER BY shop, sku;

DROP DATABASE cli_prepare;
