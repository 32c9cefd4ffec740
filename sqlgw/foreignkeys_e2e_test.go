package sqlgw_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// MySQL error numbers of foreign keys.
const (
	erNoReferencedRow2 = 1452 // child row without parent
	erRowIsReferenced2 = 1451 // parent row still referenced
)

// TestForeignKeysParent covers what works through primary-key lookups on
// the parent: DDL, metadata, 1452 on a child without parent,
// foreign_key_checks=0, DROP FOREIGN KEY.
func TestForeignKeysParent(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("fk",
			"CREATE TABLE author (id INT PRIMARY KEY, name VARCHAR(20))")
		r := sqltest.NewRunner(t, c)
		r.Exec(`CREATE TABLE book (id INT PRIMARY KEY, author_id INT,
			CONSTRAINT book_author FOREIGN KEY (author_id) REFERENCES author (id))`)
		r.Exec("INSERT INTO author VALUES (1,'ann'),(2,'bob')")
		r.Exec("INSERT INTO book VALUES (10,1),(11,NULL)")
		r.ExpectErrno(erNoReferencedRow2, "INSERT INTO book VALUES (12,3)")
		r.ExpectErrno(erNoReferencedRow2, "UPDATE book SET author_id = 9 WHERE id = 10")
		r.Script(`
			query SELECT id, author_id FROM book ORDER BY id
			= 10 | 1
			= 11 | NULL
			# A parent inserted earlier in the same transaction is seen.
			exec BEGIN
			exec INSERT INTO author VALUES (3,'cid')
			exec INSERT INTO book VALUES (12,3)
			exec COMMIT
			query SELECT author_id FROM book WHERE id = 12
			= 3
			# The implicit index on the child column, named after the
			# constraint, as MySQL names it.
			query SELECT index_name, column_name FROM information_schema.statistics WHERE table_schema='fk' AND table_name='book' ORDER BY index_name
			= book_author | author_id
			= PRIMARY | id
		`)
		create := strings.Join(r.Rows("SHOW CREATE TABLE book"), "\n")
		if !strings.Contains(create, "CONSTRAINT `book_author` FOREIGN KEY (`author_id`) REFERENCES `author` (`id`)") {
			t.Fatalf("SHOW CREATE TABLE:\n%s", create)
		}
		r.ExpectRows(`SELECT constraint_name, table_name, column_name, referenced_table_name, referenced_column_name
			FROM information_schema.key_column_usage WHERE table_schema='fk' AND referenced_table_name IS NOT NULL`,
			"book_author\tbook\tauthor_id\tauthor\tid")
		r.ExpectRows(`SELECT constraint_name, unique_constraint_schema, table_name, referenced_table_name, update_rule, delete_rule
			FROM information_schema.referential_constraints WHERE constraint_schema='fk'`,
			"book_author\tfk\tbook\tauthor\tNO ACTION\tNO ACTION")
		r.ExpectRows(`SELECT constraint_name, constraint_type FROM information_schema.table_constraints
			WHERE table_schema='fk' AND table_name='book' ORDER BY constraint_type`,
			"book_author\tFOREIGN KEY", "PRIMARY\tPRIMARY KEY")

		// ALTER TABLE ADD CONSTRAINT (what Django sends), with an
		// index already there; existing rows are checked.
		r.Script(`
			exec CREATE TABLE review (id INT PRIMARY KEY, book_id INT NOT NULL, KEY by_book (book_id))
			exec INSERT INTO review VALUES (1, 10), (2, 99)
			error 1452 ALTER TABLE review ADD CONSTRAINT review_book FOREIGN KEY (book_id) REFERENCES book (id)
			exec DELETE FROM review WHERE id = 2
			exec ALTER TABLE review ADD CONSTRAINT review_book FOREIGN KEY (book_id) REFERENCES book (id)
			query SELECT index_name FROM information_schema.statistics WHERE table_schema='fk' AND table_name='review' ORDER BY index_name
			= by_book
			= PRIMARY
			error 1452 INSERT INTO review VALUES (3, 99)
			# CREATE TABLE with the index declared too, as dumps write it
			# (named like the constraint, or not): no second index.
			exec CREATE TABLE tag (id INT PRIMARY KEY, book_id INT, KEY tag_book (book_id), CONSTRAINT tag_book FOREIGN KEY (book_id) REFERENCES book (id))
			exec CREATE TABLE note (id INT PRIMARY KEY, book_id INT, KEY by_b (book_id), CONSTRAINT note_book FOREIGN KEY (book_id) REFERENCES book (id))
			query SELECT table_name, index_name FROM information_schema.statistics WHERE table_schema='fk' AND table_name IN ('tag', 'note') ORDER BY table_name, index_name
			= note | by_b
			= note | PRIMARY
			= tag | PRIMARY
			= tag | tag_book
			error 1452 INSERT INTO note VALUES (1, 99)
			exec INSERT INTO tag VALUES (1, 10)
			error 1451 DELETE FROM book WHERE id = 10
			exec DROP TABLE tag, note
			# foreign_key_checks=0, as dump files set it: a table may
			# reference one created later, and rows are not checked.
			exec SET foreign_key_checks = 0
		`)
		r.Exec(`CREATE TABLE loan (id INT PRIMARY KEY, member_id INT,
			CONSTRAINT loan_member FOREIGN KEY (member_id) REFERENCES member (id))`)
		r.Script(`
			exec INSERT INTO loan VALUES (1, 7)
			exec INSERT INTO book VALUES (13, 42)
			exec CREATE TABLE member (id INT PRIMARY KEY)
			exec SET foreign_key_checks = 1
			exec INSERT INTO member VALUES (8)
			exec INSERT INTO loan VALUES (2, 8)
		`)
		r.ExpectErrno(erNoReferencedRow2, "INSERT INTO loan VALUES (3, 9)")

		// Constraint names are unique per database.
		_, err := c.ExecContext(t.Context(), "ALTER TABLE loan ADD CONSTRAINT book_author FOREIGN KEY (member_id) REFERENCES member (id)")
		if err == nil {
			t.Fatal("duplicate constraint name accepted")
		}

		// DROP FOREIGN KEY: the constraint goes, its index stays.
		r.Script(`
			exec ALTER TABLE book DROP FOREIGN KEY book_author
			exec INSERT INTO book VALUES (14, 77)
			query SELECT count(*) FROM information_schema.referential_constraints WHERE constraint_schema='fk' AND table_name='book'
			= 0
			query SELECT index_name FROM information_schema.statistics WHERE table_schema='fk' AND table_name='book' ORDER BY index_name
			= book_author
			= PRIMARY
			query SELECT constraint_name FROM information_schema.referential_constraints WHERE constraint_schema='fk' ORDER BY constraint_name
			= loan_member
			= review_book
		`)
	})
}

