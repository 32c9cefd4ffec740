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
