#!/usr/bin/env bash
# CPU per query: the server's and sysbench's, sqlgw against MariaDB.
#
# Starts a throw-away MariaDB and `sqlgw serve` on the embedded store (both on
# loopback ports, temporary directories), loads the same sbtest table into
# each, then runs one sysbench test against each in turn for --rounds rounds
# and prints, per run, the queries per second, the server's CPU per query
# (utime + stime from /proc/PID/stat) and sysbench's own CPU per query
# (/usr/bin/time). Throughput ratios move with the machine's load; CPU per
# query moves less, and sysbench's share shows what the client pays for the
# server's answers.
#
# Usage: bench/cpu-per-query.sh [--sqlgw BIN] [--test T] [--time SECONDS]
#                               [--rounds N] [--ps-mode auto|disable]
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/servers.sh
source "$root/scripts/servers.sh"

bin=$root/bin/sqlgw
test=oltp_point_select
time_s=10
rounds=2
ps_mode=auto
while [ $# -gt 0 ]; do
	case $1 in
	--sqlgw) bin=$(realpath "$2"); shift 2 ;;
	--test) test=$2; shift 2 ;;
	--time) time_s=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--ps-mode) ps_mode=$2; shift 2 ;;
	-h | --help)
		sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*) echo "cpu-per-query.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done

work=$(mktemp -d /tmp/sqlgw-cpuq.XXXXXX)
sport=$((20000 + RANDOM % 20000))
mport=$((sport + 1))
srv_start_sqlgw "$bin" "pebble:$work/pebble" "$sport" "$work/sqlgw.log"
spid=$SRV_PID
srv_start_mariadb "$work/mariadb" "$mport"
mpid=$SRV_PID
trap 'kill "$spid" "$mpid" 2>/dev/null; rm -rf "$work"' EXIT

common=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-user=root --mysql-password=
	--mysql-db=sbtest --tables=1 --table-size=100000 --create_secondary=on)
for port in "$sport" "$mport"; do
	mariadb --no-defaults -h127.0.0.1 -P"$port" -uroot -e 'CREATE DATABASE IF NOT EXISTS sbtest'
	sysbench oltp_common "${common[@]}" --mysql-port="$port" prepare >/dev/null
done

cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
echo "| round | server | qps | server CPU µs/query | sysbench CPU µs/query |"
echo "|---:|---|---:|---:|---:|"
for ((r = 1; r <= rounds; r++)); do
	for s in sqlgw mariadb; do
		if [ "$s" = sqlgw ]; then pid=$spid port=$sport; else pid=$mpid port=$mport; fi
		c0=$(cpu "$pid")
		/usr/bin/time -f '%U %S' -o "$work/time" sysbench "$test" "${common[@]}" --mysql-port="$port" \
			--threads=4 --time="$time_s" --db-ps-mode="$ps_mode" run >"$work/run.out"
		c1=$(cpu "$pid")
		n=$(awk '/queries:/ {print $2; exit}' "$work/run.out")
		qps=$(awk '/queries:/ {gsub(/[(]/, "", $3); print $3; exit}' "$work/run.out")
		read -r u sy <"$work/time"
		awk -v r="$r" -v s="$s" -v q="$qps" -v n="$n" -v c0="$c0" -v c1="$c1" -v hz="$hz" -v u="$u" -v sy="$sy" \
			'BEGIN { printf "| %d | %s | %.0f | %.1f | %.1f |\n", r, s, q, (c1 - c0) / hz * 1e6 / n, (u + sy) * 1e6 / n }'
	done
done