// TestForeignKeysRestart: constraints are persisted with the catalog.
func TestForeignKeysRestart(t *testing.T) {
	store, co := sqltest.Memory.Open(t)
	t.Cleanup(func() { store.Close() })
	ts := sqltest.Start(t, sqltest.NoClose(store), sqltest.Options{Catalog: co})
	ts.Session("fk",
		"CREATE TABLE p (id INT PRIMARY KEY)",
		"CREATE TABLE ch (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id) ON DELETE CASCADE)")
	ts.Stop()

	ts2 := sqltest.Start(t, sqltest.NoClose(store), sqltest.Options{Catalog: co})
	c2 := sqltest.NewRunner(t, ts2.Conn())
	c2.Exec("USE fk")
	c2.ExpectRows("SELECT constraint_name, delete_rule FROM information_schema.referential_constraints WHERE constraint_schema='fk'",
		"ch_ibfk_1\tCASCADE")
	c2.ExpectErrno(erNoReferencedRow2, "INSERT INTO ch VALUES (1, 1)")
}

// TestForeignKeysActions covers the parent side: RESTRICT / NO ACTION
// (1451), ON DELETE / ON UPDATE CASCADE and SET NULL through the child
// index, self-references, DROP/TRUNCATE of a referenced parent, and the
// child index that cannot be dropped while a constraint needs it. The
// expected results are MariaDB's for the same statements.
func TestForeignKeysActions(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("fk",
			"CREATE TABLE p (id INT PRIMARY KEY, name VARCHAR(20))")
		r := sqltest.NewRunner(t, c)
		r.Exec(`CREATE TABLE ch (id INT PRIMARY KEY, pid INT,
			CONSTRAINT ch_p FOREIGN KEY (pid) REFERENCES p (id) ON DELETE CASCADE ON UPDATE SET NULL)`)
		r.Script(`
			exec CREATE TABLE c2 (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id))
			exec INSERT INTO p VALUES (1,'a'),(2,'b'),(3,'c'),(4,'d')
			exec INSERT INTO ch VALUES (10,1),(11,1),(12,2)
			exec INSERT INTO c2 VALUES (20,3)
			# MySQL names the implicit index after the column when the
			# constraint is not named.
			query SELECT index_name FROM information_schema.statistics WHERE table_schema='fk' AND table_name='c2' ORDER BY index_name
			= pid
			= PRIMARY
			affected 1 DELETE FROM p WHERE id = 1
			query SELECT id, pid FROM ch ORDER BY id
			= 12 | 2
			exec UPDATE p SET id = 5 WHERE id = 2
			query SELECT id, pid FROM ch ORDER BY id
			= 12 | NULL
			# An update that leaves the key alone touches no child.
			exec UPDATE p SET name = 'x' WHERE id = 3
		`)

		r.ExpectErrno(erRowIsReferenced2, "DELETE FROM p WHERE id = 3")
		r.ExpectErrno(erRowIsReferenced2, "UPDATE p SET id = 6 WHERE id = 3")
		r.ExpectRows("SELECT id FROM p ORDER BY id", "3", "4", "5")
		// A multi-row statement that fails leaves nothing behind.
		r.ExpectErrno(erRowIsReferenced2, "DELETE FROM p WHERE id IN (3, 4)")
		r.Script(`
			query SELECT id FROM p ORDER BY id
			= 3
			= 4
			= 5
			# Inside a transaction, a child deleted first frees the parent.
			exec BEGIN
			exec DELETE FROM c2 WHERE id = 20
			exec DELETE FROM p WHERE id = 3
			exec ROLLBACK
			query SELECT id FROM p ORDER BY id
			= 3
			= 4
			= 5
			query SELECT id, pid FROM c2
			= 20 | 3
		`)

		// MySQL's texts (as MariaDB prints them for the same tables).
		expectErrText(t, c, "INSERT INTO ch VALUES (50, 99)",
			"Cannot add or update a child row: a foreign key constraint fails (`fk`.`ch`, CONSTRAINT `ch_p` FOREIGN KEY (`pid`) REFERENCES `p` (`id`) ON DELETE CASCADE ON UPDATE SET NULL)")
		expectErrText(t, c, "DELETE FROM p WHERE id = 3",
			"Cannot delete or update a parent row: a foreign key constraint fails (`fk`.`c2`, CONSTRAINT `c2_ibfk_1` FOREIGN KEY (`pid`) REFERENCES `p` (`id`))")
		expectErrText(t, c, "ALTER TABLE c2 DROP FOREIGN KEY nope", "Can't DROP FOREIGN KEY `nope`; check that it exists")

		r.Script(`
			error 3730 DROP TABLE p
			error 1701 TRUNCATE TABLE p
			error 1553 ALTER TABLE c2 DROP INDEX pid
			# Cascades go down several levels, in one transaction.
			exec CREATE TABLE g (id INT PRIMARY KEY, chid INT, FOREIGN KEY (chid) REFERENCES ch (id) ON DELETE CASCADE)
			exec INSERT INTO p VALUES (7, 'g')
			exec INSERT INTO ch VALUES (30, 7), (31, 7)
			exec INSERT INTO g VALUES (100, 30), (101, 31), (102, 12)
			exec DELETE FROM p WHERE id = 7
			query SELECT id FROM ch ORDER BY id
			= 12
			query SELECT id FROM g ORDER BY id
			= 102
		`)

		// A self-referencing table (a tree), ON DELETE CASCADE.
		r.Exec(`CREATE TABLE node (id INT PRIMARY KEY, parent INT,
			FOREIGN KEY (parent) REFERENCES node (id) ON DELETE CASCADE)`)
		r.Exec("INSERT INTO node VALUES (1, NULL), (2, 1), (3, 2), (4, NULL)")
		r.ExpectErrno(erNoReferencedRow2, "INSERT INTO node VALUES (5, 9)")
		r.Script(`
			exec DELETE FROM node WHERE id = 1
			query SELECT id FROM node
			= 4
			# Children dropped before their parent, in one statement.
			exec DROP TABLE g
			exec DROP TABLE ch, c2, p
			query SELECT count(*) FROM information_schema.referential_constraints WHERE constraint_schema='fk'
			= 1
		`)
	})
}

