-- A DESC key column (log tail pattern): ORDER BY ts DESC LIMIT n reads only the first n entities of
-- the partition, in one request, with no sort.
DROP DATABASE IF EXISTS cli_logtail;
CREATE DATABASE cli_logtail;
USE cli_logtail;
CREATE TABLE log (dev INT NOT NULL, ts INT NOT NULL, msg VARCHAR(10), PRIMARY KEY (dev, ts DESC));
INSERT INTO log VALUES (1, 10, 'a'), (1, 20, 'b'), (1, 30, 'c'), (1, 40, 'd'), (2, 15, 'x');

EXPLAIN SELECT ts, msg FROM log WHERE dev = 1 ORDER BY ts DESC LIMIT 2;
SHOW SESSION STATUS LIKE 'Sqlgw%';
SELECT ts, msg FROM log WHERE dev = 1 ORDER BY ts DESC LIMIT 2;
SHOW SESSION STATUS LIKE 'Sqlgw%';

DROP DATABASE cli_logtail;
