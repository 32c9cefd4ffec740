// Package sqltest is the one end-to-end test harness of sqlgw (in the
// manner of cockroach's serverutils and sqlutils.SQLRunner): it starts a
// real sqlgw.Server over a chosen backend, talks to it with the MySQL
// driver, and gives tests short, failing-on-error helpers. It is a normal
// package so that sqlgw's, cmd/sqlgw's and other packages' tests share it;
// only test code imports it.
//
// What it offers:
//
//   - Backends: Memory (Pebble in memory), Disk (Pebble in a t.TempDir()),
//     Azurite (the Azure Table emulator, started once per test binary by
//     storage/aztables/azurite; skipped in -short mode and where it cannot
//     run, failed under CI=true). Backends lists those every end-to-end test
//     runs on (Memory and Azurite); ForEachBackend runs a function as a
//     subtest on each, with a fresh store and (on Azurite) its own catalog
//     prefix. Test binaries using Azurite call Main from TestMain.
//   - Long and LongOnAzurite: the long tests (a store crashed at every
//     request of a commit, Azurite filled past several pages) run only
//     with SQLGW_LONG=1, which `make unittest` sets; a plain go test ./...
//     leaves them out.
//   - Start: a server on 127.0.0.1, port 0, over a store, with Options:
//     a password, catalog options (prefix, refresh interval, ...) and the
//     fault store (storage/faultstore, Server.Fault). Server.Requests
//     returns the store requests a function made the server send, as
//     trace lines of its recorder (storage/recorder). Server.Session gives
//     a session on a new database set up by a list of statements (Use: a
//     Runner on it; Pair and Sessions: two or more sessions on the same
//     database for concurrency tests). The server and its client pool stop
//     when the test ends, or earlier with Server.Stop. OpenCatalog and
//     StoreTable read table records beside the servers.
//   - Runner (NewRunner over a *sql.DB, *sql.Conn or *sql.Tx; Server.Runner
//     over a dedicated connection, one session): Exec, Affected, Rows (a
//     result as tab-separated lines, "NULL" for NULL), ExpectRows,
//     ExpectErrno (the MySQL error number; Errno reads it from any error),
//     Status and Cost (the session's Sqlgw_store_requests and
//     Sqlgw_entities_read, and their deltas over one statement),
//     ExpectAffected, ExpectMessage (errno and exact text), ColumnTypes
//     (result metadata), ResultSets (multi-statement results), and Script: the
//     straight-line part of a test (statements, the rows or error each
//     must give) written once as data, one line a statement (see Script
//     for the forms); ScriptSessions, the same over several named
//     sessions ("a: exec BEGIN"), for the interleavings of concurrency
//     tests.
//     InsertRows fills a table with generated rows in multi-row INSERTs;
//     Lines reads statements or queries written one a line; Race runs
//     several connections' statements released at the same moment.
//   - OpenDisk: the Pebble store of a directory, opened again by a test
//     that restarts its server on the same data.
//   - Bank: the bank workload of the transaction tests (accounts over
//     partitions with a global index, random transfers, the invariant
//     check; Transfers, the transfer loop counting commits, 1213 and 1180),
//     shared by sqlgw's and cmd/sqlgw's bank tests. FirstError keeps the
//     first failure of several goroutines.
//   - Serve: the same for a server the test configured itself
//     (sqlgw.NewServer with its own logger or accounts settings).
//   - Runner.ExpectCosts and ExpectRequests: tables of statements and the
//     store requests (and entities) each must cost its session.
//   - Client: a client pool on a server the test started some other way.
//   - StartProcess (and StartCommand): the real binary, "sqlgw serve", as
//     a process on a free loopback port, its ready line awaited
//     (Process.MustBeReady), stopped by PID with SIGTERM when the test
//     ends or killed with SIGKILL (Process.Kill) by crash tests, which
//     then start another on the same --store. cmd/sqlgw's tests build the
//     binary and use these, with the Runner over Process.Client.
//   - RunKillRounds: the SIGKILL loop of cmd/sqlgw's crash tests (a load
//     on the processes, a kill at a random moment, the store checked as
//     the crash left it, a restart, checks through SQL; once per round),
//     the load and the checks given as functions; Process.Writers starts a
//     round's writers, each on a one-connection pool of its own.
//   - CrashAtEveryRequest: runs an operation once per crash point of the
//     fault store (each request number, with the crashing request dropped
//     or applied with its reply lost), then hands a new server over what
//     the store kept to a check function: the crash-recovery loop every
//     such test used to write out.
//
// Layering: the sqlgw/... packages must not import a storage backend (the
// binary chooses it); scripts/layering.sh makes exactly one exception, for
// this package, which exists to open backends for tests. Product code never
// imports sqltest.
//
// Tests inside package sqlgw itself (of unexported code) cannot import
// sqltest, which imports sqlgw; they drive an in-process engine instead
// (viewfix_test.go). go-mysql-server's enginetest suites (sqlgw/enginetest)
// run on an in-process engine too, over the Memory backend's store.
package sqltest