func expectErrText(t *testing.T, db sqltest.Execer, q, want string) {
	t.Helper()
	_, err := db.ExecContext(t.Context(), q)
	var me *mysql.MySQLError
	if !errors.As(err, &me) || me.Message != want {
		t.Fatalf("%s: error %v\nwant %s", q, err, want)
	}
}

// TestForeignKeysComposite: a two-column key on a composite primary key,
// a key referencing a UNIQUE secondary index, ON UPDATE CASCADE, REPLACE
// and DELETE of every parent row; results and errors as MariaDB's.
func TestForeignKeysComposite(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("fk3", `
			CREATE TABLE p (a INT, b INT, code VARCHAR(10), PRIMARY KEY (a, b), UNIQUE KEY (code))
			CREATE TABLE ch (id INT PRIMARY KEY, x INT, y INT, FOREIGN KEY (x, y) REFERENCES p (a, b) ON UPDATE CASCADE ON DELETE CASCADE)
			CREATE TABLE cc (id INT PRIMARY KEY, code VARCHAR(10), FOREIGN KEY (code) REFERENCES p (code) ON UPDATE CASCADE)
			INSERT INTO p VALUES (1,1,'one'),(1,2,'two'),(2,1,'three')
			INSERT INTO ch VALUES (1,1,1),(2,1,2),(3,2,1)
			INSERT INTO cc VALUES (1,'one'),(2,'two')
			UPDATE p SET b = 5 WHERE a = 1 AND b = 2`)
		sqltest.NewRunner(t, c).Script(`
			query SELECT * FROM ch ORDER BY id
			= 1 | 1 | 1
			= 2 | 1 | 5
			= 3 | 2 | 1
			exec UPDATE p SET code = 'uno' WHERE code = 'one'
			query SELECT * FROM cc ORDER BY id
			= 1 | uno
			= 2 | two
			exec DELETE FROM p WHERE a = 2
			query SELECT * FROM ch ORDER BY id
			= 1 | 1 | 1
			= 2 | 1 | 5
		`)

		expectErrText(t, c, "INSERT INTO cc VALUES (3,'nope')",
			"Cannot add or update a child row: a foreign key constraint fails (`fk3`.`cc`, CONSTRAINT `cc_ibfk_1` FOREIGN KEY (`code`) REFERENCES `p` (`code`) ON UPDATE CASCADE)")
		expectErrText(t, c, "INSERT INTO ch VALUES (9, 1, 9)",
			"Cannot add or update a child row: a foreign key constraint fails (`fk3`.`ch`, CONSTRAINT `ch_ibfk_1` FOREIGN KEY (`x`, `y`) REFERENCES `p` (`a`, `b`) ON DELETE CASCADE ON UPDATE CASCADE)")
		sqltest.NewRunner(t, c).Script(`
			error 1451 REPLACE INTO p VALUES (1,5,'two')
			error 1451 DELETE FROM p
			query SELECT * FROM p ORDER BY a, b
			= 1 | 1 | uno
			= 1 | 5 | two
			exec DELETE FROM cc
			exec DELETE FROM p
			query SELECT count(*) FROM ch
			= 0
		`)
	})
}

