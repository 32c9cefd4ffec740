package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw/mysqlerr"
)

// MySQL's errors for foreign keys
//
// go-mysql-server reports foreign key violations with the right codes
// (1451, 1452) but its own wording, and most other foreign key errors as
// 1105. By the time an error reaches the handler only its text is left, so
// foreignKeyError recognises the engine's messages (the format strings of
// its error kinds, sql/errors.go) and rewrites them to MySQL 8's code,
// SQLSTATE and text, reading the constraint's columns from the catalog
// where MySQL's text shows them.

// MySQL error numbers vitess has no constant for.
const (
	erTruncateIllegalFK   = 1701
	erDropIndexFK         = 1553
	erFKDupName           = 1826
	erFKNoIndexParent     = 1822
	erFKIncompatibleCols  = 3780
	erFKColumnNotNull     = 1830
	erFKDepthExceeded     = 3008
	erFKCannotDropParent  = 3730
	erBlobKeyWithoutLen   = 1170
	erFKColumnCannotDrop  = 1828
	erNoReferencedRowText = "Cannot add or update a child row: a foreign key constraint fails"
	erRowReferencedText   = "Cannot delete or update a parent row: a foreign key constraint fails"
)

// The patterns of go-mysql-server's foreign key errors, derived from the
// kinds' own message formats (mysqlerr.KindPattern).
var (
	reFKChild       = mysqlerr.KindPattern(sql.ErrForeignKeyChildViolation, false)
	reFKParent      = mysqlerr.KindPattern(sql.ErrForeignKeyParentViolation, false)
	reFKNotResolved = mysqlerr.KindPattern(sql.ErrForeignKeyNotResolved, false)
	reFKDropTable   = mysqlerr.KindPattern(sql.ErrForeignKeyDropTable, false)
	reFKDropIndex   = mysqlerr.KindPattern(sql.ErrForeignKeyDropIndex, false)
	reFKTruncate    = mysqlerr.KindPattern(sql.ErrTruncateReferencedFromForeignKey, false)
	reFKDupName     = mysqlerr.KindPattern(sql.ErrForeignKeyDuplicateName, false)
	reFKNoIndex     = mysqlerr.KindPattern(sql.ErrForeignKeyMissingReferenceIndex, false)
	reFKTypes       = mysqlerr.KindPattern(sql.ErrForeignKeyColumnTypeMismatch, false)
	reFKSetNull     = mysqlerr.KindPattern(sql.ErrForeignKeySetNullNonNullable, false)
	reFKDepth       = mysqlerr.KindPattern(sql.ErrForeignKeyDepthLimit, false)
	reFKTextBlob    = mysqlerr.KindPattern(sql.ErrForeignKeyTextBlob, false)
	reFKDropColumn  = mysqlerr.KindPattern(sql.ErrForeignKeyDropColumn, false)
	reFKTypeNull    = mysqlerr.KindPattern(sql.ErrForeignKeyTypeChangeSetNull, false)
	reFKTypeChange  = mysqlerr.KindPattern(sql.ErrForeignKeyTypeChange, false)
	reFKSetDefault  = mysqlerr.KindPattern(sql.ErrForeignKeySetDefault, false)
	reFKNotFound    = mysqlerr.KindPattern(sql.ErrForeignKeyNotFound, false)
)

// fkNotResolvedPrefix is the text of sql.ErrForeignKeyNotResolved before
// the constraint's description, which MySQL's text keeps (with its space:
// the hand-written pattern this replaces dropped it).
const fkNotResolvedPrefix = "cannot add or update a child row: a foreign key constraint fails"

