-- String functions over binary strings keep them binary.
DROP DATABASE IF EXISTS cli_binstr;
CREATE DATABASE cli_binstr;
USE cli_binstr;

CREATE TABLE b (id INT NOT NULL PRIMARY KEY, v VARBINARY(20));
INSERT INTO b VALUES (1, REPEAT(X'00FF', 2)), (2, CONCAT(X'FF', X'00')), (3, X'C3');
SELECT id, HEX(v), LENGTH(v) FROM b ORDER BY id;
SELECT HEX(REPEAT(X'00FF', 2)), HEX(CONCAT(X'FF', 'a')), HEX(SUBSTRING(X'00FF10', 2));

DROP DATABASE cli_binstr;
