-- AUTO_INCREMENT, LAST_INSERT_ID(), DEFAULT values and DELETE without WHERE.
DROP DATABASE IF EXISTS cli_autoinc;
CREATE DATABASE cli_autoinc;
USE cli_autoinc;

CREATE TABLE logs (
  id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  msg VARCHAR(50),
  level VARCHAR(10) NOT NULL DEFAULT 'info',
  n INT DEFAULT 7
);
INSERT INTO logs (msg) VALUES ('a'), ('b');
SELECT LAST_INSERT_ID();
INSERT INTO logs (msg, level) VALUES ('c', 'warn');
SELECT LAST_INSERT_ID();
INSERT INTO logs (id, msg) VALUES (10, 'explicit');
INSERT INTO logs (msg) VALUES ('after');
SELECT LAST_INSERT_ID();
INSERT INTO logs (msg, n) VALUES ('null n', NULL);
SELECT * FROM logs ORDER BY id;
DELETE FROM logs;
SELECT ROW_COUNT();
SELECT COUNT(*) FROM logs;

DROP DATABASE cli_autoinc;
