#!/usr/bin/env bash
# The layering gate of `make check` (make layering): every package of the
# module may depend only on the packages docs/architecture.md's layer table
# allows, transitively (go list -deps, test files excluded). A rule is a
# package pattern and the dependencies it must not have; a violation names
# the package, the forbidden dependency and the chain that brings it in, so
# the layout cannot decay unnoticed.
#
# Rules (M = the module path; "pkg/..." means the package and everything
# below it):
#   storage/...            no catalog, planner, sqlgw, cmd, go-mysql-server, vitess
#   storage/<backend>      no other backend (pebble, aztables, faultstore, recorder)
#   catalog/...            no planner, sqlgw, cmd, storage backends, go-mysql-server, vitess
#   planner                no sqlgw, cmd, storage backends, go-mysql-server, vitess
#   sqlgw/...              no cmd, no storage backends (the binary chooses the backend)
#                          except sqlgw/sqltest, the end-to-end test harness,
#                          whose job is to open backends for tests
#   sqlgw/<sub>/...        not the sqlgw facade itself (sub-packages sit below it)
#                          except sqlgw/enginetest and sqlgw/sqltest (test harnesses)
#   every package          not sqlgw/sqltest (only _test.go files may import it)
#   internal/ordered       nothing of the module (the ordered parallel runner
#                          the catalog and the engine share)
#   inside sqlgw, each layer imports only the ones below it:
#     sqlgw/sqltext        nothing of the module (statement text lexer and rewrites)
#     sqlgw/metrics        the storage contract only
#     sqlgw/mysqlerr       sqlgw/sqltext, the catalog and the storage contract
#                          (their sentinel errors) only (error translation tables)
#     sqlgw/engine/compat  sqlgw/sqltext only (go-mysql-server adjustments
#                          that need no engine object)
#     sqlgw/engine/statistics  catalog, planner, the storage contract; no
#                          sqlgw package (table statistics, join cost)
#     sqlgw/engine/views   the storage contract and sqlgw/mysqlerr (with what
#                          it imports) only (view definitions in the store)
#     sqlgw/engine/ddldecl the catalog, sqlgw/mysqlerr and sqlgw/sqltext only
#                          (what DDL statements declare that go-mysql-server
#                          drops)
#     sqlgw/engine/typedstore  the catalog and the storage contract only (the
#                          store wrapper for attached tables' entity types)
#     sqlgw/engine/exprconv    the planner only (filter expressions as the
#                          planner's IR)
#     sqlgw/engine/groupjoin   nothing of the module (an analyzer rule over
#                          go-mysql-server's plans)
#     sqlgw/engine         not accounts, wire, admin (nor the facade)
#     sqlgw/accounts       not wire, admin
#     sqlgw/wire           not admin
#     sqlgw/admin          (above wire, below the sqlgw facade)
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
M=$($GO list -m)

