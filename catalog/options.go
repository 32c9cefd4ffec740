package catalog

import (
	"fmt"
	"strconv"
	"strings"
)

// TableOptions are the sqlgw options of a table comment.
type TableOptions struct {
	// PartitionKey from partition_key=(a,b); nil if absent.
	PartitionKey []string
	// Group from group=name: the table group the table joins (group.go);
	// "" if absent.
	Group string
	// SaltBuckets from salt_buckets=n (salt.go); 0 if absent.
	SaltBuckets int
}

// optionsMarker starts sqlgw's options in a table comment.
const optionsMarker = "sqlgw:"

// ParseTableOptions parses the sqlgw options in a table comment. The
// options start at "sqlgw:" (case-insensitive; any text before it is an
// ordinary comment) and run to the end of the comment:
//
//	sqlgw: partition_key=(tenant, `order id`) salt_buckets=8
//	sqlgw: group=sales, partition_key=(cust)
//
// Options are name=value pairs separated by spaces, commas or semicolons;
// partition_key takes a parenthesised list of column names, each bare
// (letters, digits, _, $) or quoted with backticks (“ inside for one);
// salt_buckets takes an integer from 1 to MaxSaltBuckets (salt.go);
// group takes one such name (a table group, group.go).
// A comment without "sqlgw:" has no options. Unknown options, duplicate
// options, and syntax errors are errors wrapping ErrInvalidDef. Whether
// the columns exist and are primary-key columns is checked by CreateTable.
func ParseTableOptions(comment string) (TableOptions, error) {
	var opts TableOptions
	i := strings.Index(strings.ToLower(comment), optionsMarker)
	if i < 0 {
		return opts, nil
	}
	p := &optParser{s: comment[i+len(optionsMarker):]}
	seen := map[string]bool{}
	for {
		p.skipSep()
		if p.done() {
			break
		}
		name := strings.ToLower(p.word())
		if name == "" {
			return opts, p.errorf("option name expected")
		}
		p.skipSpace()
		if !p.eat('=') {
			return opts, p.errorf("'=' expected after %q", name)
		}
		p.skipSpace()
		if seen[name] {
			return opts, p.errorf("option %q given twice", name)
		}
		seen[name] = true
		switch name {
		case "partition_key":
			cols, err := p.identList()
			if err != nil {
				return opts, err
			}
			opts.PartitionKey = cols
		case "group":
			g, err := p.ident()
			if err != nil {
				return opts, err
			}
			opts.Group = g
		case "salt_buckets":
			w := p.word()
			n, err := strconv.Atoi(w)
			if err != nil || n < 1 || n > MaxSaltBuckets {
				return opts, p.errorf("salt_buckets=%q: an integer from 1 to %d expected", w, MaxSaltBuckets)
			}
			opts.SaltBuckets = n
		default:
			return opts, p.errorf("unknown option %q", name)
		}
	}
	return opts, nil
}

type optParser struct {
	s   string
	pos int
}

func (p *optParser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: table comment option at offset %d: %s", ErrInvalidDef, p.pos, fmt.Sprintf(format, args...))
}

func (p *optParser) done() bool { return p.pos >= len(p.s) }

func (p *optParser) skipSpace() {
	for p.pos < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *optParser) skipSep() {
	for p.pos < len(p.s) && strings.IndexByte(" \t\r\n,;", p.s[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *optParser) eat(c byte) bool {
	if p.pos < len(p.s) && p.s[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

func (p *optParser) word() string {
	start := p.pos
	for p.pos < len(p.s) && isWordByte(p.s[p.pos]) {
		p.pos++
	}
	return p.s[start:p.pos]
}

func (p *optParser) ident() (string, error) {
	if p.eat('`') {
		var sb strings.Builder
		for {
			if p.done() {
				return "", p.errorf("unterminated `quoted` name")
			}
			c := p.s[p.pos]
			p.pos++
			if c == '`' {
				if p.eat('`') {
					sb.WriteByte('`')
					continue
				}
				break
			}
			sb.WriteByte(c)
		}
		if sb.Len() == 0 {
			return "", p.errorf("empty column name")
		}
		return sb.String(), nil
	}
	w := p.word()
	if w == "" {
		return "", p.errorf("column name expected")
	}
	return w, nil
}

func (p *optParser) identList() ([]string, error) {
	if !p.eat('(') {
		// A single bare column is accepted too: partition_key=tenant.
		id, err := p.ident()
		if err != nil {
			return nil, err
		}
		return []string{id}, nil
	}
	var out []string
	for {
		p.skipSpace()
		id, err := p.ident()
		if err != nil {
			return nil, err
		}
		out = append(out, id)
		p.skipSpace()
		if p.eat(')') {
			return out, nil
		}
		if !p.eat(',') {
			return nil, p.errorf("',' or ')' expected")
		}
	}
}
