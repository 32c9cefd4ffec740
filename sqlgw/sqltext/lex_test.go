package sqltext

import (
	"slices"
	"strings"
	"testing"
)

// show renders tokens as kind:text, blanks left out.
func show(q string) string {
	var out []string
	for _, t := range Lex(q) {
		if t.Kind == Space {
			continue
		}
		out = append(out, t.Kind.String()+":"+t.Text(q))
	}
	return strings.Join(out, " ")
}

func TestLex(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"SELECT a, b FROM t", "word:SELECT word:a op:, word:b word:FROM word:t"},
		// Comments of every kind.
		{"SELECT 1 # c\n+ 2", "word:SELECT number:1 line-comment:# c\n op:+ number:2"},
		{"SELECT 1 -- c\n, 2 --x", "word:SELECT number:1 line-comment:-- c\n op:, number:2 op:- op:- word:x"},
		{"SELECT 1 --\tc", "word:SELECT number:1 line-comment:--\tc"},
		{"SELECT 1--", "word:SELECT number:1 line-comment:--"},
		{"SELECT /* a */ 1 /*+ BKA(t) */ /*M!100000 x */", "word:SELECT comment:/* a */ number:1 hint:/*+ BKA(t) */ mariadb-comment:/*M!100000 x */"},
		// Executable comments: the text inside is code.
		{"/*!40101 SET x=1 */; SELECT 2 */", "version-open:/*!40101 word:SET word:x op:= number:1 version-close:*/ op:; word:SELECT number:2 op:* op:/"},
		{"SELECT /*! STRAIGHT_JOIN */ 1", "word:SELECT version-open:/*! word:STRAIGHT_JOIN version-close:*/ number:1"},
		// Comments do not nest: the first */ closes the executable comment,
		// before the end of a line comment inside it too.
		{"/*!40101 a /* b */ c", "version-open:/*!40101 word:a op:/ op:* word:b version-close:*/ word:c"},
		{"/*!40101 -- x */ y", "version-open:/*!40101 line-comment:-- x  version-close:*/ word:y"},
		// Strings: both escape styles, both quotes.
		{`SELECT 'it''s', 'a\'b', "x""y", "a\"b", '\\'`, `word:SELECT string:'it''s' op:, string:'a\'b' op:, string:"x""y" op:, string:"a\"b" op:, string:'\\'`},
		{"SELECT 'no end", "word:SELECT string:'no end"},
		// Quoted identifiers: doubled backquotes, no backslash escapes.
		{"SELECT `a``b`, `c\\` FROM `t`", "word:SELECT quoted-ident:`a``b` op:, quoted-ident:`c\\` word:FROM quoted-ident:`t`"},
		// Numbers, and words that start with digits.
		{"SELECT 1, 1.5, .5, 1e3, 2E-4, 0x1F, 0b101, 1abc, 0xZZ, 12_3", "word:SELECT number:1 op:, number:1.5 op:, op:. number:5 op:, number:1e3 op:, number:2E-4 op:, number:0x1F op:, number:0b101 op:, word:1abc op:, word:0xZZ op:, word:12_3"},
		{"SELECT t.1x, t1.c", "word:SELECT word:t op:. word:1x op:, word:t1 op:. word:c"},
		// Variables.
		{"SELECT @a, @'b c', @`d`, @\"e\", @@sql_mode, @@session.x, @", "word:SELECT variable:@a op:, variable:@'b c' op:, variable:@`d` op:, variable:@\"e\" op:, variable:@@sql_mode op:, variable:@@session.x op:, op:@"},
		// Operators.
		{"a:=b<=>c<=d>=e<>f!=g||h&&i<<j>>k->l->>m", "word:a op::= word:b op:<=> word:c op:<= word:d op:>= word:e op:<> word:f op:!= word:g op:|| word:h op:&& word:i op:<< word:j op:>> word:k op:-> word:l op:->> word:m"},
		{"SELECT ü, $x", "word:SELECT word:ü op:, word:$x"},
	} {
		if got := show(tc.in); got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

// TestLexCovers: tokens cover the text exactly, in order, whatever it is.
func TestLexCovers(t *testing.T) {
	for _, q := range []string{"", "'", "`", "/*", "/*!", "/*! */ */", "@", "@'", "--", "#", "x'", "'a\\", "\x00\xff ü", "1e", "1e+", "0x", "*/"} {
		end := 0
		for _, tok := range Lex(q) {
			if tok.Start != end || tok.End <= tok.Start {
				t.Fatalf("%q: token %+v after %d", q, tok, end)
			}
			end = tok.End
		}
		if end != len(q) {
			t.Fatalf("%q: tokens end at %d", q, end)
		}
	}
}

func TestUnquote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`'it''s'`, "it's"},
		{`'a\'b\\c\nd\te\0f\%g\_h\zi'`, "a'b\\c\nd\te\x00f\\%g\\_hzi"},
		{`"x""y\"z"`, `x"y"z`},
		{"`a``b\\n`", "a`b\\n"},
		{"'unterminated", "unterminated"},
	} {
		if got := Unquote(tc.in); got != tc.want {
			t.Errorf("Unquote(%s) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSkipSpaceEmptyLeadingWords(t *testing.T) {
	q := " \t/* a */ # b\n-- c\n/*!40101 d */ /*M!1 e*/ /*+ f */\fx"
	if i := SkipSpace(q, 0); q[i:] != "x" {
		t.Errorf("SkipSpace: at %q", q[i:])
	}
	for q, want := range map[string]bool{
		"": true, " /* x */ -- y\n# z": true, "/* unterminated": false, "--": true, "-- x": true,
		"/*!40101 */": false, "/*M!1 x */": false, "/*+ x */": false, ";": false, "--x": false,
	} {
		if IsEmpty(q) != want {
			t.Errorf("IsEmpty(%q) = %v", q, !want)
		}
	}
	for q, want := range map[string][]string{
		"/* x */ Create TEMPORARY table t": {"create", "temporary", "table"},
		"(( select 1":                      {"select"},
		"/*!40101 SET */ alter table":      {"alter", "table"},
		"drop table1 x":                    {"drop", "table"},
		"   ":                              nil,
		"-- c\nSHOW":                       {"show"},
	} {
		if got := LeadingWords(q, 3); !slices.Equal(got, want) {
			t.Errorf("LeadingWords(%q) = %q, want %q", q, got, want)
		}
	}
}
