-- A table of assorted column types, so the dump round trip covers quoting and types.
CREATE TABLE kinds (
  k INT NOT NULL,
  sub VARCHAR(8) NOT NULL,
  big BIGINT NULL,
  dbl DOUBLE NULL,
  dec_v DECIMAL(12,4) NULL,
  ts DATETIME NULL,
  d DATE NULL,
  txt TEXT NULL,
  bin VARBINARY(16) NULL,
  flag TINYINT(1) NULL,
  PRIMARY KEY (k, sub)
);
INSERT INTO kinds VALUES
  (1, 'a', 9007199254740993, 1.5, 12345678.1234, '2024-02-29 23:59:58', '2024-02-29',
   'line one\nline two\twith tab', X'00FF10', 1),
  (1, 'b', -1, -0.25, -0.0001, '1999-12-31 00:00:00', '1970-01-01',
   'Zoë € ✓ and O''Brien \\ back', X'', 0),
  (2, 'a', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
