#!/usr/bin/env bash
# sysbench against sqlgw and against MariaDB on the same machine, in one run.
#
# Starts a throw-away MariaDB (package mariadb-server; datadir under a temporary
# directory, loopback port) and runs sysbench's oltp_point_select,
# oltp_read_only and oltp_insert against it; stops it; then does the same against
# `sqlgw serve --store pebble:DIR` (the embedded store, DIR temporary). One
# server runs at a time so they do not compete for the CPU. Prints a markdown
# table with both throughputs and their ratio (sqlgw / MariaDB).
#
# Both servers get the same sbtest table, by default with sysbench's secondary
# index k_1(k) (--create_secondary=on, sysbench's default: prepare loads the
# rows, then runs CREATE INDEX, which sqlgw backfills online; in sqlgw it is a
# global index, k not starting with the partition key id). oltp_insert then
# maintains it on every row, and two more workloads use it: oltp_update_index
# (UPDATE ... SET k = k + 1 WHERE id = ?, an indexed value changing) and
# select_random_points (SELECT ... WHERE k IN (10 values), reads through it).
# --ps-mode disable makes sysbench send its statements as text (COM_QUERY
# with the values in the text, as most ORMs and drivers that interpolate
# do) instead of server-side prepared statements (sysbench's default,
# auto).
# --secondary off reproduces the earlier runs without the index (and without
# the two k workloads).
#
# --profile FILE captures a CPU profile of sqlgw (pprof format, through
# `sqlgw serve --debug-listen` on a loopback port) during its run of the first
# test of --tests, over the test's duration less 2 s; `go tool pprof -top
# FILE` reads it. `make profile` does this for oltp_point_select.
#
# Usage: bench/sysbench.sh [--sqlgw BIN] [--time SECONDS] [--threads N]
#                          [--table-size N] [--secondary on|off]
#                          [--tests "T1 T2 ..."] [--out FILE] [--only sqlgw|mariadb]
#                          [--profile FILE] [--ps-mode auto|disable]
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/servers.sh
source "$root/scripts/servers.sh"

sqlgw_bin=$root/bin/sqlgw
time_s=30
threads=4
table_size=100000
out=
only=
secondary=on
tests=
profile=
ps_mode=auto
while [ $# -gt 0 ]; do
	case $1 in
	--sqlgw) sqlgw_bin=$(realpath "$2"); shift 2 ;;
	--time) time_s=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	--table-size) table_size=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--secondary) secondary=$2; shift 2 ;;
	--tests) read -ra tests <<<"$2"; shift 2 ;;
	--profile) profile=$(realpath -m "$2"); shift 2 ;;
	--ps-mode) ps_mode=$2; shift 2 ;;
	-h | --help)
		sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*) echo "sysbench.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

case $secondary in
on | off) ;;
*) echo "sysbench.sh: --secondary on or off" >&2; exit 2 ;;
esac
if [ -z "${tests[*]}" ]; then
	tests=(oltp_point_select oltp_read_only oltp_insert)
	if [ "$secondary" = on ]; then
		tests+=(oltp_update_index select_random_points)
	fi
fi

for tool in sysbench mariadb; do
	if ! command -v $tool >/dev/null; then
		echo "sysbench.sh: $tool is missing: apt-get install sysbench mariadb-client mariadb-server" >&2
		exit 1
	fi
done

work=$(mktemp -d /tmp/sqlgw-bench.XXXXXX)
SRV_PID=
cleanup() {
	srv_stop "$SRV_PID"
	rm -rf "$work"
}
trap cleanup EXIT

declare -A tps qps lat95 prep
debug_addr=

# sb SERVER PORT CMD TEST [args]: runs sysbench with the common options.
sb() {
	local port=$1 cmd=$2 test=$3
	shift 3
	sysbench "$test" --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$port" \
		--mysql-user=root --mysql-password= --mysql-db=sbtest \
		--tables=1 --table-size="$table_size" --create_secondary="$secondary" \
		--threads="$threads" --time="$time_s" --report-interval=0 --rand-seed=1 \
		--db-ps-mode="$ps_mode" "$@" "$cmd"
}

