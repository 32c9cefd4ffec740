package compat

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
)

// schemaFormatter is go-mysql-server's MySQL schema formatter with
// generated columns written as MySQL 8 writes them in SHOW CREATE TABLE:
// `c` type GENERATED ALWAYS AS (expr) VIRTUAL|STORED [NOT NULL] [COMMENT
// '...']. go-mysql-server puts NOT NULL before GENERATED and leaves
// VIRTUAL implicit; MySQL's and MariaDB's grammars do not accept that
// order, so a dump of such a table would not restore into them.
type schemaFormatter struct{ sql.SchemaFormatter }

// NewSchemaFormatter returns the formatter above (the engine's
// SchemaFormatter override).
func NewSchemaFormatter() sql.SchemaFormatter {
	return schemaFormatter{SchemaFormatter: sql.DefaultMySQLSchemaFormatter}
}

// GenerateCreateTableColumnDefinition implements sql.SchemaFormatter.
func (f schemaFormatter) GenerateCreateTableColumnDefinition(col *sql.Column, colDefault, onUpdate string, tableCollation sql.CollationID) string {
	if col.Generated == nil || col.AutoIncrement {
		return f.SchemaFormatter.GenerateCreateTableColumnDefinition(col, colDefault, onUpdate, tableCollation)
	}
	typ := col.Type.String()
	if ct, ok := col.Type.(sql.TypeWithCollation); ok {
		typ = ct.StringWithTableCollation(tableCollation)
	}
	kind := "VIRTUAL"
	if !col.Virtual {
		kind = "STORED"
	}
	stmt := fmt.Sprintf("  %s %s GENERATED ALWAYS AS %s %s", f.QuoteIdentifier(col.Name), typ, col.Generated.String(), kind)
	if !col.Nullable {
		stmt += " NOT NULL"
	}
	if col.Comment != "" {
		stmt += fmt.Sprintf(" COMMENT '%s'", sql.EscapeSpecialCharactersInComment(col.Comment))
	}
	return stmt
}
