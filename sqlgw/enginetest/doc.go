// Package enginetest runs go-mysql-server's own engine test suites
// (github.com/dolthub/go-mysql-server/enginetest: TestQueries,
// TestJoinQueries, TestInsertInto, TestUpdate, TestDelete, TestScripts,
// TestIndexes, ...) against sqlgw's database provider on an in-memory store,
// the same code path `sqlgw serve --store memory:` uses.
//
// The tests are behind the build tag enginetest so that `go test ./...` stays
// fast; run them with
//
//	make enginetest
//	go test -tags enginetest ./sqlgw/enginetest/ [-run TestQueries]
//
// # Skip list
//
// testdata/skips.txt lists the tests sqlgw does not pass yet, grouped under a
// reason each. An entry is the full name `go test` gives the failing subtest
// (spaces become underscores); the harness's SkipQueryTest skips a query, a
// script or a script assertion whose name matches an entry of the running
// top-level test. With -v the harness logs every skip with its reason, and
// each top-level test ends with the number of skips per reason. The list is
// meant to shrink: delete entries that pass (`go test -tags enginetest -run X
// ./sqlgw/enginetest/ -args -noskip` ignores it, except for the tests that
// crash the test binary) and keep docs/enginetest.md's counts current.
package enginetest