# bench_server NAME PORT: prepares sbtest and runs every test against one server.
bench_server() {
	local name=$1 port=$2 test log start
	mariadb --no-defaults -h127.0.0.1 -P"$port" -uroot -e 'DROP DATABASE IF EXISTS sbtest; CREATE DATABASE sbtest'
	log=$work/$name-prepare.log
	start=${EPOCHREALTIME/./}
	# prepare is single-threaded; --threads only matters for run.
	if sb "$port" prepare oltp_common --threads=1 >"$log" 2>&1; then
		prep[$name]=$(printf "%.1f" "$(((${EPOCHREALTIME/./} - start) / 1000))e-3")
	else
		prep[$name]=failed
		echo "sysbench.sh: $name: prepare failed:" >&2
		tail -5 "$log" >&2
		return 0
	fi
	echo "  $name: prepare ${table_size} rows: ${prep[$name]} s" >&2
	for test in "${tests[@]}"; do
		log=$work/$name-$test.log
		local prof_pid=
		if [ "$name" = sqlgw ] && [ -n "$profile" ] && [ "$test" = "${tests[0]}" ]; then
			curl -sS -o "$profile" "http://$debug_addr/debug/pprof/profile?seconds=$((time_s > 3 ? time_s - 2 : 1))" &
			prof_pid=$!
		fi
		if sb "$port" run "$test" >"$log" 2>&1; then
			tps[$name,$test]=$(awk '/transactions:/ {gsub(/\(/, "", $3); print $3}' "$log")
			qps[$name,$test]=$(awk '/queries:/ && /per sec/ {gsub(/\(/, "", $3); print $3}' "$log")
			lat95[$name,$test]=$(awk '/95th percentile:/ {print $3}' "$log")
		else
			tps[$name,$test]=failed
			echo "sysbench.sh: $name: $test failed:" >&2
			grep -iE 'error|fatal' "$log" | head -5 >&2 || tail -5 "$log" >&2
		fi
		echo "  $name: $test: ${tps[$name,$test]} tps" >&2
		if [ -n "$prof_pid" ]; then
			wait "$prof_pid" && echo "  $name: $test: CPU profile in $profile (go tool pprof -top $profile)" >&2
		fi
	done
}

if [ "$only" != sqlgw ]; then
	port=$(srv_free_port)
	echo "sysbench.sh: MariaDB on 127.0.0.1:$port" >&2
	srv_start_mariadb "$work/mariadb" "$port"
	bench_server mariadb "$port"
	srv_stop "$SRV_PID"
	SRV_PID=
	rm -rf "$work/mariadb"
fi

if [ "$only" != mariadb ]; then
	if [ ! -x "$sqlgw_bin" ]; then
		echo "sysbench.sh: $sqlgw_bin not built (make build)" >&2
		exit 1
	fi
	port=$(srv_free_port)
	echo "sysbench.sh: sqlgw (pebble) on 127.0.0.1:$port" >&2
	if [ -n "$profile" ]; then
		debug_addr=127.0.0.1:$(srv_free_port)
		export SQLGW_DEBUG_LISTEN=$debug_addr
	fi
	srv_start_sqlgw "$sqlgw_bin" "pebble:$work/sqlgw-data" "$port" "$work/sqlgw.log"
	bench_server sqlgw "$port"
	srv_stop "$SRV_PID"
	SRV_PID=
fi

ratio() {
	local a=$1 b=$2
	if [[ $a =~ ^[0-9.]+$ && $b =~ ^[0-9.]+$ ]] && [ "$b" != 0 ]; then
		awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a / b }'
	else
		echo "n/a"
	fi
}

cpu=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)
rev=$(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)
{
	echo "sysbench $(sysbench --version | awk '{print $2}'), $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs ($cpu), sqlgw $rev,"
	echo "$(mariadbd --version 2>/dev/null | awk '{print $3}' | sed 's/,$//'): --tables=1 --table-size=$table_size --create_secondary=$secondary --threads=$threads --time=$time_s --db-ps-mode=$ps_mode"
	echo
	echo "| test | MariaDB tps | sqlgw tps | sqlgw / MariaDB | MariaDB p95 ms | sqlgw p95 ms |"
	echo "|---|---:|---:|---:|---:|---:|"
	for test in "${tests[@]}"; do
		m=${tps[mariadb,$test]:--}
		s=${tps[sqlgw,$test]:--}
		echo "| $test | $m | $s | $(ratio "$s" "$m") | ${lat95[mariadb,$test]:--} | ${lat95[sqlgw,$test]:--} |"
	done
	echo "| prepare (s, ${table_size} rows) | ${prep[mariadb]:--} | ${prep[sqlgw]:--} | $(ratio "${prep[sqlgw]:-}" "${prep[mariadb]:-}") (time) | | |"
} | tee ${out:+"$out"}
