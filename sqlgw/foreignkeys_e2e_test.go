package sqlgw_test

import (
	"strings"
	"testing"
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
	forEachBackend(t, func(t *testing.T, ts *testServer) {
		c := ts.conn()
		mustExec(t, c, "CREATE DATABASE fk")
		mustExec(t, c, "USE fk")
		mustExec(t, c, "CREATE TABLE author (id INT PRIMARY KEY, name VARCHAR(20))")
		mustExec(t, c, `CREATE TABLE book (id INT PRIMARY KEY, author_id INT,
			CONSTRAINT book_author FOREIGN KEY (author_id) REFERENCES author (id))`)
		mustExec(t, c, "INSERT INTO author VALUES (1,'ann'),(2,'bob')")
		mustExec(t, c, "INSERT INTO book VALUES (10,1),(11,NULL)")
		expectErrno(t, c, erNoReferencedRow2, "INSERT INTO book VALUES (12,3)")
		expectErrno(t, c, erNoReferencedRow2, "UPDATE book SET author_id = 9 WHERE id = 10")
		expectRows(t, c, "SELECT id, author_id FROM book ORDER BY id", "10\t1", "11\tNULL")

		// A parent inserted earlier in the same transaction is seen.
		mustExec(t, c, "BEGIN")
		mustExec(t, c, "INSERT INTO author VALUES (3,'cid')")
		mustExec(t, c, "INSERT INTO book VALUES (12,3)")
		mustExec(t, c, "COMMIT")
		expectRows(t, c, "SELECT author_id FROM book WHERE id = 12", "3")

		// The implicit index on the child column, named after the
		// constraint, as MySQL names it.
		expectRows(t, c, "SELECT index_name, column_name FROM information_schema.statistics WHERE table_schema='fk' AND table_name='book' ORDER BY index_name",
			"book_author\tauthor_id", "PRIMARY\tid")
		create := strings.Join(rows(t, c, "SHOW CREATE TABLE book"), "\n")
		if !strings.Contains(create, "CONSTRAINT `book_author` FOREIGN KEY (`author_id`) REFERENCES `author` (`id`)") {
			t.Fatalf("SHOW CREATE TABLE:\n%s", create)
		}
		expectRows(t, c, `SELECT constraint_name, table_name, column_name, referenced_table_name, referenced_column_name
			FROM information_schema.key_column_usage WHERE table_schema='fk' AND referenced_table_name IS NOT NULL`,
			"book_author\tbook\tauthor_id\tauthor\tid")
		expectRows(t, c, `SELECT constraint_name, unique_constraint_schema, table_name, referenced_table_name, update_rule, delete_rule
			FROM information_schema.referential_constraints WHERE constraint_schema='fk'`,
			"book_author\tfk\tbook\tauthor\tNO ACTION\tNO ACTION")
		expectRows(t, c, `SELECT constraint_name, constraint_type FROM information_schema.table_constraints
			WHERE table_schema='fk' AND table_name='book' ORDER BY constraint_type`,
			"book_author\tFOREIGN KEY", "PRIMARY\tPRIMARY KEY")

		// ALTER TABLE ADD CONSTRAINT (what Django sends), with an
		// index already there; existing rows are checked.
		mustExec(t, c, "CREATE TABLE review (id INT PRIMARY KEY, book_id INT NOT NULL, KEY by_book (book_id))")
		mustExec(t, c, "INSERT INTO review VALUES (1, 10), (2, 99)")
		expectErrno(t, c, erNoReferencedRow2, "ALTER TABLE review ADD CONSTRAINT review_book FOREIGN KEY (book_id) REFERENCES book (id)")
		mustExec(t, c, "DELETE FROM review WHERE id = 2")
		mustExec(t, c, "ALTER TABLE review ADD CONSTRAINT review_book FOREIGN KEY (book_id) REFERENCES book (id)")
		expectRows(t, c, "SELECT index_name FROM information_schema.statistics WHERE table_schema='fk' AND table_name='review' ORDER BY index_name",
			"by_book", "PRIMARY")
		expectErrno(t, c, erNoReferencedRow2, "INSERT INTO review VALUES (3, 99)")

		// foreign_key_checks=0, as dump files set it: a table may
		// reference one created later, and rows are not checked.
		mustExec(t, c, "SET foreign_key_checks = 0")
		mustExec(t, c, `CREATE TABLE loan (id INT PRIMARY KEY, member_id INT,
			CONSTRAINT loan_member FOREIGN KEY (member_id) REFERENCES member (id))`)
		mustExec(t, c, "INSERT INTO loan VALUES (1, 7)")
		mustExec(t, c, "INSERT INTO book VALUES (13, 42)")
		mustExec(t, c, "CREATE TABLE member (id INT PRIMARY KEY)")
		mustExec(t, c, "SET foreign_key_checks = 1")
		mustExec(t, c, "INSERT INTO member VALUES (8)")
		mustExec(t, c, "INSERT INTO loan VALUES (2, 8)")
		expectErrno(t, c, erNoReferencedRow2, "INSERT INTO loan VALUES (3, 9)")

		// Constraint names are unique per database.
		_, err := c.ExecContext(t.Context(), "ALTER TABLE loan ADD CONSTRAINT book_author FOREIGN KEY (member_id) REFERENCES member (id)")
		if err == nil {
			t.Fatal("duplicate constraint name accepted")
		}

		// DROP FOREIGN KEY: the constraint goes, its index stays.
		mustExec(t, c, "ALTER TABLE book DROP FOREIGN KEY book_author")
		mustExec(t, c, "INSERT INTO book VALUES (14, 77)")
		expectRows(t, c, "SELECT count(*) FROM information_schema.referential_constraints WHERE constraint_schema='fk' AND table_name='book'", "0")
		expectRows(t, c, "SELECT index_name FROM information_schema.statistics WHERE table_schema='fk' AND table_name='book' ORDER BY index_name",
			"book_author", "PRIMARY")

		expectRows(t, c, "SELECT constraint_name FROM information_schema.referential_constraints WHERE constraint_schema='fk' ORDER BY constraint_name",
			"loan_member", "review_book")
	})
}

// TestForeignKeysRestart: constraints are persisted with the catalog.
func TestForeignKeysRestart(t *testing.T) {
	store, co := memoryBackend.open(t)
	t.Cleanup(func() { store.Close() })
	ts := startServer(t, sharedStore{store}, co)
	c := ts.conn()
	mustExec(t, c, "CREATE DATABASE fk")
	mustExec(t, c, "USE fk")
	mustExec(t, c, "CREATE TABLE p (id INT PRIMARY KEY)")
	mustExec(t, c, "CREATE TABLE ch (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id) ON DELETE CASCADE)")
	ts.stop()

	ts2 := startServer(t, sharedStore{store}, co)
	c2 := ts2.conn()
	mustExec(t, c2, "USE fk")
	expectRows(t, c2, "SELECT constraint_name, delete_rule FROM information_schema.referential_constraints WHERE constraint_schema='fk'",
		"ch_ibfk_1\tCASCADE")
	expectErrno(t, c2, erNoReferencedRow2, "INSERT INTO ch VALUES (1, 1)")
}
