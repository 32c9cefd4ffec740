// Package sqltext is sqlgw's one lexer for statement text and the
// pipelines of text rewrites that run before go-mysql-server parses a
// statement.
//
// # Lexer
//
// Lex splits a text into tokens that cover it entirely: blanks; comments
// (# and "-- " to the end of the line, /* */, MariaDB's /*M! */, optimizer
// hints /*+ */); MySQL executable comments, whose /*!NNNNN opener and */
// closer are tokens of their own because the text between them is code;
// string literals ('...' and "...", a backslash escaping the next byte
// and a doubled quote standing for one); `quoted identifiers` (doubled
// backquotes); bare words (identifiers and keywords, which may start with
// a digit); numbers; user and system variables (@v, @'v', @@session.v);
// operators (the multi-byte ones := <=> <= >= <> != || && << >> -> ->>
// whole). It never fails: anything unterminated runs to the end of the
// text, and the parser reports it. SkipSpace, IsEmpty and LeadingWords
// are the small questions other code asks of a text's start.
//
// The lexer does not know sql_mode: backslashes always escape in string
// literals (NO_BACKSLASH_ESCAPES is not modelled), which is what the
// rewrites need to find where a literal ends in texts that clients send.
//
// # Pipelines
//
// A rewrite is a Step: a name, the go-mysql-server behaviour it works
// around (Upstream, one line), and Apply, which reads the tokens and
// records edits of the original text. Run lexes the text once, runs the
// steps in order over the same tokens and applies all their edits in one
// pass (steps act on different statements or clauses, so their edits
// never touch the same bytes; if they did, Run would fall back to
// running them one after the other). Two pipelines exist:
//
//   - Wire, run by the connection handler on every COM_QUERY text:
//     MariaDBOnly (leading /*M!...*/ comments), Assignments (@v := expr in
//     SELECT), TimePrecision (TIME(n) in CREATE/ALTER TABLE),
//     CreateSelectAs (AS before CREATE TABLE ... SELECT ... UNION ...).
//   - Parse, run by sqlgw's wrapper around go-mysql-server's parser:
//     IndexHints (blank hint clauses; the references go to the caller,
//     which checks the names against the catalog), TxCharacteristics
//     (START TRANSACTION's list of characteristics as the one the
//     grammar takes), ForShare (MySQL 8.0's FOR SHARE locking clause as
//     LOCK IN SHARE MODE or FOR UPDATE OF). It is a pipeline of
//     its own because the engine keeps Wire's output as the statement's
//     text, and the read path finds the hints there again (ScanHints).
//
// What the steps find besides the new text (an empty text, the declared
// TIME precisions, the hinted references) is returned in Text's fields.
// Rewrites of results (OK packet infos, TIME digits, SHOW headers) are not
// text rewrites and live with the connection handler.
//
// # Statement questions
//
// Some statements are acted on beside go-mysql-server: KILL CONNECTION's
// target (its interrupted statement reports 1927), RENAME TABLE across
// databases (refused), the source of CREATE TABLE ... LIKE (its table
// options and TIME precisions are copied), RENAME COLUMN (TIME precision
// kept), the table of SHOW CREATE TABLE / SHOW COLUMNS / DESCRIBE (TIME
// precision shown) and the pattern of SHOW DATABASES/TABLES ... LIKE (the
// column header). KillConnection, Renames, CreateLike, RenamedColumns,
// ShownColumns and ShowLikePattern (statements.go) read these from the
// lexer's tokens, so comments and executable comments are handled once,
// here. A second parse by vitess remains only where the grammar is needed:
// a CREATE TABLE's whole table spec (PARTITION BY, the order of key
// columns: engine/ddldecl), the parameters of a prepared EXPLAIN, and
// generated-column expressions.
//
// The package imports nothing but the standard library.
package sqltext