# "PACKAGE_REGEX :: EXCEPT_REGEX (or -) :: FORBIDDEN_DEPENDENCY_REGEX :: WHY"
rules=(
	"^$M/storage(/.*)?\$ :: - :: ^($M/(catalog|planner|sqlgw|cmd)(/.*)?|github.com/dolthub/.*)\$ :: the storage layer imports nothing above it"
	"^$M/storage/pebble(/.*)?\$ :: - :: ^$M/storage/(aztables|faultstore|recorder)(/.*)?\$ :: a backend imports no other backend"
	"^$M/storage/aztables(/.*)?\$ :: - :: ^$M/storage/(pebble|faultstore|recorder)(/.*)?\$ :: a backend imports no other backend"
	"^$M/catalog(/.*)?\$ :: - :: ^($M/(planner|sqlgw|cmd)(/.*)?|$M/storage/(pebble|aztables)(/.*)?|github.com/dolthub/.*)\$ :: the catalog sits on the storage contract only"
	"^$M/planner(/.*)?\$ :: - :: ^($M/(sqlgw|cmd)(/.*)?|$M/storage/(pebble|aztables)(/.*)?|github.com/dolthub/.*)\$ :: the planner is pure: no engine, no backend"
	# sqlgw/sqltest is the one exception: the test harness opens the backends
	# (Pebble, Azurite) the tests run on; the last rule keeps it out of
	# every non-test package.
	"^$M/sqlgw(/.*)?\$ :: ^$M/sqlgw/sqltest\$ :: ^($M/cmd(/.*)?|$M/storage/(pebble|aztables)(/.*)?)\$ :: the server never picks a backend; cmd/sqlgw does"
	"^$M/sqlgw/.+\$ :: ^$M/sqlgw/(enginetest|sqltest)\$ :: ^$M/sqlgw\$ :: sqlgw's sub-packages sit below the facade and never import it (the test harnesses may)"
	"^$M/.+\$ :: ^$M/sqlgw/sqltest\$ :: ^$M/sqlgw/sqltest\$ :: sqlgw/sqltest is a test harness: only _test.go files import it"
	"^$M/internal/ordered\$ :: - :: ^$M/.+\$ :: internal/ordered, shared by the catalog and the engine, imports nothing of the module"
	# The layers of the server (docs/architecture.md, sqlgw's package doc).
	"^$M/sqlgw/sqltext\$ :: - :: ^$M/.+\$ :: sqlgw/sqltext is the statement text lexer and rewrites over the standard library"
	"^$M/sqlgw/metrics\$ :: - :: ^$M/(catalog|planner|sqlgw)(/.*)?\$ :: metrics sits on the storage contract only"
	"^$M/sqlgw/mysqlerr\$ :: - :: ^($M/(planner|storage/(pebble|aztables|faultstore|recorder))(/.*)?|$M/sqlgw/(engine|accounts|wire|admin|metrics)(/.*)?)\$ :: the error tables sit below the engine: the catalog's and the store's sentinel errors are all they import of the module besides sqltext"
	"^$M/sqlgw/engine/compat\$ :: - :: ^$M/(catalog|planner|storage|sqlgw/(engine|accounts|wire|admin|metrics|mysqlerr))(/.*)?\$ :: the compatibility adjustments sit below the engine and need none of its objects"
	"^$M/sqlgw/engine/statistics\$ :: - :: ^$M/(sqlgw(/.*)?|storage/(recorder|faultstore)(/.*)?)\$ :: the statistics sit below the engine: the catalog, the planner and the storage contract only"
	"^$M/sqlgw/engine/views\$ :: - :: ^$M/(planner|storage/.+|sqlgw/(engine|accounts|wire|admin|metrics)(/.*)?)\$ :: the view definitions sit below the engine: the storage contract and the error tables only"
	"^$M/sqlgw/engine/ddldecl\$ :: - :: ^$M/(planner|storage/.+|sqlgw/(engine|accounts|wire|admin|metrics)(/.*)?)\$ :: the DDL declarations sit below the engine: the catalog and the error tables only"
	"^$M/sqlgw/engine/typedstore\$ :: - :: ^($M/(planner|storage/.+|sqlgw(/.*)?)|github.com/dolthub/.*)\$ :: the typed-table store wrapper sits below the engine: the catalog and the storage contract only"
	"^$M/sqlgw/engine/exprconv\$ :: - :: ^$M/(catalog|storage/.+|sqlgw)(/.*)?\$ :: the expression converter sits below the engine: the planner only"
	"^$M/sqlgw/engine/groupjoin\$ :: - :: ^$M/.+\$ :: the group-join rule sits below the engine and needs nothing of the module"
	"^$M/sqlgw/engine\$ :: - :: ^$M/sqlgw/(accounts|wire|admin)\$ :: the engine sits below accounts, the wire layer and the admin statements"
	"^$M/sqlgw/accounts\$ :: - :: ^$M/sqlgw/(wire|admin)\$ :: accounts sit below the wire layer and the admin statements"
	"^$M/sqlgw/wire\$ :: - :: ^$M/sqlgw/admin\$ :: the wire layer gets the admin interceptors from the server, it does not import them"
)

# Every package of the module (test files excluded) with all it depends on.
listing=$($GO list -e -f '{{.ImportPath}} {{join .Deps " "}}' ./...)
bad=0
n=0
while read -r p deps; do
	n=$((n + 1))
	for r in "${rules[@]}"; do
		IFS=$'\t' read -r pat except forb why <<<"${r// :: /$'\t'}"
		[[ $p =~ $pat ]] || continue
		[[ $except != - && $p =~ $except ]] && continue
		for d in $deps; do
			if [[ $d =~ $forb ]]; then
				echo "layering: $p depends on $d: $why (go list -deps $p shows the chain)"
				bad=$((bad + 1))
			fi
		done
	done
done <<<"$listing"
if [ "$bad" -gt 0 ]; then
	echo "layering: $bad forbidden dependencies (rules: scripts/layering.sh, docs/architecture.md)"
	exit 1
fi
echo "layering: $n packages checked, no forbidden dependency"
