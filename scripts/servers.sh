# shellcheck shell=bash
# Throw-away servers for scripts/cli-test.sh and bench/sysbench.sh: a free
# loopback port, a sqlgw or a reference MariaDB started on it with its files in a
# temporary directory, and stopping it again by PID. Source this file.
#
# Every server binds 127.0.0.1 only and is stopped by the PID this file recorded,
# never by name.

# srv_free_port prints a TCP port on 127.0.0.1 that nothing listens on now.
srv_free_port() {
	local port i
	for ((i = 0; i < 200; i++)); do
		port=$((20000 + RANDOM % 40000))
		# A successful connect means something listens there: try another.
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"
			return 0
		fi
	done
	echo "servers: no free loopback port found" >&2
	return 1
}

# srv_wait_tcp PORT SECONDS waits until 127.0.0.1:PORT accepts a connection.
srv_wait_tcp() {
	local port=$1 secs=$2 i
	for ((i = 0; i < secs * 10; i++)); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# srv_start_sqlgw BIN STORE PORT LOG starts `BIN serve` and waits for its ready
# line. Sets SRV_PID.
srv_start_sqlgw() {
	local bin=$1 store=$2 port=$3 log=$4 i
	"$bin" serve --listen "127.0.0.1:$port" --store "$store" >"$log" 2>&1 </dev/null &
	SRV_PID=$!
	for ((i = 0; i < 600; i++)); do
		if ! kill -0 "$SRV_PID" 2>/dev/null; then
			echo "servers: sqlgw exited before it was ready; log:" >&2
			tail -20 "$log" >&2
			return 1
		fi
		if grep -qsi ready "$log" && srv_wait_tcp "$port" 1; then
			return 0
		fi
		sleep 0.1
	done
	echo "servers: sqlgw not ready after 60 s; log:" >&2
	tail -20 "$log" >&2
	return 1
}

# srv_start_mariadb DIR PORT starts a MariaDB server (package mariadb-server)
# with a fresh datadir under DIR, no grant tables (any user, no password) and
# small buffers. Sets SRV_PID. It is as durable as sqlgw (every commit synced
# to its log: innodb_flush_log_at_trx_commit=1, MariaDB's default, spelled
# out so that benchmarks never compare against a weaker setting).
srv_start_mariadb() {
	local dir=$1 port=$2 i
	local mariadbd
	mariadbd=$(command -v mariadbd || echo /usr/sbin/mariadbd)
	if [ ! -x "$mariadbd" ]; then
		echo "servers: mariadbd not found: apt-get install mariadb-server" >&2
		return 1
	fi
	mkdir -p "$dir"
	if [ ! -d "$dir/data/mysql" ]; then
		mariadb-install-db --no-defaults --user=root --datadir="$dir/data" \
			--auth-root-authentication-method=normal --skip-test-db >"$dir/install.log" 2>&1 || {
			cat "$dir/install.log" >&2
			return 1
		}
	fi
	"$mariadbd" --no-defaults --user=root --datadir="$dir/data" --socket="$dir/mariadb.sock" \
		--port="$port" --bind-address=127.0.0.1 --skip-grant-tables --skip-name-resolve \
		--skip-log-bin --character-set-server=utf8mb4 --collation-server=utf8mb4_bin \
		--innodb-buffer-pool-size=256M --innodb-log-file-size=64M \
		--innodb-flush-log-at-trx-commit=1 --innodb-doublewrite=1 \
		--pid-file="$dir/mariadbd.pid" --log-error="$dir/server.log" </dev/null >/dev/null 2>&1 &
	SRV_PID=$!
	for ((i = 0; i < 600; i++)); do
		if ! kill -0 "$SRV_PID" 2>/dev/null; then
			echo "servers: mariadbd exited before it was ready; log:" >&2
			tail -20 "$dir/server.log" >&2
			return 1
		fi
		if srv_wait_tcp "$port" 1 &&
			mariadb --no-defaults -h127.0.0.1 -P"$port" -uroot -e 'SELECT 1' >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.1
	done
	echo "servers: mariadbd not ready after 60 s" >&2
	return 1
}

# srv_stop PID stops one server started above (SIGTERM, then SIGKILL after 20 s).
srv_stop() {
	local pid=$1 i
	[ -n "$pid" ] || return 0
	if kill -0 "$pid" 2>/dev/null; then
		kill "$pid" 2>/dev/null || true
		for ((i = 0; i < 200; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -9 "$pid" 2>/dev/null || true
	fi
	wait "$pid" 2>/dev/null || true
}
