package sqltext

import "testing"

// TestForShare: MySQL 8.0's FOR SHARE clause in the spellings vitess's
// grammar takes; other uses of the words are left alone.
func TestForShare(t *testing.T) {
	for _, tc := range []struct{ in, out string }{
		{"SELECT a FROM t FOR SHARE", "SELECT a FROM t LOCK IN SHARE MODE"},
		{"select a from t where id = 1 for share;", "select a from t where id = 1 LOCK IN SHARE MODE;"},
		{"SELECT a FROM t FOR SHARE NOWAIT", "SELECT a FROM t LOCK IN SHARE MODE"},
		{"SELECT a FROM t FOR /* c */ SHARE SKIP\n LOCKED", "SELECT a FROM t LOCK IN SHARE MODE"},
		{"SELECT a FROM t FOR SHARE OF t", "SELECT a FROM t FOR UPDATE OF t"},
		{"SELECT a FROM t x, u FOR SHARE OF x, `u` SKIP LOCKED", "SELECT a FROM t x, u FOR UPDATE OF x, `u` SKIP LOCKED"},
		{"SELECT 1 FOR SHARE", "SELECT 1 LOCK IN SHARE MODE"},
		{"(SELECT a FROM t FOR SHARE) UNION (SELECT a FROM u FOR SHARE)", "(SELECT a FROM t LOCK IN SHARE MODE) UNION (SELECT a FROM u LOCK IN SHARE MODE)"},
		{"SELECT a FROM t WHERE b IN (SELECT b FROM u FOR SHARE)", "SELECT a FROM t WHERE b IN (SELECT b FROM u LOCK IN SHARE MODE)"},
		{"SELECT a FROM t /*!80000 FOR SHARE */", "SELECT a FROM t /*!80000 LOCK IN SHARE MODE */"},
		// Not a locking clause: left as it is.
		{"SELECT 'for share' FROM t", "SELECT 'for share' FROM t"},
		{"SELECT a FROM t -- for share\n", "SELECT a FROM t -- for share\n"},
		{"SELECT `for`, share FROM t", "SELECT `for`, share FROM t"},
		{"SHOW GRANTS FOR share", "SHOW GRANTS FOR share"},
		{"SET PASSWORD FOR share = 'x'", "SET PASSWORD FOR share = 'x'"},
		{"SELECT a FROM t FOR UPDATE", "SELECT a FROM t FOR UPDATE"},
		{"INSERT INTO t VALUES (1, 'share')", "INSERT INTO t VALUES (1, 'share')"},
	} {
		for _, pl := range [][]Step{Parse, Prepare, {ForShare}} {
			if got := Run(tc.in, pl).String(); got != tc.out {
				t.Errorf("%q: got %q, want %q", tc.in, got, tc.out)
			}
		}
	}
}
