package sqlgw_test

import (
	"bytes"
	"context"
	"net"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
)

// Outside strict mode, values given for generated columns are ignored
// with warning 1906 (what mariadb-dump's output relies on); in strict mode
// they are 3105 (MySQL 8).
func TestGeneratedValuesIgnoredOutsideStrictMode(t *testing.T) {
	store, co := sqltest.Memory.Open(t)
	c := sqltest.NewRunner(t, sqltest.Start(t, store, sqltest.Options{Catalog: co}).Conn())
	c.Script(`
		exec CREATE DATABASE d
		exec USE d
		exec CREATE TABLE g (id INT PRIMARY KEY, a INT, b INT AS (a * 2) VIRTUAL, s INT AS (a + 1) STORED)
		error 3105 INSERT INTO g VALUES (1, 10, 0, 0)
		exec SET SESSION sql_mode = 'NO_AUTO_VALUE_ON_ZERO'
		exec INSERT INTO g VALUES (1, 10, 0, 0), (2, 20, 5, 5)
	`)
	// (go-mysql-server lists warnings newest first; the order is not checked.)
	warnings := c.Rows("SHOW WARNINGS")
	slices.Sort(warnings)
	if want := []string{"Warning\t1906\tThe value specified for generated column 'b' in table 'g' has been ignored",
		"Warning\t1906\tThe value specified for generated column 's' in table 'g' has been ignored"}; !slices.Equal(warnings, want) {
		t.Errorf("SHOW WARNINGS: %q, want %q", warnings, want)
	}
	c.Script(`
		exec INSERT INTO d.g (s, id, a) VALUES (7, 3, 30)
		query SELECT * FROM g ORDER BY id
		= 1 | 10 | 20 | 11
		= 2 | 20 | 40 | 21
		= 3 | 30 | 60 | 31
		# UPDATE is not a restore path: still refused.
		error 3105 UPDATE g SET b = 1
		exec SET SESSION sql_mode = 'STRICT_TRANS_TABLES'
		error 3105 INSERT INTO g VALUES (4, 10, 0, 0)
	`)
}

// mariadb-dump of a database using ON UPDATE, CHECK constraints and
// generated columns restores into another database with the same
// definitions, rows and behaviour.
func TestSchemaFeaturesDumpRoundTrip(t *testing.T) {
	dump, err := exec.LookPath("mariadb-dump")
	if err != nil {
		t.Skip("mariadb-dump is not installed (apt-get install mariadb-client)")
	}
	client, err := exec.LookPath("mariadb")
	if err != nil {
		t.Skip("the mariadb client is not installed (apt-get install mariadb-client)")
	}
	sqltest.ForEachBackend(t, sqltest.Options{}, func(t *testing.T, ts *sqltest.Server) {
		c := ts.Session("s")
		r := sqltest.NewRunner(t, c)
		r.Exec("CREATE TABLE actor (actor_id SMALLINT UNSIGNED NOT NULL AUTO_INCREMENT, first_name VARCHAR(45) NOT NULL, " +
			"rating ENUM('G','PG','PG-13','R','NC-17') DEFAULT 'G', features SET('Trailers','Commentaries') NOT NULL DEFAULT 'Commentaries', " +
			"last_update TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, PRIMARY KEY (actor_id))")
		r.Exec("INSERT INTO actor (first_name, last_update) VALUES ('PENELOPE', '2006-02-15 04:34:33'), ('NICK', '2006-02-15 04:34:33')")
		r.Exec("CREATE TABLE person (id BIGINT AUTO_INCREMENT NOT NULL PRIMARY KEY, age INT UNSIGNED NOT NULL CHECK (age >= 0), " +
			"lo INT, hi INT, CONSTRAINT lo_le_hi CHECK (lo <= hi), CONSTRAINT hipos CHECK (hi > 0) NOT ENFORCED)")
		r.Script(`
			exec INSERT INTO person (age, lo, hi) VALUES (30, 1, 2), (40, -5, -1)
			exec CREATE TABLE g (id INT PRIMARY KEY, a INT, b INT AS (a * 2) VIRTUAL, s VARCHAR(10) AS (CONCAT('n', a)) STORED, KEY ks (s))
			exec INSERT INTO g (id, a) VALUES (1, 10), (2, 20)
		`)
		tables := []string{"actor", "person", "g"}
		contents := func(db string) string {
			var out []string
			for _, tb := range tables {
				create := r.Rows("SHOW CREATE TABLE " + db + "." + tb)
				out = append(out, create...)
				out = append(out, r.Rows("SELECT * FROM "+db+"."+tb+" ORDER BY 1")...)
			}
			return strings.Join(out, "\n")
		}
		want := contents("s")

		host, port, err := net.SplitHostPort(ts.Srv.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		conn := []string{"--no-defaults", "--protocol=TCP", "-h" + host, "-P" + port, "-uroot"}
		var out, stderr bytes.Buffer
		cmd := exec.Command(dump, append(conn, "--default-character-set=utf8mb4", "s")...)
		cmd.Stdout, cmd.Stderr = &out, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("mariadb-dump: %v: %s", err, stderr.String())
		}
		sqlText := out.String()
		// (ENUM and SET defaults print as members, not as go-mysql-server's
		// member indexes, which would not restore.)
		for _, w := range []string{"ON UPDATE CURRENT_TIMESTAMP", "CONSTRAINT `lo_le_hi` CHECK", "GENERATED ALWAYS AS", "INSERT INTO `g` VALUES",
			"DEFAULT 'G'", "DEFAULT 'Commentaries'"} {
			if !strings.Contains(sqlText, w) {
				t.Errorf("dump lacks %q", w)
			}
		}
		// The check names are unique per database: restore into another one.
		r.Exec("CREATE DATABASE r")
		stderr.Reset()
		cmd = exec.Command(client, append(conn, "r")...)
		cmd.Stdin, cmd.Stderr = strings.NewReader(sqlText), &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("restore: %v: %s", err, stderr.String())
		}
		if got := contents("r"); got != want {
			t.Errorf("restored database differs:\n got: %s\nwant: %s", got, want)
		}
		// The restored definitions behave like the originals.
		r.Script(`
			exec USE r
			error 3819 INSERT INTO person (age, lo, hi) VALUES (1, 5, 2)
			error 3105 INSERT INTO g VALUES (3, 1, 2, 'x')
			exec UPDATE g SET a = 11 WHERE id = 1
			query SELECT b, s FROM g WHERE id = 1
			= 22 | n11
			query SELECT id FROM g WHERE s = 'n20'
			= 2
			exec UPDATE actor SET first_name = 'P' WHERE actor_id = 1
			query SELECT actor_id FROM actor WHERE last_update > '2020-01-01' ORDER BY actor_id
			= 1
			exec INSERT INTO actor (first_name) VALUES ('ED')
			query SELECT rating, features FROM actor WHERE first_name = 'ED'
			= G | Commentaries
		`)
		var n int
		if err := c.QueryRowContext(context.Background(), "SELECT COUNT(*) FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = 'r'").Scan(&n); err != nil || n != 3 {
			t.Errorf("restored checks: %d, %v; want 3", n, err)
		}
	})
}
