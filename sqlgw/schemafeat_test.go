package sqlgw_test

import (
	"strings"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
)

// sakila's and Django's schemas: ON UPDATE CURRENT_TIMESTAMP columns are
// stored and applied by UPDATE, as MySQL 8 does.
func TestOnUpdateCurrentTimestamp(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := sqltest.NewRunner(t, ts.Session("d"))
		c.Exec("CREATE TABLE actor (actor_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT, first_name VARCHAR(45) NOT NULL, " +
			"last_update TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, " +
			"touched DATETIME(3) NULL ON UPDATE CURRENT_TIMESTAMP(3), PRIMARY KEY (actor_id))")
		create := strings.Join(c.Rows("SHOW CREATE TABLE actor"), "\n")
		for _, want := range []string{
			"`last_update` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP",
			"`touched` datetime(3) ON UPDATE CURRENT_TIMESTAMP(3)",
		} {
			if !strings.Contains(create, want) {
				t.Errorf("SHOW CREATE TABLE lacks %q:\n%s", want, create)
			}
		}
		c.ExpectRows("SELECT COLUMN_NAME, EXTRA FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 'actor' ORDER BY ORDINAL_POSITION",
			"actor_id\tauto_increment", "first_name\t", "last_update\tDEFAULT_GENERATED on update CURRENT_TIMESTAMP", "touched\ton update CURRENT_TIMESTAMP(3)")

		c.Exec("INSERT INTO actor (first_name, last_update) VALUES ('PENELOPE', '2006-02-15 04:34:33'), ('NICK', '2006-02-15 04:34:33')")
		c.ExpectRows("SELECT actor_id, last_update, touched FROM actor ORDER BY actor_id",
			"1\t2006-02-15 04:34:33\tNULL", "2\t2006-02-15 04:34:33\tNULL")
		// An UPDATE that changes nothing does not touch the columns.
		c.Exec("UPDATE actor SET first_name = 'PENELOPE' WHERE actor_id = 1")
		c.ExpectRows("SELECT last_update, touched FROM actor WHERE actor_id = 1", "2006-02-15 04:34:33\tNULL")
		before := time.Now().UTC().Add(-2 * time.Minute).Format("2006-01-02 15:04:05")
		c.Exec("UPDATE actor SET first_name = 'PENNY' WHERE actor_id = 1")
		c.ExpectRows("SELECT last_update > '"+before+"', touched > '"+before+"' FROM actor WHERE actor_id = 1", "1\t1")
		// The other row is untouched.
		c.ExpectRows("SELECT last_update, touched FROM actor WHERE actor_id = 2", "2006-02-15 04:34:33\tNULL")
		// An explicit assignment wins.
		c.Exec("UPDATE actor SET first_name = 'NICKY', last_update = '2020-01-01 00:00:00' WHERE actor_id = 2")
		c.ExpectRows("SELECT last_update, touched > '"+before+"' FROM actor WHERE actor_id = 2", "2020-01-01 00:00:00\t1")
		// ON DUPLICATE KEY UPDATE is an update too.
		c.Exec("UPDATE actor SET last_update = '2001-01-01 00:00:00', touched = NULL")
		c.Exec("INSERT INTO actor (actor_id, first_name) VALUES (1, 'X') ON DUPLICATE KEY UPDATE first_name = 'Y'")
		c.ExpectRows("SELECT actor_id, first_name, last_update > '"+before+"', touched IS NULL FROM actor ORDER BY actor_id",
			"1\tY\t1\t0", "2\tNICKY\t0\t1")

		// ALTER TABLE adds and changes ON UPDATE columns.
		c.Script(`
			exec ALTER TABLE actor ADD COLUMN seen DATETIME NULL ON UPDATE CURRENT_TIMESTAMP
			exec ALTER TABLE actor MODIFY COLUMN touched DATETIME(3) NULL
			exec UPDATE actor SET first_name = 'Z' WHERE actor_id = 2
		`)
		c.ExpectRows("SELECT seen > '"+before+"', touched IS NULL FROM actor WHERE actor_id = 2", "1\t1")
		c.ExpectRows("SELECT EXTRA FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 'actor' AND COLUMN_NAME IN ('touched', 'seen') ORDER BY COLUMN_NAME",
			"on update CURRENT_TIMESTAMP", "")
	})
}

