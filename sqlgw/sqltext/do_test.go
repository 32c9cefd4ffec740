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

func TestPrepareFrom(t *testing.T) {
	vars := func(name string) (string, bool) {
		v, ok := map[string]string{"q": "DO 1", "Q": "DO 1", "sel": "SELECT 1"}[name]
		return v, ok
	}
	for _, c := range []struct {
		q, name, out string
		isDo, ok     bool
	}{
		{"PREPARE s FROM 'DO 1'", "s", "PREPARE s FROM 'SELECT /*sqlgw-do*/ 1'", true, true},
		{"prepare `My` from \"do @a := ?\"; EXECUTE My", "my", "prepare `My` from 'SELECT /*sqlgw-do*/ sqlgw_assign(''a'', ?)'; EXECUTE My", true, true},
		{"PREPARE s FROM 'DO ''x'''", "s", "PREPARE s FROM 'SELECT /*sqlgw-do*/ ''x'''", true, true},
		{"PREPARE s FROM 'SELECT 1'", "s", "PREPARE s FROM 'SELECT 1'", false, true},
		{"PREPARE s FROM 'DO 1; DO 2'", "s", "PREPARE s FROM 'DO 1; DO 2'", false, true},
		{"PREPARE s FROM @q", "s", "PREPARE s FROM 'SELECT /*sqlgw-do*/ 1'", true, true},
		{"PREPARE s FROM @`Q`", "s", "PREPARE s FROM 'SELECT /*sqlgw-do*/ 1'", true, true},
		{"PREPARE s FROM @sel", "s", "PREPARE s FROM @sel", false, true},
		{"PREPARE s FROM @none", "s", "PREPARE s FROM @none", false, true},
		{"PREPARE s FROM @@q", "s", "PREPARE s FROM @@q", false, true},
		{"SELECT 'PREPARE s FROM ''DO 1'''", "", "", false, false},
		{"PREPARE s", "", "", false, false},
	} {
		name, out, isDo, ok := PrepareFrom(c.q, vars)
		if name != c.name || out != c.out || isDo != c.isDo || ok != c.ok {
			t.Errorf("PrepareFrom(%q) = %q, %q, %v, %v; want %q, %q, %v, %v", c.q, name, out, isDo, ok, c.name, c.out, c.isDo, c.ok)
		}
	}
}

func TestExecuteName(t *testing.T) {
	for _, c := range []struct {
		q, name string
		ok      bool
	}{
		{"EXECUTE s", "s", true},
		{" execute `S` USING @a, @b; SELECT 1", "s", true},
		{"EXECUTE s extra", "", false},
		{"EXECUTE", "", false},
		{"SELECT 1", "", false},
	} {
		name, ok := ExecuteName(c.q)
		if name != c.name || ok != c.ok {
			t.Errorf("ExecuteName(%q) = %q, %v; want %q, %v", c.q, name, ok, c.name, c.ok)
		}
	}
}
