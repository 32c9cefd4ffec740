package mysqlerr

import (
	stdctx "context"
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/catalog"
)

// MySQL's errors for foreign keys
//
// go-mysql-server reports foreign key violations with the right codes
// (1451, 1452) but its own wording, and most other foreign key errors as
// 1105. By the time an error reaches the handler only its text is left, so
// ForeignKey recognises the engine's messages (the format strings of
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
// kinds' own message formats (KindPattern).
var (
	reFKChild       = KindPattern(sql.ErrForeignKeyChildViolation, false)
	reFKParent      = KindPattern(sql.ErrForeignKeyParentViolation, false)
	reFKNotResolved = KindPattern(sql.ErrForeignKeyNotResolved, false)
	reFKDropTable   = KindPattern(sql.ErrForeignKeyDropTable, false)
	reFKDropIndex   = KindPattern(sql.ErrForeignKeyDropIndex, false)
	reFKTruncate    = KindPattern(sql.ErrTruncateReferencedFromForeignKey, false)
	reFKDupName     = KindPattern(sql.ErrForeignKeyDuplicateName, false)
	reFKNoIndex     = KindPattern(sql.ErrForeignKeyMissingReferenceIndex, false)
	reFKTypes       = KindPattern(sql.ErrForeignKeyColumnTypeMismatch, false)
	reFKSetNull     = KindPattern(sql.ErrForeignKeySetNullNonNullable, false)
	reFKDepth       = KindPattern(sql.ErrForeignKeyDepthLimit, false)
	reFKTextBlob    = KindPattern(sql.ErrForeignKeyTextBlob, false)
	reFKDropColumn  = KindPattern(sql.ErrForeignKeyDropColumn, false)
	reFKTypeNull    = KindPattern(sql.ErrForeignKeyTypeChangeSetNull, false)
	reFKTypeChange  = KindPattern(sql.ErrForeignKeyTypeChange, false)
	reFKSetDefault  = KindPattern(sql.ErrForeignKeySetDefault, false)
	reFKNotFound    = KindPattern(sql.ErrForeignKeyNotFound, false)
)

// fkNotResolvedPrefix is the text of sql.ErrForeignKeyNotResolved before
// the constraint's description, which MySQL's text keeps (with its space:
// the hand-written pattern this replaces dropped it).
const fkNotResolvedPrefix = "cannot add or update a child row: a foreign key constraint fails"

// Catalog is what ForeignKey reads of the catalog (*catalog.Catalog): the
// constraints its texts describe.
type Catalog interface {
	Databases(ctx stdctx.Context) ([]string, error)
	Tables(ctx stdctx.Context, db string) ([]*catalog.Table, error)
}

// ForeignKey rewrites go-mysql-server's foreign key errors into MySQL's,
// reading constraints from cat; db is the session's current database.
// Other errors pass.
func ForeignKey(err error, db string, cat Catalog) error {
	var se *mysql.SQLError
	if !errors.As(err, &se) {
		return err
	}
	msg := se.Message
	num, state, out := 0, "", ""
	switch {
	case se.Num == mysql.ErNoReferencedRow2:
		if m := reFKChild.FindStringSubmatch(msg); m != nil {
			num, state, out = mysql.ErNoReferencedRow2, "23000", erNoReferencedRowText+describeFK(cat, db, m[2], m[1])
		}
	case se.Num == mysql.ERRowIsReferenced2:
		if m := reFKParent.FindStringSubmatch(msg); m != nil {
			num, state, out = mysql.ERRowIsReferenced2, "23000", erRowReferencedText+describeFK(cat, db, m[2], m[1])
		}
	case se.Num != mysql.ERUnknownError:
	case reFKNotResolved.MatchString(msg):
		num, state, out = mysql.ErNoReferencedRow2, "23000", erNoReferencedRowText+strings.TrimPrefix(msg, fkNotResolvedPrefix)
	case reFKDropTable.MatchString(msg):
		m := reFKDropTable.FindStringSubmatch(msg)
		child := "?"
		if ref := findFK(cat, db, "", m[2]); ref != nil {
			child = ref.Child.Name
		}
		num, state, out = erFKCannotDropParent, "HY000", fmt.Sprintf("Cannot drop table '%s' referenced by a foreign key constraint '%s' on table '%s'.", m[1], m[2], child)
	case reFKDropIndex.MatchString(msg):
		m := reFKDropIndex.FindStringSubmatch(msg)
		num, state, out = erDropIndexFK, "HY000", fmt.Sprintf("Cannot drop index '%s': needed in a foreign key constraint", m[1])
	case reFKTruncate.MatchString(msg):
		m := reFKTruncate.FindStringSubmatch(msg)
		desc := ""
		if ref := findFK(cat, db, m[3], m[2]); ref != nil {
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

// findFK finds constraint name declared by table (any table if ""),
// looking in database db first, then in the others.
func findFK(cat Catalog, db, table, name string) *catalog.Reference {
	ctx := stdctx.Background()
	dbs, err := cat.Databases(ctx)
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
		ts, err := cat.Tables(ctx, d)
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
func describeFK(cat Catalog, db, table, name string) string {
	ref := findFK(cat, db, table, name)
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
