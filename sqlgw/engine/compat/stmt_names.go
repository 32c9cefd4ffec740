package compat

import (
	"strings"

	ast "github.com/dolthub/vitess/go/vt/sqlparser"
)

// FoldStatementNames writes the name of SQL PREPARE, EXECUTE and
// DEALLOCATE (DROP) PREPARE in lower case. MySQL's prepared statement
// names are not case-sensitive (PREPARE S FROM ...; EXECUTE s runs it);
// go-mysql-server keeps a session's prepared statements by the name as
// written, so EXECUTE s of PREPARE S was "Unknown prepared statement
// handler". The names of one session all pass here, so folding every one
// makes them compare without case. (MySQL compares them by
// utf8mb3_general_ci, also accent-insensitive: 'á' and 'a' name one
// statement there, two here.) The error for an unknown name quotes it as
// the client wrote it (sqlgw/mysqlerr, from the statement's text).
func FoldStatementNames(st ast.Statement) {
	switch s := st.(type) {
	case *ast.Prepare:
		if s != nil {
			s.Name = strings.ToLower(s.Name)
		}
	case *ast.Execute:
		if s != nil {
			s.Name = strings.ToLower(s.Name)
		}
	case *ast.Deallocate:
		if s != nil {
			s.Name = strings.ToLower(s.Name)
		}
	}
}