// TestForeignKeysRename: renaming the parent, a referenced column or a
// child column keeps the constraint pointing at the same columns.
func TestForeignKeysRename(t *testing.T) {
	store, co := sqltest.Memory.Open(t)
	ts := sqltest.Start(t, store, sqltest.Options{Catalog: co})
	c := sqltest.NewRunner(t, ts.Session("fkr", `
		CREATE TABLE p (id INT PRIMARY KEY)
		CREATE TABLE ch (id INT PRIMARY KEY, pid INT, CONSTRAINT ch_p FOREIGN KEY (pid) REFERENCES p (id) ON DELETE CASCADE)
		INSERT INTO p VALUES (1), (2)
		INSERT INTO ch VALUES (10, 1), (20, 2)
		RENAME TABLE p TO parent
		ALTER TABLE parent RENAME COLUMN id TO pk
		ALTER TABLE ch RENAME COLUMN pid TO parent_pk`))
	c.ExpectRows(`SELECT table_name, column_name, referenced_table_name, referenced_column_name
		FROM information_schema.key_column_usage WHERE table_schema='fkr' AND referenced_table_name IS NOT NULL`,
		"ch\tparent_pk\tparent\tpk")
	c.ExpectErrno(erNoReferencedRow2, "INSERT INTO ch VALUES (30, 3)")
	c.Script(`
		exec DELETE FROM parent WHERE pk = 1
		query SELECT id, parent_pk FROM ch
		= 20 | 2
		error 1828 ALTER TABLE ch DROP COLUMN parent_pk
	`)
}

