-- String literals compare with the connection's default collation, which is case-insensitive in
-- MySQL (utf8mb4_0900_ai_ci) and MariaDB (utf8mb4_general_ci); DATE + INTERVAL stays a DATE.
SELECT 'a' = 'A', 'abc' LIKE 'A%', 'B' > 'a';
SELECT '2024-01-01' + INTERVAL 1 DAY, DATE('2024-01-01') + INTERVAL 1 MONTH;
