#!/usr/bin/env bash
# The mysql CLI suite: every testdata/cli/NAME.sql is piped through the MariaDB
# command-line client (Debian package mariadb-client) against a fresh
# `sqlgw serve --store memory:` on a free loopback port, and its output
# (tables, then errors in order, with --force so a failing statement does not
# stop the script) must equal testdata/cli/NAME.expected byte for byte.
#
# The .expected files are MariaDB's own output: `scripts/cli-test.sh --rewrite`
# (make clitest-rewrite) starts a throw-away MariaDB (package mariadb-server)
# and regenerates them; review the diff before committing. A statement whose
# output legitimately differs between servers (version strings, timings) does
# not belong in the suite.
#
# testdata/cli/known-failures.txt lists the scripts sqlgw does not pass yet,
# one "NAME: reason" a line. Such a script still runs: its diff is printed and
# it counts as skipped with the reason. A listed script that passes counts as
# passed and prints a reminder to delete its line (not a failure: a fix landing
# in sqlgw must not break CI before the list catches up).
#
# testdata/cli/paths/NAME.sql are sqlgw's own: EXPLAIN's access path per
# table and the store requests each query costs. They run with -N -B and a
# filter that keeps, of an EXPLAIN row, the table and sqlgw's Extra column,
# and turns each SHOW SESSION STATUS LIKE 'Sqlgw%' after the first into the
# difference from the one before (so the cost of the query between them). Their
# .expected files are written by hand from docs/architecture.md's access-path table (no
# reference server has these paths); --rewrite-paths writes sqlgw's current
# output instead, for review.
#
# Usage: scripts/cli-test.sh [--sqlgw BIN] [--rewrite | --rewrite-paths] [--keep] [NAME...]
#        (NAME: 01_keys, paths/01_paths, ...)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/servers.sh
source "$root/scripts/servers.sh"

sqlgw_bin=$root/bin/sqlgw
rewrite=0
rewrite_paths=0
keep=0
names=()
while [ $# -gt 0 ]; do
	case $1 in
	--sqlgw)
		sqlgw_bin=$(realpath "$2")
		shift 2
		;;
	--rewrite)
		rewrite=1
		shift
		;;
	--rewrite-paths)
		rewrite_paths=1
		shift
		;;
	--keep)
		keep=1
		shift
		;;
	-h | --help)
		sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*)
		names+=("$1")
		shift
		;;
	esac
done

client=$(command -v mariadb || true)
if [ -z "$client" ]; then
	echo "cli-test: the mariadb client is missing: apt-get install mariadb-client" >&2
	exit 1
fi

dir=$root/testdata/cli
if [ ${#names[@]} -eq 0 ]; then
	for f in "$dir"/*.sql; do
		names+=("$(basename "$f" .sql)")
	done
	if [ $rewrite -eq 0 ]; then
		for f in "$dir"/paths/*.sql; do
			names+=("paths/$(basename "$f" .sql)")
		done
	fi
fi

# paths_filter: see the header.
paths_filter() {
	awk -F'\t' '
		NF == 12 { print $3 "\t" $12; next }
		$1 ~ /^Sqlgw_/ && NF == 2 {
			if ($1 in last) printf "%s\t+%d\n", $1, $2 - last[$1]
			else printf "%s\t(baseline)\n", $1
			last[$1] = $2
			next
		}
		{ print }'
}

work=$(mktemp -d /tmp/sqlgw-clitest.XXXXXX)
SRV_PID=
cleanup() {
	srv_stop "$SRV_PID"
	if [ $keep -eq 0 ]; then
		rm -rf "$work"
	else
		echo "cli-test: kept $work"
	fi
}
trap cleanup EXIT

port=$(srv_free_port)
if [ $rewrite -eq 1 ]; then
	kind=mariadb
	srv_start_mariadb "$work/mariadb" "$port"
else
	kind=sqlgw
	if [ ! -x "$sqlgw_bin" ]; then
		echo "cli-test: $sqlgw_bin not built (make build)" >&2
		exit 1
	fi
	srv_start_sqlgw "$sqlgw_bin" memory: "$port" "$work/sqlgw.log"
fi
echo "cli-test: $kind on 127.0.0.1:$port"

declare -A known
if [ -f "$dir/known-failures.txt" ]; then
	while IFS= read -r line; do
		case $line in '' | '#'*) continue ;; esac
		known[${line%%:*}]=$(echo "${line#*:}" | sed 's/^ *//')
	done <"$dir/known-failures.txt"
fi

passed=0
failed=0
skipped=0
failures=()
for name in "${names[@]}"; do
	if [ $rewrite -eq 1 ] && [[ $name == paths/* ]]; then
		echo "cli-test: $name is sqlgw's own (no MariaDB output to take): use --rewrite-paths" >&2
		continue
	fi
	sql=$dir/$name.sql
	out=$work/$name.out
	start=${EPOCHREALTIME/./}
	# --table: boxed output as in an interactive session; --force: print an
	# error and go on; --unbuffered: flush after each statement so results and
	# errors interleave in statement order.
	if [[ $name == paths/* ]]; then
		mkdir -p "$work/paths"
		"$client" --no-defaults -h 127.0.0.1 -P "$port" -u root \
			--skip-column-names --batch --force --unbuffered --default-character-set=utf8mb4 \
			<"$sql" 2>&1 | paths_filter >"$out" || true
	else
		"$client" --no-defaults -h 127.0.0.1 -P "$port" -u root \
			--table --force --unbuffered --default-character-set=utf8mb4 \
			<"$sql" >"$out" 2>&1 || true
	fi
	us=$((${EPOCHREALTIME/./} - start))
	secs=$(printf "%d.%02d" $((us / 1000000)) $((us % 1000000 / 10000)))
	if [ $rewrite -eq 1 ] || { [ $rewrite_paths -eq 1 ] && [[ $name == paths/* ]]; }; then
		cp "$out" "$dir/$name.expected"
		echo "wrote testdata/cli/$name.expected"
		continue
	fi
	if diff -u --label "$name.expected" --label "$name (sqlgw)" "$dir/$name.expected" "$out" >"$work/$name.diff"; then
		passed=$((passed + 1))
		if [ -n "${known[$name]:-}" ]; then
			printf -- "--- PASS: clitest/%s (%ss): listed as a known failure but passes: delete its line from testdata/cli/known-failures.txt\n" "$name" "$secs"
		else
			printf -- "--- PASS: clitest/%s (%ss)\n" "$name" "$secs"
		fi
	elif [ -n "${known[$name]:-}" ]; then
		skipped=$((skipped + 1))
		printf -- "--- SKIP: clitest/%s (%ss): known failure: %s\n" "$name" "$secs" "${known[$name]}"
		sed "s/^/    /" "$work/$name.diff" | head -60 || true
	else
		failed=$((failed + 1))
		failures+=("$name")
		printf -- "--- FAIL: clitest/%s (%ss)\n" "$name" "$secs"
		head -100 "$work/$name.diff"
	fi
	if ! kill -0 "$SRV_PID" 2>/dev/null; then
		echo "cli-test: sqlgw died during $name; log:" >&2
		tail -30 "$work/sqlgw.log" >&2
		failed=$((failed + 1))
		break
	fi
done

if [ $rewrite -eq 1 ] || [ $rewrite_paths -eq 1 ]; then
	exit 0
fi
echo "clitest: $passed passed, $failed failed, $skipped skipped"
if [ $failed -gt 0 ]; then
	echo "clitest: FAIL: ${failures[*]}"
	exit 1
fi
