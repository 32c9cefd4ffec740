#!/usr/bin/env bash
# sysbench against MariaDB and one or two sqlgw binaries, interleaved: A/B/A/B.
#
# bench/sysbench.sh runs every test against MariaDB, then every test against
# sqlgw, minutes apart; on a shared machine whose free CPU drifts by tens of
# percent within minutes, its ratios move by as much. This script starts all
# servers at once (MariaDB, `--sqlgw BIN` and, with --compare, a second sqlgw
# binary, each on its own throw-away store), loads the same sbtest table into
# each, and then runs each test for --rounds rounds, every round against every
# server in turn (the order reversed every other round, so that a drift
# favours no server). Only the server under test is busy; the others idle.
#
# It prints, per test, each server's median tps over the rounds and the
# median of the per-round ratios (sqlgw / MariaDB, and with --compare new /
# base), with the smallest and largest round's ratio in brackets; `prepare`
# (loading the table, then CREATE INDEX k_1 as sysbench's prepare does) is
# timed in --rounds rounds too, into a scratch database. Every round's figures
# go to --raw FILE if given.
#
# Usage: bench/sysbench-ab.sh [--sqlgw BIN] [--compare BIN2] [--rounds N]
#                             [--time SECONDS] [--threads N] [--table-size N]
#                             [--tests "T1 T2 ..."] [--out FILE] [--raw FILE]
#
# --sqlgw is the binary under test ("new"; default bin/sqlgw); --compare is the
# reference sqlgw binary ("base"). Example, the issue 13 set:
#   bench/sysbench-ab.sh --sqlgw /tmp/new --compare /tmp/base --rounds 3 --time 10
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/servers.sh
source "$root/scripts/servers.sh"

new_bin=$root/bin/sqlgw
base_bin=
rounds=3
time_s=10
threads=4
table_size=100000
out=
raw=
tests=(oltp_point_select select_random_points oltp_read_only oltp_update_index oltp_insert)
while [ $# -gt 0 ]; do
	case $1 in
	--sqlgw) new_bin=$(realpath "$2"); shift 2 ;;
	--compare) base_bin=$(realpath "$2"); shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--time) time_s=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	--table-size) table_size=$2; shift 2 ;;
	--tests) read -ra tests <<<"$2"; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--raw) raw=$2; shift 2 ;;
	-h | --help)
		sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*) echo "sysbench-ab.sh: unknown argument $1" >&2; exit 2 ;;
	esac
done
for tool in sysbench mariadb; do
	if ! command -v $tool >/dev/null; then
		echo "sysbench-ab.sh: $tool is missing: apt-get install sysbench mariadb-client mariadb-server" >&2
		exit 1
	fi
done
for b in "$new_bin" ${base_bin:+"$base_bin"}; do
	if [ ! -x "$b" ]; then
		echo "sysbench-ab.sh: $b not built (make build)" >&2
		exit 1
	fi
done
if ! [[ $rounds =~ ^[1-9][0-9]*$ ]]; then
	echo "sysbench-ab.sh: --rounds must be a positive integer" >&2
	exit 2
fi

work=$(mktemp -d /tmp/sqlgw-ab.XXXXXX)
declare -A pid port
servers=(mariadb)
[ -n "$base_bin" ] && servers+=(base)
servers+=(new)
cleanup() {
	local s
	for s in "${servers[@]}"; do
		srv_stop "${pid[$s]:-}"
	done
	rm -rf "$work"
}
trap cleanup EXIT

for s in "${servers[@]}"; do
	port[$s]=$(srv_free_port)
	case $s in
	mariadb) srv_start_mariadb "$work/mariadb" "${port[$s]}" ;;
	base) srv_start_sqlgw "$base_bin" "pebble:$work/base-data" "${port[$s]}" "$work/base.log" ;;
	new) srv_start_sqlgw "$new_bin" "pebble:$work/new-data" "${port[$s]}" "$work/new.log" ;;
	esac
	pid[$s]=$SRV_PID
	echo "sysbench-ab.sh: $s on 127.0.0.1:${port[$s]}" >&2
done

# sb SERVER DB CMD TEST [args]: sysbench with the common options.
sb() {
	local s=$1 db=$2 cmd=$3 test=$4
	shift 4
	sysbench "$test" --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="${port[$s]}" \
		--mysql-user=root --mysql-password= --mysql-db="$db" \
		--tables=1 --table-size="$table_size" --create_secondary=on \
		--threads="$threads" --time="$time_s" --report-interval=0 --rand-seed=1 \
		"$@" "$cmd"
}

sql() {
	mariadb --no-defaults -h127.0.0.1 -P"${port[$1]}" -uroot -e "$2"
}

# order R: the servers in round R's order (reversed every other round).
order() {
	if (($1 % 2)); then
		printf '%s\n' "${servers[@]}"
	else
		printf '%s\n' "${servers[@]}" | tac
	fi
}

declare -A val # val[server,test,round]: tps, or seconds for prepare
log_raw() {
	[ -n "$raw" ] && echo "$*" >>"$raw"
	return 0
}
[ -n "$raw" ] && : >"$raw"