// TestForeignKeysSetDefault: SET DEFAULT is refused (as InnoDB does),
// before CREATE TABLE creates anything.
func TestForeignKeysSetDefault(t *testing.T) {
	store, co := sqltest.Memory.Open(t)
	ts := sqltest.Start(t, store, sqltest.Options{Catalog: co})
	sqltest.NewRunner(t, ts.Session("fkd")).Script(`
		exec CREATE TABLE p (id INT PRIMARY KEY)
		error 1235 CREATE TABLE ch (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id) ON DELETE SET DEFAULT)
		query SHOW TABLES
		= p
		exec CREATE TABLE ch (id INT PRIMARY KEY, pid INT, KEY (pid))
		error 1235 ALTER TABLE ch ADD FOREIGN KEY (pid) REFERENCES p (id) ON UPDATE SET DEFAULT
		query SELECT count(*) FROM information_schema.referential_constraints WHERE constraint_schema='fkd'
		= 0
	`)
}

// TestForeignKeysTwoGateways: a constraint one gateway adds is enforced by
// another on the same store (the definitions live in the shared catalog;
// here every statement checks the catalog version).
func TestForeignKeysTwoGateways(t *testing.T) {
	store, co := sqltest.Memory.Open(t)
	t.Cleanup(func() { store.Close() })
	co.RefreshInterval = -1
	a := sqltest.NewRunner(t, sqltest.Start(t, sqltest.NoClose(store), sqltest.Options{Catalog: co}).Conn())
	b := sqltest.NewRunner(t, sqltest.Start(t, sqltest.NoClose(store), sqltest.Options{Catalog: co}).Conn())
	a.Script(`
		exec CREATE DATABASE g2
		exec CREATE TABLE g2.p (id INT PRIMARY KEY)
		exec CREATE TABLE g2.ch (id INT PRIMARY KEY, pid INT)
	`)
	b.Exec("INSERT INTO g2.p VALUES (1)")
	b.Exec("INSERT INTO g2.ch VALUES (1, 1)")
	a.Exec("ALTER TABLE g2.ch ADD CONSTRAINT ch_p FOREIGN KEY (pid) REFERENCES g2.p (id) ON DELETE CASCADE")
	b.ExpectErrno(erNoReferencedRow2, "INSERT INTO g2.ch VALUES (2, 2)")
	b.Exec("DELETE FROM g2.p WHERE id = 1")
	a.ExpectRows("SELECT count(*) FROM g2.ch", "0")
}

