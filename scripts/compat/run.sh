#!/usr/bin/env bash
# Runs the real-client compatibility suite (testdata/compat) against a fresh server
# per client, started on a free loopback port and stopped by PID.
#
#   scripts/compat/run.sh [--server sqlgw|mariadb] [--store SPEC] [--no-install]
#                         [--work DIR] [CLIENT...]
#
# --server  sqlgw (default; built from ./cmd/sqlgw unless COMPAT_SQLGW_BIN is set) or
#           mariadb (the reference the scripts are proven against).
# --store   the sqlgw --store value (default memory:; pebble = a fresh pebble:DIR per client;
#           azurite = sqlgw on the Azure Table backend, a fresh Azurite per client).
# --known-failures FILE  a reviewed list of checks known to fail on sqlgw (client, check,
#           reason): they are reported as KNOWN and not counted as failures, and a listed
#           check that passes fails the run, so the list cannot go stale.
# --report FILE  also write the per-client results as a Markdown table to FILE.
# --no-install  do not install Debian/npm packages (the Go, Java and C++ clients are still built).
# CLIENT    any of: cli dump discovery admin mycli isql sqlline pymysql edgecases aiomysql
#           sqlalchemy sqlmodel django peewee pony odbc mysql2 sequelize mysqljs mariadb knex
#           typeorm jdbc hibernate spring gorm pdo mysqli dbdmariadb dbdmysql mysql2rb
#           activerecord sqlx drizzle alembic cppconn eclipselink objection sequel
#           doctrine eloquent (default: all).
# Each client prints ok/FAIL/XFAIL lines; XFAIL is only allowed on sqlgw, for a
# secondary index the server says it does not support yet. Prints one line per client
# and, last, "N passed, N failed, N skipped" over all checks; exits 1 if any failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=lib.sh
. "$root/scripts/compat/lib.sh"

server=sqlgw
store=memory:
install=1
report=
known=
work=${TMPDIR:-/tmp}/sqlgw-compat
all=(cli dump discovery admin mycli isql sqlline pymysql edgecases aiomysql sqlalchemy sqlmodel django peewee pony odbc mysql2 sequelize mysqljs mariadb knex typeorm jdbc hibernate spring gorm pdo mysqli dbdmariadb dbdmysql mysql2rb activerecord sqlx drizzle alembic cppconn eclipselink objection sequel doctrine eloquent)
clients=()
while [ $# -gt 0 ]; do
	case $1 in
	--server) server=$2; shift 2 ;;
	--store) store=$2; shift 2 ;;
	--no-install) install=0; shift ;;
	--work) work=$2; shift 2 ;;
	--report) report=$2; shift 2 ;;
	--known-failures) known=$2; shift 2 ;;
	-h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
	-*) echo "compat: unknown option $1" >&2; exit 2 ;;
	*) clients+=("$1"); shift ;;
	esac
done
[ ${#clients[@]} -gt 0 ] || clients=("${all[@]}")
case $server in sqlgw | mariadb) ;; *) echo "compat: --server sqlgw|mariadb" >&2; exit 2 ;; esac
mkdir -p "$work"
work=$(cd "$work" && pwd)
start=$(date +%s)

opt=()
[ $install = 1 ] || opt=(--no-packages)
COMPAT_STORE=$store "$root/scripts/compat/install.sh" --server "$server" "${opt[@]}" "$work" || { echo "compat: install failed" >&2; exit 1; }
export COMPAT_AZURITE_BIN=$work/azurite/node_modules/.bin/azurite-table
if [ "$server" = sqlgw ]; then
	if [ -z "${COMPAT_SQLGW_BIN:-}" ]; then
		COMPAT_SQLGW_BIN=$work/sqlgw
		(cd "$root" && go build -o "$COMPAT_SQLGW_BIN" ./cmd/sqlgw) || { echo "compat: building sqlgw failed" >&2; exit 1; }
	fi
	export COMPAT_SQLGW_BIN COMPAT_SQLGW_STORE=$store
else
	COMPAT_MARIADB_TEMPLATE=$work/mariadb-template
	compat_mariadb_template "$COMPAT_MARIADB_TEMPLATE" || exit 1
	export COMPAT_MARIADB_TEMPLATE
fi
installed=$(date +%s)

td=$root/testdata/compat
client_cmd() {
	case $1 in
	cli | dump | discovery | admin | mycli | isql | sqlline) echo bash "$td/$1/run.sh" ;;
	pymysql | edgecases | aiomysql | sqlalchemy | sqlmodel | django | peewee | pony | odbc | alembic) echo /usr/bin/python3 -B "$td/python/$1_client.py" ;;
	mysql2 | sequelize | mysqljs | mariadb | knex | typeorm | drizzle | objection) echo node "$td/node/$1_client.js" ;;
	jdbc) echo java -cp "$work/java:/usr/share/java/mariadb-java-client.jar" JdbcClient ;;
	hibernate) echo java -cp "$work/hibernate:$COMPAT_HIBERNATE_CP" HibernateClient ;;
	spring) echo java -cp "$work/spring:$COMPAT_SPRING_CP" SpringClient ;;
	eclipselink) echo java -cp "$work/eclipselink:$td/java/eclipselink:$COMPAT_ECLIPSELINK_CP" EclipseLinkClient ;;
	gorm) echo "$work/gormcompat" ;;
	sqlx) echo "$work/sqlxcompat" ;;
	cppconn) echo "$work/cppconncompat" ;;
	pdo | mysqli | doctrine | eloquent) echo php "$td/php/$1_client.php" ;;
	dbdmariadb) echo perl "$td/perl/dbi_client.pl" MariaDB ;;
	dbdmysql) echo perl "$td/perl/dbi_client.pl" mysql ;;
	mysql2rb) echo ruby "$td/ruby/mysql2_client.rb" ;;
	activerecord) echo ruby "$td/ruby/activerecord_client.rb" ;;
	sequel) echo ruby "$td/ruby/sequel_client.rb" ;;
	*) return 1 ;;
	esac
}

