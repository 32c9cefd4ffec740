-- Updating a row whose values span many store entities (a 1.5 MB text) keeps it whole.
DROP DATABASE IF EXISTS cli_large_update;
CREATE DATABASE cli_large_update;
USE cli_large_update;

CREATE TABLE docs (id INT NOT NULL PRIMARY KEY, body LONGTEXT);
INSERT INTO docs VALUES (2, REPEAT('0123456789', 150000));
UPDATE docs SET body = CONCAT(body, 'tail') WHERE id = 2;
SELECT id, LENGTH(body), RIGHT(body, 6) FROM docs WHERE id = 2;
UPDATE docs SET body = 'short' WHERE id = 2;
SELECT id, LENGTH(body), body FROM docs WHERE id = 2;

DROP DATABASE cli_large_update;
