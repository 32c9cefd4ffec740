package wire

import (
	"strings"
	"testing"
)

// retryVerb is retryVerbs' lookup in any case, without allocating.
func TestRetryVerb(t *testing.T) {
	for _, w := range []string{"select", "SELECT", "Insert", "uPdAtE", "DELETE", "replace", "WITH", "table", "Values"} {
		if !retryVerb(w) {
			t.Errorf("retryVerb(%q) = false", w)
		}
		if !retryVerbs[strings.ToLower(w)] {
			t.Fatalf("%q is not in retryVerbs", w)
		}
	}
	for _, w := range []string{"", "set", "selects", "sel", "begin", "commit", "call", "do", "delimiter", "selectselect"} {
		if retryVerb(w) {
			t.Errorf("retryVerb(%q) = true", w)
		}
	}
	if n := testing.AllocsPerRun(100, func() { retryVerb("SELECT") }); n != 0 {
		t.Errorf("retryVerb allocates %v times", n)
	}
}