# prepare, timed: into a scratch database each round.
for ((r = 1; r <= rounds; r++)); do
	for s in $(order $r); do
		sql "$s" 'DROP DATABASE IF EXISTS sbprep; CREATE DATABASE sbprep'
		start=${EPOCHREALTIME/./}
		if sb "$s" sbprep prepare oltp_common --threads=1 >"$work/$s-prepare-$r.log" 2>&1; then
			val[$s,prepare,$r]=$(awk -v us="$((${EPOCHREALTIME/./} - start))" 'BEGIN { printf "%.2f", us / 1e6 }')
		else
			val[$s,prepare,$r]=failed
			tail -5 "$work/$s-prepare-$r.log" >&2
		fi
		sql "$s" 'DROP DATABASE sbprep'
		log_raw "round $r $s prepare ${val[$s,prepare,$r]} s"
		echo "  round $r $s: prepare ${val[$s,prepare,$r]} s" >&2
	done
done

# The table the tests read.
for s in "${servers[@]}"; do
	sql "$s" 'DROP DATABASE IF EXISTS sbtest; CREATE DATABASE sbtest'
	sb "$s" sbtest prepare oltp_common --threads=1 >"$work/$s-prepare.log" 2>&1 || {
		tail -5 "$work/$s-prepare.log" >&2
		exit 1
	}
done

for test in "${tests[@]}"; do
	for ((r = 1; r <= rounds; r++)); do
		for s in $(order $r); do
			log=$work/$s-$test-$r.log
			if sb "$s" sbtest run "$test" >"$log" 2>&1; then
				val[$s,$test,$r]=$(awk '/transactions:/ {gsub(/\(/, "", $3); print $3}' "$log")
			else
				val[$s,$test,$r]=failed
				grep -iE 'error|fatal' "$log" | head -5 >&2 || tail -5 "$log" >&2
			fi
			log_raw "round $r $s $test ${val[$s,$test,$r]} tps"
			echo "  round $r $s: $test ${val[$s,$test,$r]} tps" >&2
		done
	done
done

# median of the arguments (numbers), or n/a if any is not a number.
median() {
	local v
	for v in "$@"; do
		[[ $v =~ ^[0-9.]+$ ]] || { echo n/a; return; }
	done
	printf '%s\n' "$@" | sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) printf "%.3f", a[(NR + 1) / 2]; else printf "%.3f", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# ratios A B TEST: "median [min-max]" of the per-round ratios A/B.
ratios() {
	local a=$1 b=$2 test=$3 r x y rs=()
	for ((r = 1; r <= rounds; r++)); do
		x=${val[$a,$test,$r]} y=${val[$b,$test,$r]}
		if ! [[ $x =~ ^[0-9.]+$ && $y =~ ^[0-9.]+$ ]] || [ "$y" = 0 ]; then
			echo n/a
			return
		fi
		rs+=("$(awk -v x="$x" -v y="$y" 'BEGIN { printf "%.3f", x / y }')")
	done
	echo "$(median "${rs[@]}") [$(printf '%s\n' "${rs[@]}" | sort -g | head -1)–$(printf '%s\n' "${rs[@]}" | sort -g | tail -1)]"
}

med() {
	local s=$1 test=$2 r vs=()
	for ((r = 1; r <= rounds; r++)); do
		vs+=("${val[$s,$test,$r]}")
	done
	median "${vs[@]}"
}

cpu=$(awk -F': ' '/model name/ {print $2; exit}' /proc/cpuinfo)
rev=$(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)
{
	echo "sysbench $(sysbench --version | awk '{print $2}'), $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs ($cpu), checkout $rev,"
	echo "$(mariadbd --version 2>/dev/null | awk '{print $3}' | sed 's/,$//'): --tables=1 --table-size=$table_size --create_secondary=on --threads=$threads --time=$time_s; $rounds interleaved rounds"
	echo "new = $new_bin${base_bin:+, base = $base_bin}; medians over the rounds, per-round ratio range in brackets"
	echo
	if [ -n "$base_bin" ]; then
		echo "| test | MariaDB | base | new | base / MariaDB | new / MariaDB | new / base |"
		echo "|---|---:|---:|---:|---:|---:|---:|"
	else
		echo "| test | MariaDB | sqlgw | sqlgw / MariaDB |"
		echo "|---|---:|---:|---:|"
	fi
	for test in prepare "${tests[@]}"; do
		name=$test
		[ "$test" = prepare ] && name="prepare (s, $table_size rows; ratio of times)"
		if [ -n "$base_bin" ]; then
			echo "| $name | $(med mariadb "$test") | $(med base "$test") | $(med new "$test") | $(ratios base mariadb "$test") | $(ratios new mariadb "$test") | $(ratios new base "$test") |"
		else
			echo "| $name | $(med mariadb "$test") | $(med new "$test") | $(ratios new mariadb "$test") |"
		fi
	done
} | tee ${out:+"$out"}
