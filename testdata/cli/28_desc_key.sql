-- A primary key with a DESC column returns rows in SQL order either way.
DROP DATABASE IF EXISTS cli_desc;
CREATE DATABASE cli_desc;
USE cli_desc;

CREATE TABLE log (dev INT NOT NULL, ts INT NOT NULL, msg VARCHAR(10), PRIMARY KEY (dev, ts DESC));
INSERT INTO log VALUES (1, 10, 'a'), (1, 20, 'b'), (1, 30, 'c'), (1, 40, 'd'), (2, 15, 'x'), (2, -5, 'y');
SELECT ts, msg FROM log WHERE dev = 1 ORDER BY ts DESC LIMIT 2;
SELECT ts FROM log WHERE dev = 1 AND ts < 35 ORDER BY ts DESC;
SELECT ts FROM log WHERE dev = 1 AND ts BETWEEN 15 AND 30 ORDER BY ts;
SELECT dev, ts FROM log ORDER BY dev, ts;
SELECT dev, ts FROM log WHERE dev = 2 AND ts = -5;
SELECT dev, MAX(ts), MIN(ts) FROM log GROUP BY dev ORDER BY dev;

DROP DATABASE cli_desc;
