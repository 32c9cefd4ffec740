// Package admin holds the statement interceptors for the administrative
// statements go-mysql-server does not run the way MySQL does:
//
//	maintenance.go          CHECK, REPAIR, OPTIMIZE, ANALYZE, CHECKSUM and
//	                        sqlgw's REFRESH TABLE (NewMaintenance); the
//	                        work itself is the engine's (check_repair_table.go,
//	                        attached.go, stats.go)
//	maintenance_parse.go    the lexer and parser of those statements
//	maintenance_prepare.go  the same statements prepared (Placeholder)
//	session_commands.go     FLUSH, DESCRIBE t col, COM_RESET_CONNECTION and
//	                        the end of COM_CHANGE_USER (NewSessionCommands)
//	view_database.go        a view named with its database while no
//	                        database is current
//
// # Imports
//
// It imports sqlgw/engine, sqlgw/accounts and sqlgw/wire (the connection
// registry of COM_CHANGE_USER); never package sqlgw. The server puts its
// interceptors in the wire handler's list (sqlgw.NewServer).
package admin
