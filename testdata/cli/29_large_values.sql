-- Values beyond the store's per-property (64 KiB) and per-entity (1 MiB) limits round-trip intact.
DROP DATABASE IF EXISTS cli_large;
CREATE DATABASE cli_large;
USE cli_large;

CREATE TABLE docs (id INT NOT NULL PRIMARY KEY, body LONGTEXT, bin LONGBLOB, note VARCHAR(10));
INSERT INTO docs VALUES (1, REPEAT('a', 70000), NULL, 'small'),
                        (2, REPEAT('0123456789', 150000), UNHEX(REPEAT('00FF', 300000)), 'big'),
                        (3, '', X'', NULL);
SELECT id, LENGTH(body), MD5(body), LENGTH(bin), MD5(bin), note FROM docs ORDER BY id;
SELECT id FROM docs WHERE body LIKE '%89012%' ORDER BY id;
UPDATE docs SET body = 'short', bin = NULL WHERE id = 2;
SELECT id, LENGTH(body), body, bin FROM docs WHERE id = 2;
DELETE FROM docs WHERE id = 1;
SELECT id, LENGTH(body) FROM docs ORDER BY id;

DROP DATABASE cli_large;