// CHECK constraints: column- and table-level, as Django on MySQL 8 emits
// them, enforced by the engine with MySQL's 3819; names unique per
// database (3822); ALTER TABLE ADD/DROP CHECK and CONSTRAINT.
func TestCheckConstraints(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := sqltest.NewRunner(t, ts.Session("d"))
		c.Exec("CREATE TABLE `app_person` (`id` bigint AUTO_INCREMENT NOT NULL PRIMARY KEY, " +
			"`age` integer UNSIGNED NOT NULL CHECK (`age` >= 0), `lo` integer NOT NULL, `hi` integer NOT NULL, " +
			"CONSTRAINT `lo_le_hi` CHECK (`lo` <= `hi`), CHECK (`hi` < 1000))")
		c.ExpectRows("SELECT CONSTRAINT_NAME, CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = 'd' ORDER BY CONSTRAINT_NAME",
			"app_person_chk_1\t(`age` >= 0)", "app_person_chk_2\t(`hi` < 1000)", "lo_le_hi\t(`lo` <= `hi`)")
		c.ExpectRows("SELECT CONSTRAINT_NAME, CONSTRAINT_TYPE, ENFORCED FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = 'd' AND CONSTRAINT_TYPE = 'CHECK' ORDER BY CONSTRAINT_NAME",
			"app_person_chk_1\tCHECK\tYES", "app_person_chk_2\tCHECK\tYES", "lo_le_hi\tCHECK\tYES")
		create := strings.Join(c.Rows("SHOW CREATE TABLE app_person"), "\n")
		if !strings.Contains(create, "CONSTRAINT `lo_le_hi` CHECK ((`lo` <= `hi`))") || !strings.Contains(create, "CONSTRAINT `app_person_chk_1` CHECK ((`age` >= 0))") {
			t.Errorf("SHOW CREATE TABLE:\n%s", create)
		}

		c.Script(`
			exec INSERT INTO app_person (age, lo, hi) VALUES (30, 1, 2)
			error 3819 INSERT INTO app_person (age, lo, hi) VALUES (30, 3, 2)
			error 3819 INSERT INTO app_person (age, lo, hi) VALUES (30, 3, 1000)
			error 3819 UPDATE app_person SET lo = 5
			# A failed multi-row statement writes nothing.
			error 3819 INSERT INTO app_person (age, lo, hi) VALUES (1, 1, 1), (2, 9, 1)
			query SELECT age, lo, hi FROM app_person
			= 30 | 1 | 2
			# NULL satisfies a check (unknown is not false).
			exec CREATE TABLE n (id INT PRIMARY KEY, v INT NULL CHECK (v > 0))
			exec INSERT INTO n VALUES (1, NULL)
			error 3819 INSERT INTO n VALUES (2, 0)
			# ALTER TABLE ADD CHECK verifies the rows already stored.
			error 3819 ALTER TABLE app_person ADD CONSTRAINT big CHECK (age > 40)
			exec ALTER TABLE app_person ADD CONSTRAINT adult CHECK (age >= 18)
			error 3819 INSERT INTO app_person (age, lo, hi) VALUES (17, 1, 2)
			exec ALTER TABLE app_person DROP CHECK adult
			exec INSERT INTO app_person (age, lo, hi) VALUES (17, 1, 2)
			exec ALTER TABLE app_person DROP CONSTRAINT lo_le_hi
			exec INSERT INTO app_person (age, lo, hi) VALUES (17, 5, 2)
			error 3940 ALTER TABLE app_person DROP CONSTRAINT nosuch
			# Names are unique in the database (MySQL 8), checked before the
			# table is created.
			error 3822 ALTER TABLE n ADD CONSTRAINT app_person_chk_2 CHECK (v < 10)
			error 3822 CREATE TABLE m (id INT PRIMARY KEY, CONSTRAINT app_person_chk_1 CHECK (id > 0))
			error 1146 SELECT * FROM m
			error 3822 CREATE TABLE m (id INT PRIMARY KEY, CONSTRAINT x CHECK (id > 0), CONSTRAINT X CHECK (id < 9))
			error 1146 SELECT * FROM m
			# A dump re-run: IF NOT EXISTS on the existing table is not a clash.
			exec CREATE TABLE IF NOT EXISTS n (id INT PRIMARY KEY, v INT NULL, CONSTRAINT n_chk_1 CHECK (v > 0))
			# NOT ENFORCED is kept and shown, not evaluated.
			exec CREATE TABLE ne (id INT PRIMARY KEY, v INT, CONSTRAINT ne1 CHECK (v > 0) NOT ENFORCED)
			exec INSERT INTO ne VALUES (1, -1)
			query SELECT ENFORCED FROM information_schema.TABLE_CONSTRAINTS WHERE TABLE_SCHEMA = 'd' AND CONSTRAINT_NAME = 'ne1'
			= NO
			# Dropping a column drops the checks that use only it; a rename
			# of a column used by a check is refused.
			exec ALTER TABLE n DROP COLUMN v
			query SELECT COUNT(*) FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = 'd' AND CONSTRAINT_NAME = 'n_chk_1'
			= 0
			exec INSERT INTO n VALUES (3)
			error 3959 ALTER TABLE app_person RENAME COLUMN age TO years
		`)
	})
}

