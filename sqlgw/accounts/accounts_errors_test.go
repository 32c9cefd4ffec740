package accounts

import (
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
)

// TestDeniedPatterns: the exact texts of go-mysql-server's privilege
// errors and the database or table the patterns take from them.
func TestDeniedPatterns(t *testing.T) {
	for _, tc := range []struct {
		text string
		re   interface{ FindStringSubmatch(string) []string }
		want string
	}{
		{"Access denied for user 'u'@'%' to database 'shop'", reDBDenied, "shop"},
		{"Access denied for user u to database 'shop'", reDBDenied, "shop"},
		{"Access denied for user 'u'@'localhost' to table 'orders'", reTableDenied, "orders"},
		{sql.ErrDatabaseAccessDeniedForUser.New("'u'@'%'", "shop").Error(), reDBDenied, "shop"},
		{sql.ErrTableAccessDeniedForUser.New("'u'@'%'", "orders").Error(), reTableDenied, "orders"},
	} {
		m := tc.re.FindStringSubmatch(tc.text)
		if m == nil || m[len(m)-1] != tc.want {
			t.Errorf("%q: %q, want %q", tc.text, m, tc.want)
		}
	}
	if reDBDenied.MatchString("Access denied for user 'u'@'%' to table 'orders'") {
		t.Error("the database pattern matches a table error")
	}
}

// TestOperationFailedPatterns: the exact texts of go-mysql-server's
// account-statement failures (MySQL's 1396) match, and neighbours do not.
func TestOperationFailedPatterns(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"Operation CREATE USER failed for 'u'@'%'", true},
		{"Operation ALTER USER failed for 'u'@'localhost'", true},
		{"Operation DROP USER failed for 'u'@'%'", true},
		{"Operation CREATE ROLE failed for 'r'@'%'", true},
		{"Operation DROP ROLE failed for 'r'@'%'", true},
		{sql.ErrUserCreationFailure.New("'u'@'%'").Error(), true},
		{sql.ErrUserAlterFailure.New("'u'@'%'").Error(), true},
		{sql.ErrUserDeletionFailure.New("'u'@'%'").Error(), true},
		{sql.ErrRoleCreationFailure.New("'r'@'%'").Error(), true},
		{sql.ErrRoleDeletionFailure.New("'r'@'%'").Error(), true},
		{"Operation GRANT failed for 'u'@'%'", false},
		{"error: Operation DROP USER failed for 'u'@'%'", false},
		{"You are not allowed to create a user with GRANT", false},
	} {
		if got := operationFailed(tc.text); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.text, got, tc.want)
		}
	}
}