// foreignKeyError rewrites go-mysql-server's foreign key errors into
// MySQL's; db is the session's current database. Other errors pass.
func (g *Gateway) ForeignKeyError(err error, db string) error {
	var se *mysql.SQLError
	if !errors.As(err, &se) {
		return err
	}
	msg := se.Message
	num, state, out := 0, "", ""
	switch {
	case se.Num == mysql.ErNoReferencedRow2:
		if m := reFKChild.FindStringSubmatch(msg); m != nil {
			num, state, out = mysql.ErNoReferencedRow2, "23000", erNoReferencedRowText+g.describeFK(db, m[2], m[1])
		}
	case se.Num == mysql.ERRowIsReferenced2:
		if m := reFKParent.FindStringSubmatch(msg); m != nil {
			num, state, out = mysql.ERRowIsReferenced2, "23000", erRowReferencedText+g.describeFK(db, m[2], m[1])
		}
	case se.Num != mysql.ERUnknownError:
	case reFKNotResolved.MatchString(msg):
		num, state, out = mysql.ErNoReferencedRow2, "23000", erNoReferencedRowText+strings.TrimPrefix(msg, fkNotResolvedPrefix)
	case reFKDropTable.MatchString(msg):
		m := reFKDropTable.FindStringSubmatch(msg)
		child := "?"
		if ref := g.findFK(db, "", m[2]); ref != nil {
			child = ref.Child.Name
		}
		num, state, out = erFKCannotDropParent, "HY000", fmt.Sprintf("Cannot drop table '%s' referenced by a foreign key constraint '%s' on table '%s'.", m[1], m[2], child)
	case reFKDropIndex.MatchString(msg):
		m := reFKDropIndex.FindStringSubmatch(msg)
		num, state, out = erDropIndexFK, "HY000", fmt.Sprintf("Cannot drop index '%s': needed in a foreign key constraint", m[1])
	case reFKTruncate.MatchString(msg):
		m := reFKTruncate.FindStringSubmatch(msg)
		desc := ""
		if ref := g.findFK(db, m[3], m[2]); ref != nil {
			desc = fkText(ref.Child.Database, ref.Child.Name, ref.FK, true)
		}
		num, state, out = erTruncateIllegalFK, "42000", "Cannot truncate a table referenced in a foreign key constraint"+desc
	case reFKDupName.MatchString(msg):
		num, state, out = erFKDupName, "HY000", fmt.Sprintf("Duplicate foreign key constraint name '%s'", reFKDupName.FindStringSubmatch(msg)[1])
	case reFKNoIndex.MatchString(msg):
		m := reFKNoIndex.FindStringSubmatch(msg)
		num, state, out = erFKNoIndexParent, "HY000", fmt.Sprintf("Failed to add the foreign key constraint. Missing index for constraint '%s' in the referenced table '%s'", m[1], m[2])
	case reFKTypes.MatchString(msg):
		m := reFKTypes.FindStringSubmatch(msg)
		num, state, out = erFKIncompatibleCols, "HY000", fmt.Sprintf("Referencing column '%s' and referenced column '%s' in foreign key constraint are incompatible.", m[1], m[2])
	case reFKSetNull.MatchString(msg):
		m := reFKSetNull.FindStringSubmatch(msg)
		num, state, out = erFKColumnNotNull, "HY000", fmt.Sprintf("Column '%s' cannot be NOT NULL: needed in a foreign key constraint SET NULL", m[1])
	case reFKDepth.MatchString(msg):
		num, state, out = erFKDepthExceeded, "HY000", "Foreign key cascade delete/update exceeds max depth of 15."
	case reFKDropColumn.MatchString(msg):
		m := reFKDropColumn.FindStringSubmatch(msg)
		num, state, out = erFKColumnCannotDrop, "HY000", fmt.Sprintf("Cannot drop column '%s': needed in a foreign key constraint '%s'", m[1], m[2])
	case reFKTypeNull.MatchString(msg):
		m := reFKTypeNull.FindStringSubmatch(msg)
		num, state, out = erFKColumnNotNull, "HY000", fmt.Sprintf("Column '%s' cannot be NOT NULL: needed in a foreign key constraint '%s' SET NULL", m[1], m[2])
	case reFKTypeChange.MatchString(msg):
		m := reFKTypeChange.FindStringSubmatch(msg)
		num, state, out = erFKIncompatibleCols, "HY000", fmt.Sprintf("Referencing column '%s' and referenced column in foreign key constraint are incompatible.", m[1])
	case reFKNotFound.MatchString(msg):
		m := reFKNotFound.FindStringSubmatch(msg)
		num, state, out = mysql.ERCantDropFieldOrKey, "42000", fmt.Sprintf("Can't DROP FOREIGN KEY `%s`; check that it exists", m[1])
	case reFKSetDefault.MatchString(msg):
		num, state, out = mysql.ERNotSupportedYet, "42000", "sqlgw: ON DELETE/ON UPDATE SET DEFAULT is not supported (InnoDB rejects it too)"
	case reFKTextBlob.MatchString(msg):
		num, state, out = erBlobKeyWithoutLen, "42000", "BLOB/TEXT column used in key specification without a key length"
	}
	if num == 0 {
		return err
	}
	return mysql.NewSQLError(num, state, "%s", out)
}

