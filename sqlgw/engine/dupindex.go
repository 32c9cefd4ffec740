package engine

import (
	"context"
	"regexp"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/sqlgw/sqlgw/catalog"
)

// Warning 1831 (ER_DUP_INDEX)
//
// MySQL warns "Duplicate index 'i' defined on the table 'd.t'" when a
// new index has the same key parts, in the same order, as another index
// of the table. go-mysql-server's check (rowexec
// warnOnDuplicateSecondaryIndex) means to do the same, but its
// per-column `continue` only continues the inner loop, so it warns for
// any two secondary indexes with as many columns: CREATE TABLE t (a INT,
// b INT, KEY(a), KEY(b)) warned, where MySQL is silent, and an ORM or a
// migration tool that treats warnings as failures stopped there. Session.Warn
// keeps the warning only when the catalog says the index really
// duplicates another one. Upstream, the fix is a labelled `continue` of
// the outer loop in warnOnDuplicateSecondaryIndex.

var dupIndexMsg = regexp.MustCompile(`^Duplicate index '(.*)' defined on the table '([^.']*)\.(.*)'\.`)

// falseDuplicateIndex reports whether w is go-mysql-server's 1831 warning
// for an index that duplicates no other index of its table.
func (s *Session) falseDuplicateIndex(w *sql.Warning) bool {
	m := dupIndexMsg.FindStringSubmatch(w.Message)
	if m == nil || s.GW == nil || s.GW.Catalog == nil {
		return false
	}
	t, err := s.GW.Catalog.Table(context.Background(), m[2], m[3])
	if err != nil || t == nil {
		return false
	}
	var idx *catalog.Index
	for i := range t.Indexes {
		if strings.EqualFold(t.Indexes[i].Name, m[1]) {
			idx = &t.Indexes[i]
		}
	}
	if idx == nil {
		return false
	}
	for i := range t.Indexes {
		if o := &t.Indexes[i]; o != idx && sameKeyParts(o.Columns, idx.Columns) {
			return false
		}
	}
	return true
}

// sameKeyParts reports whether two indexes have the same key parts in the
// same order (MySQL's test for a duplicate index).
func sameKeyParts(a, b []catalog.KeyPart) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !strings.EqualFold(a[i].Column, b[i].Column) || a[i].Desc != b[i].Desc {
			return false
		}
	}
	return true
}