// Generated columns, VIRTUAL and STORED: computed by the engine, never
// written by the user (3105), recomputed on UPDATE; STORED ones can be
// indexed.
func TestGeneratedColumns(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := sqltest.NewRunner(t, ts.Session("d"))
		c.Exec("CREATE TABLE g (id INT PRIMARY KEY, a INT, b INT GENERATED ALWAYS AS (a * 2) VIRTUAL, " +
			"s VARCHAR(20) AS (CONCAT('n', a + 1)) STORED NOT NULL, KEY ks (s))")
		create := strings.Join(c.Rows("SHOW CREATE TABLE g"), "\n")
		// As MySQL 8 writes them: VIRTUAL spelled out, NOT NULL after.
		for _, want := range []string{"`b` int GENERATED ALWAYS AS ((`a` * 2)) VIRTUAL,", "`s` varchar(20) GENERATED ALWAYS AS (concat('n',(`a` + 1))) STORED NOT NULL,"} {
			if !strings.Contains(create, want) {
				t.Errorf("SHOW CREATE TABLE lacks %q:\n%s", want, create)
			}
		}
		c.Script(`
			query SELECT COLUMN_NAME, EXTRA FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 'g' AND EXTRA <> '' ORDER BY COLUMN_NAME
			= b | VIRTUAL GENERATED
			= s | STORED GENERATED
			exec INSERT INTO g (id, a) VALUES (1, 10), (2, 20)
			exec INSERT INTO g VALUES (3, 30, DEFAULT, DEFAULT)
			error 3105 INSERT INTO g (id, a, b) VALUES (4, 1, 2)
			error 3105 INSERT INTO g VALUES (4, 1, 2, 'x')
			error 3105 UPDATE g SET s = 'x' WHERE id = 1
			query SELECT * FROM g ORDER BY id
			= 1 | 10 | 20 | n11
			= 2 | 20 | 40 | n21
			= 3 | 30 | 60 | n31
			exec UPDATE g SET a = 11 WHERE id = 1
			query SELECT * FROM g WHERE id = 1
			= 1 | 11 | 22 | n12
			# The index on the STORED column answers lookups, and follows updates.
			query SELECT id FROM g WHERE s = 'n12'
			= 1
			query SELECT id FROM g WHERE s = 'n11'
		`)
		plan := strings.Join(c.Rows("EXPLAIN PLAN SELECT id FROM g WHERE s = 'n12'"), "\n")
		if !strings.Contains(plan, "IndexLookup") {
			t.Errorf("want an IndexLookup on ks:\n%s", plan)
		}
		c.Script(`
			query SELECT id FROM g WHERE b = 40
			= 2
			# A VIRTUAL column added to a populated table is computed on read,
			# and filters on it see the computed values.
			exec ALTER TABLE g ADD COLUMN v INT AS (a + 100) VIRTUAL
			query SELECT id, v FROM g ORDER BY id
			= 1 | 111
			= 2 | 120
			= 3 | 130
			query SELECT id FROM g WHERE v = 120
			= 2
			query SELECT id FROM g WHERE id >= 2 AND v > 100 ORDER BY id LIMIT 1
			= 2
			query SELECT COUNT(*) FROM g WHERE v BETWEEN 100 AND 125
			= 2
			# A STORED one would need the rows rewritten: refused, not NULL.
			error 1235 ALTER TABLE g ADD COLUMN w INT AS (a + 1) STORED
			error 1235 ALTER TABLE g MODIFY COLUMN s VARCHAR(20) AS (CONCAT('m', a)) STORED NOT NULL
			# Indexes on VIRTUAL columns are refused (their stored value is not
			# trusted), in CREATE INDEX and in CREATE TABLE alike.
			error 1235 CREATE INDEX kv ON g (v)
			error 1235 CREATE INDEX ka ON g (a) COMMENT 'sqlgw: cover=(b)'
			error 1235 CREATE TABLE gi (id INT PRIMARY KEY, a INT, b INT AS (a + 1), KEY (b))
			error 1146 SELECT * FROM gi
			error 3106 CREATE TABLE gp (a INT, b INT AS (a + 1) VIRTUAL PRIMARY KEY)
			# A column used by a generated column cannot be dropped or renamed.
			error 3108 ALTER TABLE g DROP COLUMN a
			error 3108 ALTER TABLE g RENAME COLUMN a TO aa
			query SELECT * FROM g WHERE id = 2
			= 2 | 20 | 40 | n21 | 120
			# A generated column itself can be dropped; a VIRTUAL one changed.
			exec ALTER TABLE g DROP COLUMN v
			exec ALTER TABLE g MODIFY COLUMN b INT AS (a * 3) VIRTUAL
			query SELECT b FROM g ORDER BY id
			= 33
			= 60
			= 90
			# go-mysql-server neither enforces nor shows the CHECKs of a table
			# with VIRTUAL columns: refused rather than silently ignored.
			error 1235 CREATE TABLE cv (id INT PRIMARY KEY, a INT CHECK (a > 0), b INT AS (a + 1) VIRTUAL)
			error 1146 SELECT * FROM cv
			exec CREATE TABLE cv (id INT PRIMARY KEY, a INT CHECK (a > 0), b INT AS (a + 1) STORED)
			error 1235 ALTER TABLE cv ADD COLUMN c INT AS (a + 2) VIRTUAL
			error 1235 ALTER TABLE g ADD CONSTRAINT gpos CHECK (a > 0)
			error 3819 INSERT INTO cv (id, a) VALUES (1, 0)
			# On an empty table, a STORED column can be added.
			exec CREATE TABLE e (id INT PRIMARY KEY, a INT)
			exec ALTER TABLE e ADD COLUMN sa INT AS (a * a) STORED
			exec INSERT INTO e (id, a) VALUES (1, 7)
			query SELECT * FROM e
			= 1 | 7 | 49
		`)
	})
}

