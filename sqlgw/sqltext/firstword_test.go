package sqltext

import (
	"strings"
	"testing"
)

// FirstWord is LeadingWords(q, 1) without the lower-casing and the
// allocations.
func TestFirstWord(t *testing.T) {
	for _, q := range []string{
		"", "   ", "SELECT 1", "  select c from t", "(SELECT 1) UNION (SELECT 2)", "((  Select 1))",
		"/* c */ Insert INTO t VALUES (1)", "# line\nUPDATE t SET a=1", "-- x\n\tDELETE FROM t",
		"/*!50000 SELECT */ 1", "1 + 1", "`select`", "With x AS (SELECT 1) SELECT * FROM x",
		"select_x", "SET @a=1", "(", "/* unterminated",
	} {
		want := ""
		if w := LeadingWords(q, 1); len(w) > 0 {
			want = w[0]
		}
		if got := strings.ToLower(FirstWord(q)); got != want {
			t.Errorf("FirstWord(%q) = %q, want %q (LeadingWords)", q, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = FirstWord("  /* c */ (SELECT c FROM t)") }); n != 0 {
		t.Errorf("FirstWord allocates %v times", n)
	}
}
