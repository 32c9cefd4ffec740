package engine

import "testing"

func TestRewriteAssignments(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT @a := 1", "SELECT sqlgw_assign('a', 1)"},
		{"SELECT @a:=1, @b := @a + 1 AS x FROM t", "SELECT sqlgw_assign('a',1), sqlgw_assign('b', sqlgw_var('a') + 1 )AS x FROM t"},
		{"SELECT @a := @b := 2", "SELECT sqlgw_assign('a', sqlgw_assign('b', 2))"},
		{"SELECT IF(x, @a := 1, @a := (2)) FROM t", "SELECT IF(x, sqlgw_assign('a', 1), sqlgw_assign('a', (2))) FROM t"},
		{"SELECT CASE d WHEN 'a' THEN @dt:= IF(p=1,(-7), (-2))  WHEN 'b' THEN @dt:=5 ELSE @dt:=(-4)END AS t",
			"SELECT CASE d WHEN 'a' THEN sqlgw_assign('dt', IF(p=1,(-7), (-2))  )WHEN 'b' THEN sqlgw_assign('dt',5 )ELSE sqlgw_assign('dt',(-4))END AS t"},
		{"SELECT @a := CASE WHEN x THEN 1 ELSE 2 END FROM t", "SELECT sqlgw_assign('a', CASE WHEN x THEN 1 ELSE 2 END )FROM t"},
		{"SELECT ':=', \"@a := 1\", `@b:=`, @c /* @d := 1 */ -- @e := 1\n", "SELECT ':=', \"@a := 1\", `@b:=`, @c /* @d := 1 */ -- @e := 1\n"},
		{"SELECT @`my var` := 'x''y'", "SELECT sqlgw_assign('my var', 'x''y')"},
		{"SET @a := 1", "SET @a := 1"},
		{"SET @a := 1; SELECT @b := 2", "SET @a := 1; SELECT sqlgw_assign('b', 2)"},
		{"SELECT @@sql_mode, @a := 1", "SELECT @@sql_mode, sqlgw_assign('a', 1)"},
		{"SELECT 1", "SELECT 1"},
		{"SELECT @a := 1 a, @a + 1 b", "SELECT sqlgw_assign('a', 1 )a, sqlgw_var('a') + 1 b"},
		{"SET @a = 1; SELECT @a := @a + 1, @a, @b, @@a, '@a'; SELECT @a", "SET @a = 1; SELECT sqlgw_assign('a', sqlgw_var('a') + 1), sqlgw_var('a'), @b, @@a, '@a'; SELECT sqlgw_var('a')"},
		{"SELECT @a := t.x IS NOT NULL `y` FROM t", "SELECT sqlgw_assign('a', t.x IS NOT NULL )`y` FROM t"},
		{"SELECT @a := 1.5 * (2 + 3) z", "SELECT sqlgw_assign('a', 1.5 * (2 + 3) )z"},
		{"SELECT @a := CASE x WHEN 1 THEN 'a' ELSE 'b' END c", "SELECT sqlgw_assign('a', CASE x WHEN 1 THEN 'a' ELSE 'b' END )c"},
	} {
		if got := RewriteAssignments(tc.in); got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}
