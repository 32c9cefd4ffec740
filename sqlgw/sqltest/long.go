package sqltest

import (
	"os"
	"strings"
	"testing"
)

// LongEnv is the environment variable that runs the long end-to-end
// tests: `make unittest` (and so `make test` and CI) sets it; a plain
// `go test ./...` leaves them out, so that it stays a few minutes on two
// cores.
const LongEnv = "SQLGW_LONG"

// IsLong reports whether the long tests run (LongEnv set, or a soak run).
func IsLong() bool { return os.Getenv(LongEnv) != "" || os.Getenv("SQLGW_SOAK") != "" }

// Long skips t unless the long tests run (IsLong): tests that crash the
// store at every request of a commit, or fill Azurite past several pages.
func Long(t testing.TB) {
	t.Helper()
	if !IsLong() {
		t.Skipf("long end-to-end test: %s=1 runs it (make unittest does)", LongEnv)
	}
}

// LongOnAzurite is Long for the Azurite variant of a ForEachBackend test
// only (its subtest's name ends in "/azurite"): the other backends run in
// every go test.
func LongOnAzurite(t testing.TB) {
	t.Helper()
	if strings.HasSuffix(t.Name(), "/"+Azurite.Name) {
		Long(t)
	}
}
