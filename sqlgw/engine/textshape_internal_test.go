package engine

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// TestScanTextShape checks the lexer's slots: plain integers and plain
// single-quoted strings only, nothing inside comments, identifiers,
// backquotes, double quotes or numbers of other kinds.
func TestScanTextShape(t *testing.T) {
	for _, c := range []struct {
		q     string
		slots []string // values; nil with ok false: not taken
		ok    bool
	}{
		{"SELECT c FROM sbtest1 WHERE id=5014", []string{"5014"}, true},
		{"SELECT c FROM sbtest1 WHERE id = 'ab' LIMIT 1", []string{"ab", "1"}, true},
		{"SELECT 1e5, 1.5, .5, 0x1F, 1abc, x'1F', t.1c FROM t2 WHERE a = 7", []string{"7"}, true},
		{"SELECT /* 5 */ a FROM `t 9` WHERE \"c 8\" = 3 # 4\n", []string{"3"}, true},
		{"SELECT a FROM t WHERE a = 1 -- 2\n AND b = 3", []string{"1", "3"}, true},
		{"SELECT a FROM t WHERE a = _utf8mb4'x' AND b = _latin1 'y' AND c = N'z' AND d = 'w'", []string{"w"}, true},
		{"SELECT a FROM t WHERE a = 'x' COLLATE utf8mb4_bin AND b = 'p' 'q' AND c = 'it''s' AND d = ''", []string{""}, true},
		{"SELECT a FROM t WHERE a = @1 AND b = -2 AND c = 1.5e+10", []string{"2"}, true},
		{"SELECT '日本' FROM t WHERE a = 'é'", []string{"日本", "é"}, true},
		{"SELECT a FROM t WHERE a = 'x\\'y'", nil, false},
		{"SELECT a FROM t WHERE a = \"x\\\"y\"", nil, false},
		{"SELECT a FROM t WHERE a = 1--2", nil, false},
		{"SELECT a FROM t WHERE a = 1 // 2", nil, false},
		{"SELECT a FROM t WHERE a = ?", nil, false},
		{"SELECT a FROM t WHERE a = :v1", nil, false},
		{"SELECT a FROM t WHERE a = 'x", nil, false},
		{"SELECT a FROM t WHERE a = 1 /* x", nil, false},
		{"SELECT /*!40001 'x' */ a FROM t WHERE a = 1", nil, false},
		{"SELECT /*+ SET_VAR(sort_buffer_size = 16000000) */ a FROM t WHERE a = 1", []string{"1"}, true},
		{"UPDATE t SET a = 1 WHERE b = 2", nil, false},
	} {
		shape, slots, ok := scanTextShape(c.q)
		if ok != c.ok {
			t.Errorf("%q: taken %v, want %v", c.q, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		var got []string
		for _, sl := range slots {
			got = append(got, c.q[sl.start:sl.end])
		}
		if fmt.Sprint(got) != fmt.Sprint(c.slots) {
			t.Errorf("%q: slots %q, want %q (shape %q)", c.q, got, c.slots, shape)
		}
	}
}

// shapeFamilies are templates of SELECT texts: {i} is an integer, {s} a
// single-quoted string, filled with random values.
var shapeFamilies = []string{
	"SELECT c FROM sbtest1 WHERE id={i}",
	"SELECT c FROM sbtest1 WHERE id BETWEEN {i} AND {i}",
	"SELECT DISTINCT c FROM sbtest1 WHERE id BETWEEN {i} AND {i} ORDER BY c",
	"SELECT id, k FROM sbtest1 WHERE k BETWEEN {i} AND {i} ORDER BY k LIMIT 10",
	"SELECT * FROM `users` WHERE `users`.`email` = {s} LIMIT 1",
	"SELECT `users`.`id` AS `users_id` FROM `users` WHERE `users`.`id` = {i} LIMIT {i}",
	"SELECT 1 FROM t WHERE id = {i}",
	"SELECT 1 FROM t WHERE id = 1 AND k = {i}",
	"SELECT {i}, name FROM t WHERE id = {i}",
	"SELECT {s} AS lit, name FROM t WHERE name = {s}",
	"select a from t1 where b in ({i}, {i}, {i}) and c = {s}",
	"SELECT a FROM t WHERE a = -{i}",
	"SELECT a FROM t WHERE a = - -{i} AND b = +{i}",
	"SELECT a FROM t WHERE a = {s} COLLATE utf8mb4_bin AND b = {i}",
	"SELECT a FROM t WHERE a = _utf8mb4{s} AND b = _latin1 {s} AND c = {s}",
	"SELECT /* id = 5 */ a FROM t WHERE id = {i} -- 7\n",
	"SELECT a FROM t WHERE id = {i} # 9",
	"SELECT a FROM t2x9 WHERE c9 = {i} AND `x 1` = {i}",
	"SELECT a FROM t WHERE \"q 1\" = {i} AND b = {s}",
	"SELECT a FROM t WHERE s = {s} 'x' AND id = {i}",
	"SELECT a FROM t WHERE f = 1.5 AND g = 1e5 AND h = .5 AND j = 0x1F AND id = {i}",
	"SELECT a || {s} FROM t WHERE b = {s} || c",
	"SELECT a FROM t WHERE id = {i} LIMIT {i}, {i}",
	"SELECT a FROM t WHERE id = {i} AND d = DATE {s}",
	"SELECT a FROM t WHERE NOT b = {i} AND id = {i}",
	"SELECT COUNT(*) FROM t WHERE id >= {i} AND id < {i}",
	"SELECT a FROM t WHERE id = {i};",
	"  SELECT a FROM t WHERE id = {i} ; ",
	"SELECT /*+ SET_VAR(sort_buffer_size = 16000000) */ a FROM t WHERE id = {i}",
	"SELECT /*!40001 SQL_NO_CACHE */ a FROM t WHERE id = {i}",
	"SELECT a FROM t WHERE id IN ({i}) ORDER BY 1",
	"SELECT a, 'lit' AS x FROM t WHERE name = {s}",
	"SELECT a FROM db1.t WHERE t.id = {i} AND t.k <= {i}",
	"SELECT a FROM t WHERE id = {i} AND b = 'it''s'",
	"SELECT a FROM t WHERE {i} = id AND {s} < name",
	"SELECT a FROM t WHERE id = {i} AND (b = {i} OR c = {i})",
	"SELECT a FROM t WHERE id = {i} AND b = ABS({i}) AND c = {i} + 1",
	"SELECT a FROM t WHERE id = {i} AND b = (SELECT MAX(x) FROM u WHERE y = {i})",
	"SELECT a FROM t WHERE id = {i} GROUP BY a HAVING COUNT(*) > {i}",
	"SELECT a FROM t WHERE id = {i} AND d > INTERVAL {i} DAY + '2020-01-01'",
	"SELECT a FROM t WHERE id = {i} UNION SELECT b FROM u WHERE id = {i}",
	"SELECT a FROM t WHERE id = {i} FOR UPDATE",
	"SELECT CAST(a AS DECIMAL({i}, 2)) FROM t WHERE id = {i}",
	"SELECT SUBSTRING(c, {i}, {i}) FROM t WHERE c LIKE {s} AND id = {i}",
	"SELECT a FROM t USE INDEX (k) WHERE k = {i}",
	"SELECT a FROM t WHERE id = {i} AND @v := {i}",
	"SELECT a FROM t AS t1 WHERE t1.id = {i} AND t1.s = {s} ORDER BY t1.id DESC LIMIT 5 OFFSET {i}",
}

// shapeValue returns a random value of a slot of kind kind ('i' or 's').
func shapeValue(r *rand.Rand, kind byte) string {
	if kind == 'i' {
		switch r.Intn(8) {
		case 0:
			return "1"
		case 1:
			return "0"
		case 2:
			return "18446744073709551615"
		case 3:
			return "18446744073709551616"
		case 4:
			return "9223372036854775808"
		case 5:
			return "007"
		case 6:
			return "3000000000"
		default:
			return strconv.Itoa(r.Intn(100000))
		}
	}
	vals := []string{"abc", "", "héllo", "日本", "5", "*/", "/*", "-- x", "#", "a\"b", "`", "a''b", "x\\y",
		"sqlgw", "\x01sqlgw0\x01", "1 OR 1=1", "?", ":v1", "a b", "2020-01-01", "\x01"}
	return "'" + vals[r.Intn(len(vals))] + "'"
}

// fillShape fills template tmpl with random values.
func fillShape(r *rand.Rand, tmpl string) string {
	var sb strings.Builder
	for i := 0; i < len(tmpl); i++ {
		if tmpl[i] == '{' && i+2 < len(tmpl) && tmpl[i+2] == '}' {
			sb.WriteString(shapeValue(r, tmpl[i+1]))
			i += 2
			continue
		}
		sb.WriteByte(tmpl[i])
	}
	return sb.String()
}

// TestTextShapeDiff runs many SELECT texts through the lexer path (a
// shape learned from one text of a template, then the bindings made from
// another text's slot values) and through the parse path (parse,
// normalizeText), under several sql_modes: where the lexer path takes a
// text, the cache key and the bindings (names, types, bytes) must be the
// parse path's.
func TestTextShapeDiff(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	parser := sql.NewMysqlParser()
	var hits, fallbacks, learned int
	fastFamilies := map[string]bool{}
	for _, mode := range []string{"", "ANSI_QUOTES", "NO_BACKSLASH_ESCAPES", "PIPES_AS_CONCAT", "HIGH_NOT_PRECEDENCE", "IGNORE_SPACE", "ANSI"} {
		opts := sql.NewSqlModeFromString(mode).ParserOptions()
		parse := func(text string) (sqlparser.Statement, bool) {
			stmt, _, rest, err := parser.ParseWithOptions(context.Background(), text, ';', true, opts)
			return stmt, err == nil && strings.TrimSpace(rest) == ""
		}
		normalized := func(text string) (map[string]*querypb.BindVariable, string, bool) {
			stmt, ok := parse(text)
			if !ok {
				return nil, "", false
			}
			if _, isSel := stmt.(*sqlparser.Select); !isSel {
				return nil, "", false
			}
			return normalizeText(stmt)
		}
		for _, tmpl := range shapeFamilies {
			for learn := 0; learn < 6; learn++ {
				first := fillShape(r, tmpl)
				if learn == 0 {
					first = strings.NewReplacer("{i}", "1", "{s}", "'a'").Replace(tmpl) // repeated values
				}
				shape, slots, ok := scanTextShape(first)
				if !ok {
					continue
				}
				bindings, key, ok := normalized(first)
				if !ok {
					continue
				}
				e := learnTextShape(parse, first, slots, key, bindings)
				if e.state != shapeFast {
					continue
				}
				learned++
				for n := 0; n < 40; n++ {
					q := fillShape(r, tmpl)
					if n == 0 {
						q = first
					}
					qshape, qslots, ok := scanTextShape(q)
					if !ok || !bytes.Equal(qshape, shape) {
						fallbacks++
						continue
					}
					got, ok := e.bindings(q, qslots)
					if !ok {
						fallbacks++
						continue
					}
					want, wantKey, ok := normalized(q)
					if !ok {
						t.Errorf("mode %q: %q runs from the shape of %q, but its parse is not cacheable", mode, q, first)
						continue
					}
					if wantKey != e.key || !sameBindings(got, want) {
						t.Errorf("mode %q: %q from the shape of %q:\nkey %q\nbindings %v\nthe parse gives:\nkey %q\nbindings %v",
							mode, q, first, e.key, got, wantKey, want)
						continue
					}
					hits++
					fastFamilies[tmpl] = true
				}
			}
		}
	}
	t.Logf("%d shapes learned, %d texts from their shape, %d fell back", learned, hits, fallbacks)
	if testing.Verbose() {
		for _, tmpl := range shapeFamilies {
			t.Logf("fast %v: %q", fastFamilies[tmpl], tmpl)
		}
	}
	for _, tmpl := range []string{
		"SELECT c FROM sbtest1 WHERE id={i}",
		"SELECT c FROM sbtest1 WHERE id BETWEEN {i} AND {i}",
		"SELECT * FROM `users` WHERE `users`.`email` = {s} LIMIT 1",
		"SELECT 1 FROM t WHERE id = {i}",
		"select a from t1 where b in ({i}, {i}, {i}) and c = {s}",
		"SELECT /* id = 5 */ a FROM t WHERE id = {i} -- 7\n",
		"SELECT a FROM t WHERE id = {i};",
	} {
		if !fastFamilies[tmpl] {
			t.Errorf("no text of %q ran from its shape", tmpl)
		}
	}
}

func sameBindings(a, b map[string]*querypb.BindVariable) bool {
	if len(a) != len(b) {
		return false
	}
	for name, x := range a {
		y := b[name]
		if y == nil || x.Type != y.Type || !bytes.Equal(x.Value, y.Value) {
			return false
		}
	}
	return true
}

// BenchmarkTextShape compares what a text point select costs before its
// plan runs: the lexer and the shape's bindings (textshape.go) against the
// parse and normalizeText (textcache.go).
func BenchmarkTextShape(b *testing.B) {
	parser := sql.NewMysqlParser()
	opts := sql.NewSqlModeFromString("").ParserOptions()
	parse := func(text string) (sqlparser.Statement, bool) {
		stmt, _, rest, err := parser.ParseWithOptions(context.Background(), text, ';', true, opts)
		return stmt, err == nil && strings.TrimSpace(rest) == ""
	}
	texts := make([]string, 1024)
	for i := range texts {
		texts[i] = "SELECT c FROM sbtest1 WHERE id=" + strconv.Itoa(i*97+1)
	}
	b.Run("parse", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			stmt, ok := parse(texts[i%len(texts)])
			if !ok {
				b.Fatal("parse")
			}
			if _, _, ok := normalizeText(stmt); !ok {
				b.Fatal("normalize")
			}
		}
	})
	b.Run("shape", func(b *testing.B) {
		_, slots, _ := scanTextShape(texts[0])
		stmt, _ := parse(texts[0])
		bindings, key, _ := normalizeText(stmt)
		e := learnTextShape(parse, texts[0], slots, key, bindings)
		if e.state != shapeFast {
			b.Fatal("not learned")
		}
		var pc planCache
		shape, _, _ := scanTextShape(texts[0])
		pc.putTextShape("", shape, e)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			q := texts[i%len(texts)]
			shape, slots, ok := scanTextShape(q)
			if !ok {
				b.Fatal("scan")
			}
			e := pc.textShape("", shape)
			if e == nil {
				b.Fatal("miss")
			}
			if _, ok := e.bindings(q, slots); !ok {
				b.Fatal("bindings")
			}
		}
	})
}
