package engine

import (
	"strings"
	"testing"
)

// TestScanInsertText: the literals scanInsertText takes out of a text
// INSERT, and the texts it leaves to the parser.
func TestScanInsertText(t *testing.T) {
	for _, c := range []struct {
		q        string
		template string // "" if the text is not taken
		lits     []string
	}{
		{"INSERT INTO sbtest1 (id, k, c, pad) VALUES (0, 5014, '123-456', 'x y')", "INSERT INTO sbtest1 (id, k, c, pad) VALUES (\x00i, \x00i, \x00s, \x00s)", []string{"0", "5014", "123-456", "x y"}},
		{"insert into t2 values (1,'a'),(22,'')", "insert into t2 values (\x00i,\x00s),(\x00i,\x00s)", []string{"1", "a", "22", ""}},
		{"INSERT INTO `t 9` (`c1`) VALUES (007)", "INSERT INTO `t 9` (`c1`) VALUES (\x00i)", []string{"007"}},
		{"INSERT INTO t (a) VALUES (-5)", "INSERT INTO t (a) VALUES (-\x00i)", []string{"5"}},
		{"INSERT INTO t (a) VALUES ('it''s')", "", nil},
		{"INSERT INTO t (a) VALUES ('a\\'b')", "", nil},
		{"INSERT INTO t (a) VALUES (1.5)", "", nil},
		{"INSERT INTO t (a) VALUES (1e5)", "", nil},
		{"INSERT INTO t (a) VALUES (0x1F)", "", nil},
		{"INSERT INTO t (a) VALUES (X'1F')", "", nil},
		{"INSERT INTO t (a) VALUES (_utf8mb4'x')", "", nil},
		{"INSERT INTO t (a) VALUES (\"x\")", "", nil},
		{"INSERT INTO t (a) VALUES (1) -- c", "", nil},
		{"INSERT INTO t (a) VALUES (1) /* c */", "", nil},
		{"INSERT INTO t (a) VALUES (1) # c", "", nil},
		{"INSERT INTO t (a) VALUES ('unterminated)", "", nil},
		{"INSERT INTO t (a) VALUES (NULL)", "", nil}, // no literal
		{"SELECT 1", "", nil},
		{"INSERT INTO t (a) VALUES ('" + strings.Repeat("x", maxWriteText) + "')", "", nil},
	} {
		template, lits, ok := scanInsertText(c.q)
		if ok != (c.template != "") || template != c.template {
			t.Errorf("%q: template %q, ok %v; want %q", c.q, template, ok, c.template)
			continue
		}
		var got []string
		for _, l := range lits {
			got = append(got, string(l.val))
		}
		if strings.Join(got, "|") != strings.Join(c.lits, "|") {
			t.Errorf("%q: literals %q, want %q", c.q, got, c.lits)
		}
	}
}