// The definitions live in the catalog: a second gateway on the same store
// enforces and shows them, including those added after it started.
func TestSchemaFeaturesAcrossGateways(t *testing.T) {
	sqltest.ForEachSharedStore(t, func(t *testing.T, store storage.Store, co catalog.Options) {
		co.RefreshInterval = -1 // always check the catalog version
		ca := sqltest.NewRunner(t, sqltest.Start(t, store, sqltest.Options{Catalog: co}).Conn())
		ca.Exec("CREATE DATABASE d")
		ca.Exec("CREATE TABLE d.t (id INT PRIMARY KEY, a INT CHECK (a >= 0), " +
			"g INT AS (a * 2) STORED, s INT AS (a + 1) STORED, " +
			"ts TIMESTAMP NULL DEFAULT NULL ON UPDATE CURRENT_TIMESTAMP, CONSTRAINT small CHECK (a < 100))")
		ca.Script(`
			exec INSERT INTO d.t (id, a) VALUES (1, 1)
			exec CREATE TABLE d.v (id INT PRIMARY KEY, a INT, g INT AS (a * 2) VIRTUAL, ts DATETIME NULL ON UPDATE CURRENT_TIMESTAMP)
			exec INSERT INTO d.v (id, a) VALUES (1, 1)
		`)

		cb := sqltest.NewRunner(t, sqltest.Start(t, store, sqltest.Options{Catalog: co}).Conn())
		createA := ca.Rows("SHOW CREATE TABLE d.t")
		createB := cb.Rows("SHOW CREATE TABLE d.t")
		if strings.Join(createA, "\n") != strings.Join(createB, "\n") {
			t.Errorf("SHOW CREATE TABLE differs:\nA: %s\nB: %s", createA, createB)
		}
		for _, want := range []string{"CHECK ((`a` >= 0))", "CONSTRAINT `small` CHECK ((`a` < 100))", "GENERATED ALWAYS AS ((`a` * 2)) STORED", "GENERATED ALWAYS AS ((`a` + 1)) STORED", "ON UPDATE CURRENT_TIMESTAMP"} {
			if !strings.Contains(strings.Join(createB, "\n"), want) {
				t.Errorf("gateway B's SHOW CREATE TABLE lacks %q:\n%s", want, createB)
			}
		}
		cb.Script(`
			error 3819 INSERT INTO d.t (id, a) VALUES (2, -1)
			error 3819 INSERT INTO d.t (id, a) VALUES (2, 100)
			error 3105 INSERT INTO d.t (id, a, g) VALUES (2, 1, 1)
			exec INSERT INTO d.t (id, a) VALUES (2, 5)
			exec UPDATE d.t SET a = 6 WHERE id = 2
		`)
		ca.ExpectRows("SELECT id, a, g, s, ts IS NOT NULL FROM d.t ORDER BY id", "1\t1\t2\t2\t0", "2\t6\t12\t7\t1")
		cb.ExpectErrno(3105, "UPDATE d.v SET g = 1")
		cb.Exec("UPDATE d.v SET a = 4")
		ca.ExpectRows("SELECT a, g, ts IS NOT NULL FROM d.v", "4\t8\t1")
		if got := strings.Join(cb.Rows("SHOW CREATE TABLE d.v"), "\n"); !strings.Contains(got, "`g` int GENERATED ALWAYS AS ((`a` * 2)) VIRTUAL,") {
			t.Errorf("gateway B's SHOW CREATE TABLE d.v:\n%s", got)
		}

		// DDL on A after B started: B sees it on its next statement.
		ca.Exec("ALTER TABLE d.t ADD CONSTRAINT lt50 CHECK (a < 50)")
		cb.ExpectErrno(3819, "UPDATE d.t SET a = 70 WHERE id = 2")
		cb.ExpectErrno(3822, "CREATE TABLE d.u (id INT PRIMARY KEY, CONSTRAINT lt50 CHECK (id > 0))")
		ca.Exec("ALTER TABLE d.t DROP CHECK small")
		ca.Exec("ALTER TABLE d.t DROP CHECK lt50")
		cb.Exec("UPDATE d.t SET a = 200 WHERE id = 2")
		cb.ExpectRows("SELECT CONSTRAINT_NAME FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = 'd' ORDER BY CONSTRAINT_NAME", "t_chk_1")
	})
}