trap 'compat_stop_server' EXIT
trap 'exit 130' INT TERM
tp=0 tf=0 ts=0 bad=()
if [ -n "$report" ]; then
	{
		echo "| client | result | checks passed | failed | expected failures | what failed (server error) |"
		echo "|---|---|---|---|---|---|"
	} >"$report"
fi
# report_row CLIENT RESULT P F S LOG: one Markdown row, failures joined with <br>.
report_row() {
	[ -n "$report" ] || return 0
	local why
	why=$(grep -aE '^(FAIL|XFAIL|KNOWN) ' "$6" | cut -c1-300 | sed 's/|/\\|/g' | tr '\n' '\r' | sed 's/\r/<br>/g; s/<br>$//')
	echo "| $1 | $2 | $3 | $4 | $5 | $why |" >>"$report"
}
printf 'compat: server %s%s, logs in %s\n' "$server" "$([ "$server" = sqlgw ] && echo " (store $store)")" "$work/logs"
for cl in "${clients[@]}"; do
	cmd=$(client_cmd "$cl") || { echo "compat: unknown client $cl" >&2; exit 2; }
	dir=$work/logs/$cl
	rm -rf "$dir"
	mkdir -p "$dir"
	t0=$(date +%s%N)
	if ! compat_start_server "$server" "$dir/server" 2>"$dir/start.err"; then
		compat_stop_server
		echo "FAIL $cl: the server did not start: $(tail -5 "$dir/start.err")" | tee "$dir/client.log"
		tf=$((tf + 1)) bad+=("$cl")
		report_row "$cl" FAIL 0 1 0 "$dir/client.log"
		continue
	fi
	# shellcheck disable=SC2086
	COMPAT_HOST=127.0.0.1 COMPAT_PORT=$COMPAT_PORT COMPAT_USER=root COMPAT_PASSWORD= COMPAT_SERVER=$server \
		timeout 300 $cmd >"$dir/client.log" 2>"$dir/client.err"
	rc=$?
	compat_stop_server
	ms=$((($(date +%s%N) - t0) / 1000000))
	secs=$((ms / 1000)).$((ms % 1000 / 100))
	if [ -n "$known" ] && [ "$server" = sqlgw ]; then
		mv "$dir/client.log" "$dir/client.raw.log"
		# A crash or a failure without a FAIL line must stay a failure.
		grep -aqE '^[0-9]+ passed, [0-9]+ failed' "$dir/client.raw.log" ||
			echo "FAIL $cl: no summary (exit $rc): $(tail -3 "$dir/client.err" | tr '\n' ' ')" >>"$dir/client.raw.log"
		[ "$rc" -ne 0 ] && ! grep -aq '^FAIL ' "$dir/client.raw.log" &&
			echo "FAIL $cl: exit status $rc with no failed check" >>"$dir/client.raw.log"
		/usr/bin/python3 -B "$root/scripts/compat/known.py" "$known" "$cl" "$dir/client.raw.log" >"$dir/client.log"
		rc=$?
	fi
	summary=$(grep -aE '^[0-9]+ passed, [0-9]+ failed' "$dir/client.log" | tail -1)
	if [ -z "$summary" ]; then
		summary="0 passed, 1 failed, 0 skipped"
		echo "FAIL $cl: no summary (exit $rc): $(tail -5 "$dir/client.err")" >>"$dir/client.log"
	fi
	read -r p _ f _ s _ <<<"${summary//,/}"
	s=${s:-0}
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1 && echo "FAIL $cl: exit status $rc with no failed check" >>"$dir/client.log"
	tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
	report_row "$cl" "$([ "$f" -eq 0 ] && echo PASS || echo FAIL)" "$p" "$f" "$s" "$dir/client.log"
	if [ "$f" -eq 0 ]; then
		printf '%-4s %-11s %3d passed, %d failed, %d expected or known failures  (%ss)\n' PASS "$cl" "$p" "$f" "$s" "$secs"
	else
		printf '%-4s %-11s %3d passed, %d failed, %d expected or known failures  (%ss)\n' FAIL "$cl" "$p" "$f" "$s" "$secs"
		bad+=("$cl")
	fi
	grep -aE '^(FAIL|XFAIL|KNOWN) ' "$dir/client.log" | sed 's/^/     /' | cut -c1-600
done
end=$(date +%s)
echo "compat: install/build $((installed - start))s, clients $((end - installed))s, total $((end - start))s"
[ ${#bad[@]} -eq 0 ] || echo "compat: failing clients: ${bad[*]}"
echo "$tp passed, $tf failed, $ts skipped"
[ "$tf" -eq 0 ]
