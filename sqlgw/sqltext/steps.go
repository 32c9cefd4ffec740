package sqltext

import (
	"strconv"
	"strings"
)

// Wire is the pipeline the connection handler runs on every COM_QUERY
// text before go-mysql-server sees it, in this order.
var Wire = []Step{MariaDBOnly, Assignments, TimePrecision, CreateSelectAs}

// Prepare is the pipeline the connection wrapper runs on the text of
// COM_STMT_PREPARE, which vitess parses before the handler sees it.
var Prepare = []Step{PrepareDo, Assignments, PrepareTxCharacteristics, ForShare}

// Parse is the pipeline sqlgw's parser wrapper runs on every text it
// hands go-mysql-server's parser. It is separate from Wire because the
// engine keeps the text Wire produced as the statement's text
// (ctx.Query()), from which the read path takes the index hints again.
var Parse = []Step{IndexHints, TxCharacteristics, ForShare, Rollup}

// MariaDBOnly removes leading MariaDB executable comments,
// /*M!NNNNNN ... */ (each with a ';' after it): MariaDB runs their text
// from version NNNNNN on, MySQL treats them as comments, and so does
// sqlgw, which is MySQL 8 to clients. mariadb-dump starts every dump with
// one ("enable the sandbox mode"). A text with nothing else is Empty.
var MariaDBOnly = Step{
	Name:     "mariadb-only",
	Upstream: "vitess's parser runs /*M!...*/ as code, like /*!...*/ (a syntax error on the dump's first line)",
	Apply: func(t *Text) {
		if !strings.HasPrefix(strings.TrimLeft(t.Src, " \t\n\r\f\v"), "/*M!") {
			return
		}
		toks := t.Tokens()
		cut := 0
		for k := 0; ; {
			for k < len(toks) && toks[k].Kind == Space {
				k++
			}
			if k == len(toks) || toks[k].Kind != MariaDBComment || !strings.HasSuffix(toks[k].Text(t.Src), "*/") {
				break // (an unterminated one is the parser's error)
			}
			k++
			for k < len(toks) && toks[k].Kind == Space {
				k++
			}
			if k < len(toks) && toks[k].IsOp(t.Src, ";") {
				k++
			}
			for k < len(toks) && toks[k].Kind == Space {
				k++
			}
			cut = len(t.Src)
			if k < len(toks) {
				cut = toks[k].Start
			}
		}
		if cut == 0 {
			return
		}
		if strings.TrimSpace(t.Src[cut:]) == "" {
			t.Empty = true
			cut = len(t.Src)
		}
		t.Replace(0, cut, "")
	},
}

// TimePrecision reads every "column TIME[(n)]" of a CREATE or ALTER
// TABLE (the first statement of the text only) into TimePrecisions and
// writes TIME(0) to TIME(5) as TIME(6); sqlgw keeps and applies the
// declared precision itself (see the TIME(n) notes of the engine). An
// invalid precision leaves the text alone, for the engine's error.
var TimePrecision = Step{
	Name:     "time-precision",
	Upstream: `go-mysql-server has one TIME type (six digits) and rejects TIME(0..5) in DDL ("TIME length not yet supported")`,
	Apply: func(t *Text) {
		w := LeadingWords(t.Src, 3)
		if len(w) < 2 || (w[0] != "create" && w[0] != "alter") ||
			(w[1] != "table" && !(len(w) > 2 && w[2] == "table")) || // CREATE TEMPORARY TABLE, ALTER IGNORE TABLE
			!strings.Contains(strings.ToLower(t.Src), "time") {
			return
		}
		q, toks := t.Src, t.Tokens()
		decl := map[string]int{}
		var edits [][2]int // "(n)" ranges to write as "(6)"
		prev := ""         // the previous identifier, lower-cased and unquoted
	scan:
		for k := 0; k < len(toks); {
			tok := toks[k]
			switch tok.Kind {
			case String:
				prev = ""
			case QuotedIdent:
				prev = strings.ToLower(Unquote(tok.Text(q)))
			case VersionOpen:
				k = skipVersion(toks, k) // a comment here, as MySQL 8 sees it
				continue
			case Space, LineComment, Comment, MariaDBComment, HintComment:
			case Word, Number:
				word := tok.Text(q)
				if !strings.EqualFold(word, "time") || prev == "" {
					prev = strings.ToLower(word)
					break
				}
				// TIME after a column name: a column definition.
				fsp, end := 0, tok.End
				j := tok.End
				for j < len(q) && (q[j] == ' ' || q[j] == '\t' || q[j] == '\n' || q[j] == '\r') {
					j++
				}
				if j < len(q) && q[j] == '(' {
					close := strings.IndexByte(q[j:], ')')
					if close < 0 {
						return // the engine reports the syntax error
					}
					n, err := strconv.Atoi(strings.TrimSpace(q[j+1 : j+close]))
					if err != nil || n < 0 || n > 6 {
						return // the engine reports it
					}
					fsp, end = n, j+close+1
					if n < 6 {
						edits = append(edits, [2]int{j, end})
					}
				}
				decl[prev] = fsp
				prev = ""
				for k < len(toks) && toks[k].Start < end {
					k++
				}
				continue
			case Op:
				if tok.IsOp(q, ";") {
					break scan // the handler sees the next statement on its own
				}
				prev = ""
			default:
				prev = ""
			}
			k++
		}
		for _, e := range edits {
			t.Replace(e[0], e[1], "(6)")
		}
		t.TimePrecisions = decl
	},
}
