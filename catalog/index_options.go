package catalog

import (
	"fmt"
	"strings"
)

// IndexOptions are the sqlgw options of an index comment:
//
//	CREATE INDEX by_city ON users (city, age) COMMENT 'sqlgw: global, cover=(name, email)'
//	CREATE INDEX by_status ON orders (cust, status) COMMENT 'sqlgw: local'
//
// Words: "global" or "local" choose the kind; cover=(a, b) (or cover=a)
// names covering columns, whose values the index entities duplicate so
// that queries needing only them read no base row. As in table comments,
// the options start at "sqlgw:" and any text before it is an ordinary
// comment; names are bare or `quoted`.
type IndexOptions struct {
	// Kind is "global", "local" or "" (not given: ChooseIndexKind).
	Kind  string
	Cover []string
}

// ParseIndexOptions parses an index comment's sqlgw options. Unknown
// options and syntax errors wrap ErrInvalidDef.
func ParseIndexOptions(comment string) (IndexOptions, error) {
	var opts IndexOptions
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
			return opts, p.indexErrorf("option name expected")
		}
		if seen[name] || (opts.Kind != "" && (name == "global" || name == "local")) {
			return opts, p.indexErrorf("option %q given twice", name)
		}
		seen[name] = true
		switch name {
		case "global", "local":
			opts.Kind = name
		case "cover":
			p.skipSpace()
			if !p.eat('=') {
				return opts, p.indexErrorf("'=' expected after cover")
			}
			p.skipSpace()
			cols, err := p.identList()
			if err != nil {
				return opts, err
			}
			opts.Cover = cols
		default:
			return opts, p.indexErrorf("unknown option %q (want global, local or cover=(...))", name)
		}
	}
	return opts, nil
}

func (p *optParser) indexErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: index comment option at offset %d: %s", ErrInvalidDef, p.pos, fmt.Sprintf(format, args...))
}

// ChooseIndexKind decides whether an index on cols (of a keyed table t)
// is global. kind is the comment's choice ("" for none). The default is
// local when the index columns start with every PartitionKey column (a
// query that binds the index's leading columns then binds the partition,
// and a unique index is unique across partitions), else global (the design
// guide's inter-partition index). A local UNIQUE index must include the
// PartitionKey columns as a prefix: uniqueness is checked within one
// partition only. Keyless tables (every row in one partition "") take
// local by default.
func ChooseIndexKind(t *Table, cols []KeyPart, unique bool, kind string) (global bool, err error) {
	prefix := len(t.PartitionKey) <= len(cols)
	if prefix {
		for i, p := range t.PartitionKey {
			if !strings.EqualFold(cols[i].Column, p) {
				prefix = false
				break
			}
		}
	}
	if t.Keyless() {
		prefix = true
	}
	switch kind {
	case "global":
		if t.Keyless() {
			return false, fmt.Errorf("%w: a global index on a table without a primary key", ErrInvalidDef)
		}
		return true, nil
	case "local":
		if unique && !prefix {
			return false, fmt.Errorf("%w: a local UNIQUE index must start with the partition key columns (%s)", ErrInvalidDef, strings.Join(t.PartitionKey, ", "))
		}
		return false, nil
	}
	return !prefix, nil
}