// Warn implements sql.Session: INSERT IGNORE and UPDATE IGNORE turn a
// foreign key violation into a warning, which MySQL words (and levels)
// like the error.
func (s *Session) Warn(w *sql.Warning) {
	if w != nil && (w.Code == mysql.ErNoReferencedRow2 || w.Code == mysql.ERRowIsReferenced2) {
		db := s.GetCurrentDatabase()
		if err := s.GW.ForeignKeyError(mysql.NewSQLError(w.Code, "23000", "%s", w.Message), db); err != nil {
			var se *mysql.SQLError
			if errors.As(err, &se) && se.Message != w.Message {
				w = &sql.Warning{Level: "Warning", Code: w.Code, Message: se.Message}
			}
		}
	}
	if w != nil && w.Code == mysql.ERDupEntry {
		w = dupEntryWarning(w) // editor.go
	}
	s.BaseSession.Warn(w)
}

// findFK finds constraint name declared by table (any table if ""),
// looking in database db first, then in the others.
func (g *Gateway) findFK(db, table, name string) *catalog.Reference {
	ctx := context.Background()
	dbs, err := g.Catalog.Databases(ctx)
	if err != nil {
		return nil
	}
	order := make([]string, 0, len(dbs)+1)
	if db != "" {
		order = append(order, db)
	}
	for _, d := range dbs {
		if !strings.EqualFold(d, db) {
			order = append(order, d)
		}
	}
	for _, d := range order {
		ts, err := g.Catalog.Tables(ctx, d)
		if err != nil {
			continue
		}
		for _, t := range ts {
			if table != "" && !strings.EqualFold(t.Name, table) {
				continue
			}
			if fk := t.ForeignKey(name); fk != nil {
				return &catalog.Reference{Child: t, FK: *fk}
			}
		}
	}
	return nil
}

// describeFK renders MySQL's parenthesised description of the constraint
// name of table, or "" if the catalog no longer has it.
func (g *Gateway) describeFK(db, table, name string) string {
	ref := g.findFK(db, table, name)
	if ref == nil {
		return ""
	}
	return fkText(ref.Child.Database, ref.Child.Name, ref.FK, false)
}

// fkText renders " (`db`.`child`, CONSTRAINT `fk` FOREIGN KEY (`c`)
// REFERENCES `parent` (`id`) ON DELETE ...)" as MySQL prints it in
// errors; qualified names the parent with its database (TRUNCATE's text).
func fkText(db, child string, fk catalog.ForeignKey, qualified bool) string {
	q := func(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
	qs := func(ss []string) string {
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = q(s)
		}
		return strings.Join(out, ", ")
	}
	parent := q(fk.ParentTable)
	if qualified || !strings.EqualFold(fk.ParentDatabase, db) {
		parent = q(fk.ParentDatabase) + "." + parent
	}
	s := fmt.Sprintf(" (%s.%s, CONSTRAINT %s FOREIGN KEY (%s) REFERENCES %s (%s)", q(db), q(child), q(fk.Name), qs(fk.Columns), parent, qs(fk.ParentColumns))
	if fk.OnDelete != "" && fk.OnDelete != catalog.FKRestrict {
		s += " ON DELETE " + fk.OnDelete
	}
	if fk.OnUpdate != "" && fk.OnUpdate != catalog.FKRestrict {
		s += " ON UPDATE " + fk.OnUpdate
	}
	return s + ")"
}
