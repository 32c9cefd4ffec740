-- A primary key with a case-insensitive collation: lookups and duplicates ignore case.
DROP DATABASE IF EXISTS cli_collation_key;
CREATE DATABASE cli_collation_key;
USE cli_collation_key;

CREATE TABLE codes (
  code VARCHAR(10) COLLATE utf8mb4_general_ci NOT NULL PRIMARY KEY,
  n INT
);
INSERT INTO codes VALUES ('abc', 1), ('Bcd', 2), ('CDE', 3);
SELECT * FROM codes WHERE code = 'ABC';
SELECT * FROM codes WHERE code = 'bcd';
SELECT * FROM codes WHERE code IN ('cde', 'XYZ');
SELECT code FROM codes WHERE code >= 'b' ORDER BY code;
INSERT INTO codes VALUES ('ABC', 9);
SELECT * FROM codes ORDER BY code;

DROP DATABASE cli_collation_key;