// TestForeignKeysIgnoreAndPrepared: INSERT IGNORE skips a child row
// without parent with a warning (MySQL: 1452 as a warning), and the errors
// are the same through server-side prepared statements.
func TestForeignKeysIgnoreAndPrepared(t *testing.T) {
	store, co := sqltest.Memory.Open(t)
	ts := sqltest.Start(t, store, sqltest.Options{Catalog: co})
	c := sqltest.NewRunner(t, ts.Session("fki", `
		CREATE TABLE p (id INT PRIMARY KEY)
		CREATE TABLE ch (id INT PRIMARY KEY, pid INT, CONSTRAINT ch_p FOREIGN KEY (pid) REFERENCES p (id))
		INSERT INTO p VALUES (1)`))
	c.ExpectAffected(2, "INSERT IGNORE INTO ch VALUES (1, 1), (2, 2), (3, 1)")
	c.ExpectRows("SHOW WARNINGS", "Warning\t1452\tCannot add or update a child row: a foreign key constraint fails (`fki`.`ch`, CONSTRAINT `ch_p` FOREIGN KEY (`pid`) REFERENCES `p` (`id`))")
	c.ExpectRows("SELECT id FROM ch ORDER BY id", "1", "3")

	// Arguments make go-sql-driver prepare on the server (COM_STMT_EXECUTE).
	c.ExpectErrno(erNoReferencedRow2, "INSERT INTO ch VALUES (?, ?)", 4, 9)
	c.ExpectErrno(erRowIsReferenced2, "DELETE FROM p WHERE id = ?", 1)
	c.Exec("INSERT INTO ch VALUES (?, ?)", 4, 1)
}

// TestForeignKeysCascadeKeyChange: ON UPDATE CASCADE into a child whose
// primary key contains the foreign key (the child rows move to another
// key: a delete and an insert each), in the partition of the new key.
func TestForeignKeysCascadeKeyChange(t *testing.T) {
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := sqltest.NewRunner(t, ts.Session("fkk",
			"CREATE TABLE ord (id INT PRIMARY KEY)"))
		c.Exec(`CREATE TABLE line (ord INT, n INT, qty INT, PRIMARY KEY (ord, n),
			FOREIGN KEY (ord) REFERENCES ord (id) ON UPDATE CASCADE ON DELETE CASCADE)`)
		c.Script(`
			exec INSERT INTO ord VALUES (1), (2)
			exec INSERT INTO line VALUES (1, 1, 10), (1, 2, 20), (2, 1, 30)
			exec UPDATE ord SET id = 5 WHERE id = 1
			query SELECT ord, n, qty FROM line ORDER BY ord, n
			= 2 | 1 | 30
			= 5 | 1 | 10
			= 5 | 2 | 20
			query SELECT qty FROM line WHERE ord = 5 AND n = 2
			= 20
			exec DELETE FROM ord WHERE id = 5
			query SELECT ord, n FROM line
			= 2 | 1
		`)
	})
}
