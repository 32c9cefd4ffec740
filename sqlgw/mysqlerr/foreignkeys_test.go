package mysqlerr

import (
	stdctx "context"
	"errors"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/sqlgw/sqlgw/catalog"
)

// TestForeignKeyErrorTexts: go-mysql-server's foreign key errors that need
// no catalog lookup, with the exact text each pattern matches and MySQL's
// error the client gets.
func TestForeignKeyErrorTexts(t *testing.T) {
	for _, tc := range []struct {
		msg     string
		wantNum int
		want    string
	}{
		{"cannot add or update a child row: a foreign key constraint fails (`d`.`c`, CONSTRAINT `fk` FOREIGN KEY (`p_id`) REFERENCES `p` (`id`))", 1452,
			"Cannot add or update a child row: a foreign key constraint fails (`d`.`c`, CONSTRAINT `fk` FOREIGN KEY (`p_id`) REFERENCES `p` (`id`))"},
		{"cannot drop index: `ix` is used by foreign key `fk`", erDropIndexFK, "Cannot drop index 'ix': needed in a foreign key constraint"},
		{"duplicate foreign key constraint name `fk`", erFKDupName, "Duplicate foreign key constraint name 'fk'"},
		{"missing index for foreign key `fk` on the referenced table `p`", erFKNoIndexParent, "Failed to add the foreign key constraint. Missing index for constraint 'fk' in the referenced table 'p'"},
		{"column type mismatch on `a` and `b`", erFKIncompatibleCols, "Referencing column 'a' and referenced column 'b' in foreign key constraint are incompatible."},
		{"cannot use SET NULL as column `a` is non-nullable", erFKColumnNotNull, "Column 'a' cannot be NOT NULL: needed in a foreign key constraint SET NULL"},
		{"Foreign key cascade delete/update exceeds max depth of 15.", erFKDepthExceeded, "Foreign key cascade delete/update exceeds max depth of 15."},
		{"cannot drop column `a` as it is used in foreign key `fk`", erFKColumnCannotDrop, "Cannot drop column 'a': needed in a foreign key constraint 'fk'"},
		{"column `a` must allow NULL values as foreign key `fk` has SET NULL", erFKColumnNotNull, "Column 'a' cannot be NOT NULL: needed in a foreign key constraint 'fk' SET NULL"},
		{"unable to change type of column `a` as it is used by foreign keys", erFKIncompatibleCols, "Referencing column 'a' and referenced column in foreign key constraint are incompatible."},
		{"foreign key `fk` was not found on the table `c`", mysql.ERCantDropFieldOrKey, "Can't DROP FOREIGN KEY `fk`; check that it exists"},
		{`"SET DEFAULT" is not supported`, mysql.ERNotSupportedYet, "sqlgw: ON DELETE/ON UPDATE SET DEFAULT is not supported (InnoDB rejects it too)"},
		{"TEXT/BLOB are not valid types for foreign keys", erBlobKeyWithoutLen, "BLOB/TEXT column used in key specification without a key length"},
	} {
		var out *mysql.SQLError
		if !errors.As(ForeignKey(mysql.NewSQLError(mysql.ERUnknownError, "", "%s", tc.msg), "d", noCatalog{}), &out) || int(out.Num) != tc.wantNum || out.Message != tc.want {
			t.Errorf("%q -> %v; want %d %q", tc.msg, out, tc.wantNum, tc.want)
		}
	}
}

// TestForeignKeyPatternsMatchKinds: each pattern matches its kind's text
// (a change of go-mysql-server's wording fails here).
func TestForeignKeyPatternsMatchKinds(t *testing.T) {
	for _, tc := range []struct {
		text string
		re   interface{ MatchString(string) bool }
	}{
		{sql.ErrForeignKeyChildViolation.New("fk", "c", "p", "[1]").Error(), reFKChild},
		{sql.ErrForeignKeyParentViolation.New("fk", "c", "p", "[1]").Error(), reFKParent},
		{sql.ErrForeignKeyNotResolved.New("d", "c", "fk", "p_id", "p", "id").Error(), reFKNotResolved},
		{sql.ErrForeignKeyDropTable.New("p", "fk").Error(), reFKDropTable},
		{sql.ErrForeignKeyDropIndex.New("ix", "fk").Error(), reFKDropIndex},
		{sql.ErrTruncateReferencedFromForeignKey.New("p", "fk", "c").Error(), reFKTruncate},
		{sql.ErrForeignKeyDuplicateName.New("fk").Error(), reFKDupName},
		{sql.ErrForeignKeyMissingReferenceIndex.New("fk", "p").Error(), reFKNoIndex},
		{sql.ErrForeignKeyColumnTypeMismatch.New("a", "b").Error(), reFKTypes},
		{sql.ErrForeignKeySetNullNonNullable.New("a").Error(), reFKSetNull},
		{sql.ErrForeignKeyDepthLimit.New().Error(), reFKDepth},
		{sql.ErrForeignKeyTextBlob.New().Error(), reFKTextBlob},
		{sql.ErrForeignKeyDropColumn.New("a", "fk").Error(), reFKDropColumn},
		{sql.ErrForeignKeyTypeChangeSetNull.New("a", "fk").Error(), reFKTypeNull},
		{sql.ErrForeignKeyTypeChange.New("a").Error(), reFKTypeChange},
		{sql.ErrForeignKeySetDefault.New().Error(), reFKSetDefault},
		{sql.ErrForeignKeyNotFound.New("fk", "c").Error(), reFKNotFound},
	} {
		if !tc.re.MatchString(tc.text) {
			t.Errorf("%v does not match %q", tc.re, tc.text)
		}
	}
}

// noCatalog is a catalog that cannot be read: the texts without the
// constraint's description.
type noCatalog struct{}

func (noCatalog) Databases(stdctx.Context) ([]string, error) { return nil, errors.New("no catalog") }
func (noCatalog) Tables(stdctx.Context, string) ([]*catalog.Table, error) {
	return nil, errors.New("no catalog")
}
