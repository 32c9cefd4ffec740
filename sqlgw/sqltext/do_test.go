package sqltext

import "testing"

func TestDoStatement(t *testing.T) {
	for _, c := range []struct {
		q, sel, rest string
		ok           bool
	}{
		{"DO 1+1", "SELECT 1+1", "", true},
		{"  /* c */ do SLEEP(0), @a := 2", "SELECT SLEEP(0), @a := 2", "", true},
		{"DO(1)", "SELECT(1)", "", true},
		{"DO 'a;b'; SELECT 2", "SELECT 'a;b'", " SELECT 2", true},
		{"DO 1; -- end\n", "SELECT 1", "", true},
		{"DO", "", "", false},
		{"DO ;", "", "", false},
		{"DOX 1", "", "", false},
		{"SELECT 1", "", "", false},
		{"DO /*!50000 1 */", "", "", false},
		{"`DO` 1", "", "", false},
	} {
		sel, rest, ok := DoStatement(c.q)
		if sel != c.sel || rest != c.rest || ok != c.ok {
			t.Errorf("DoStatement(%q) = %q, %q, %v; want %q, %q, %v", c.q, sel, rest, ok, c.sel, c.rest, c.ok)
		}
	}
}
