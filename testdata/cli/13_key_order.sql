-- Keys of several types come back in SQL order: negative numbers, strings, dates.
DROP DATABASE IF EXISTS cli_keyorder;
CREATE DATABASE cli_keyorder;
USE cli_keyorder;

CREATE TABLE ikeys (id INT NOT NULL PRIMARY KEY, n INT);
INSERT INTO ikeys VALUES (5, 1), (-5, 2), (0, 3), (-100, 4), (100, 5), (2147483647, 6), (-2147483648, 7);
SELECT id FROM ikeys ORDER BY id;
SELECT id FROM ikeys WHERE id < 2 ORDER BY id;
SELECT id FROM ikeys WHERE id BETWEEN -10 AND 10 ORDER BY id;
SELECT id FROM ikeys WHERE id > -6 ORDER BY id DESC LIMIT 2;

CREATE TABLE skeys (s VARCHAR(20) NOT NULL PRIMARY KEY, n INT);
INSERT INTO skeys VALUES ('b', 1), ('a', 2), ('ab', 3), ('a b', 4), ('B2', 5), ('', 6);
SELECT s, n FROM skeys ORDER BY s COLLATE utf8mb4_bin;
SELECT s FROM skeys WHERE s = 'ab';
SELECT s FROM skeys WHERE s > 'a' AND s < 'b' ORDER BY s COLLATE utf8mb4_bin;

CREATE TABLE dkeys (d DATE NOT NULL, n INT NOT NULL, PRIMARY KEY (d, n));
INSERT INTO dkeys VALUES ('2024-01-02', 1), ('2023-12-31', 2), ('2024-01-01', 3), ('2024-01-01', 1);
SELECT d, n FROM dkeys ORDER BY d, n;
SELECT d, n FROM dkeys WHERE d >= '2024-01-01' ORDER BY d, n;
SELECT d, n FROM dkeys WHERE d = '2024-01-01' AND n > 1;

DROP DATABASE cli_keyorder;
