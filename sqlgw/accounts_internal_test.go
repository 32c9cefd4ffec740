package sqlgw

import "testing"

func TestRedactPasswords(t *testing.T) {
	for in, want := range map[string]string{
		"CREATE USER a IDENTIFIED BY 'se''cr\\'et' REQUIRE SSL":                          "CREATE USER a IDENTIFIED BY '<redacted>' REQUIRE SSL",
		"alter user a identified with caching_sha2_password by 'x', b identified by 'y'": "alter user a identified with caching_sha2_password by '<redacted>', b identified by '<redacted>'",
		"SET PASSWORD FOR a = 'pw'":                                                      "SET PASSWORD FOR a = '<redacted>'",
		"SET PASSWORD = PASSWORD('pw')":                                                  "SET PASSWORD = PASSWORD('<redacted>')",
		"SELECT 'IDENTIFIED'":                                                            "SELECT 'IDENTIFIED'",
	} {
		if got := redactPasswords(in); got != want {
			t.Errorf("%s:\n got %s\nwant %s", in, got, want)
		}
	}
}

func TestIsAccountStatement(t *testing.T) {
	for q, want := range map[string]bool{
		"CREATE USER a": true, " /* x */ grant select on *.* to a": true, "REVOKE ALL ON *.* FROM a": true,
		"SET PASSWORD = 'x'": true, "drop role r": true, "FLUSH PRIVILEGES": true, "rename user a to b": true,
		"SELECT 1": false, "CREATE TABLE user (id int)": false, "SET @grant = 1": false,
	} {
		if got := isAccountStatement(q); got != want {
			t.Errorf("%q: %v", q, got)
		}
	}
}
