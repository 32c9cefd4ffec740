package accounts

import (
	"testing"
	"time"
)

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

// The failed-login policy with a fake clock: no delay up to the
// threshold, then Step more per failure up to Max; attempts arriving
// together are spaced by the delay; a success resets the address only.
func TestLoginThrottle(t *testing.T) {
	th := newLoginThrottle(LoginDelay{Threshold: 3, Step: time.Second, Max: 3 * time.Second})
	now := time.Unix(1000, 0)
	var slept []time.Duration
	advance := true // sequential attempts: the clock moves while one waits
	th.now = func() time.Time { return now }
	th.sleep = func(d time.Duration) {
		slept = append(slept, d)
		if advance {
			now = now.Add(d)
		}
	}
	for i := 0; i < 6; i++ {
		th.wait("a")
		th.fail("a")
	}
	// Waits before attempts 1..6: 0, 0, 0, then 1 s, 2 s, 3 s (Max).
	want := []time.Duration{time.Second, 2 * time.Second, 3 * time.Second}
	if len(slept) != 3 || slept[0] != want[0] || slept[1] != want[1] || slept[2] != want[2] {
		t.Fatalf("sequential waits %v, want %v", slept, want)
	}
	// Three parallel attempts (no time passes): spaced by the delay.
	slept = nil
	advance = false
	now = now.Add(time.Hour - time.Minute)
	for i := 0; i < 3; i++ {
		th.wait("a")
	}
	if len(slept) != 3 || slept[0] != 3*time.Second || slept[1] != 6*time.Second || slept[2] != 9*time.Second {
		t.Fatalf("parallel waits %v", slept)
	}
	slept = nil
	now = now.Add(time.Hour + time.Second)
	th.wait("a") // an hour without failures: forgotten
	th.wait("b") // another address is not delayed
	th.fail("a")
	th.success("a")
	th.wait("a")
	if len(slept) != 0 {
		t.Fatalf("waits after a success or for another address: %v", slept)
	}
}
