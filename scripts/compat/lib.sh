# shellcheck shell=bash
# Helpers shared by scripts/compat/run.sh: free loopback ports, and starting and
# stopping one throw-away server (sqlgw or a reference MariaDB) per client, by PID.

# The Hibernate client's class path: Debian's jars (libhibernate3-java and its
# dependencies) and MariaDB Connector/J.
COMPAT_HIBERNATE_CP=$(printf '/usr/share/java/%s.jar:' hibernate3 antlr commons-collections3 dom4j \
	geronimo-jpa_2.0_spec geronimo-jta-1.2-spec hibernate-commons-annotations slf4j-api slf4j-nop \
	javassist mariadb-java-client)

# The Spring JDBC client's class path: Debian's Spring 4.3 jars, HikariCP, Connector/J.
COMPAT_SPRING_CP=$(printf '/usr/share/java/%s.jar:' spring3-jdbc spring3-core spring3-beans spring3-transaction \
	commons-logging HikariCP slf4j-api slf4j-nop mariadb-java-client)

# The EclipseLink client's class path: Debian's EclipseLink 2.7, its JPA 2.1 API, Connector/J,
# and the directory holding its META-INF/persistence.xml.
COMPAT_ECLIPSELINK_CP=$(printf '/usr/share/java/%s.jar:' eclipselink eclipselink-jpa-2.1-spec mariadb-java-client)

# compat_free_port prints a TCP port on 127.0.0.1 that nothing listens on now.
compat_free_port() {
	/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# compat_wait_tcp PORT SECONDS: waits until 127.0.0.1:PORT accepts a connection.
compat_wait_tcp() {
	local port=$1 secs=$2 i
	for ((i = 0; i < secs * 10; i++)); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# compat_start_server KIND WORKDIR: starts a fresh server of KIND (sqlgw|mariadb) on a
# free loopback port with its files under WORKDIR. Sets COMPAT_PORT and SERVER_PID and
# writes the server's log to WORKDIR/server.log. Returns non-zero if it never got ready.
compat_start_server() {
	local kind=$1 dir=$2
	mkdir -p "$dir"
	COMPAT_PORT=$(compat_free_port)
	case $kind in
	mariadb)
		if [ ! -d "$COMPAT_MARIADB_TEMPLATE/mysql" ]; then
			echo "compat: no MariaDB template datadir at $COMPAT_MARIADB_TEMPLATE" >&2
			return 1
		fi
		cp -a "$COMPAT_MARIADB_TEMPLATE" "$dir/data"
		mariadbd --no-defaults --user=root --datadir="$dir/data" --socket="$dir/data/sock" \
			--port="$COMPAT_PORT" --bind-address=127.0.0.1 \
			--skip-log-bin --character-set-server=utf8mb4 --collation-server=utf8mb4_general_ci --innodb-buffer-pool-size=32M --innodb-log-file-size=8M \
			--pid-file="$dir/data/mariadbd.pid" >"$dir/server.log" 2>&1 &
		SERVER_PID=$!
		;;
	sqlgw)
		local store=${COMPAT_SQLGW_STORE:-memory:}
		# "pebble" alone means an embedded store in a fresh directory per server;
		# "azurite" a fresh in-memory Azurite (Table service emulator) per server.
		[ "$store" = pebble ] || [ "$store" = pebble: ] && store=pebble:$dir/data
		if [ "$store" = azurite ]; then
			compat_start_azurite "$dir" || return 1
			store="azure:DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=$COMPAT_AZURITE_KEY;TableEndpoint=http://127.0.0.1:$AZURITE_PORT/devstoreaccount1;"
		fi
		"$COMPAT_SQLGW_BIN" serve --listen "127.0.0.1:$COMPAT_PORT" --store "$store" \
			>"$dir/server.log" 2>&1 &
		SERVER_PID=$!
		;;
	*)
		echo "compat: unknown server kind $kind" >&2
		return 2
		;;
	esac
	local i
	for ((i = 0; i < 300; i++)); do
		if ! kill -0 "$SERVER_PID" 2>/dev/null; then
			echo "compat: $kind exited before it was ready; log:" >&2
			tail -20 "$dir/server.log" >&2
			return 1
		fi
		if [ "$kind" = sqlgw ] && grep -q ready "$dir/server.log" && compat_wait_tcp "$COMPAT_PORT" 1; then
			return 0
		fi
		if [ "$kind" = mariadb ] && compat_wait_tcp "$COMPAT_PORT" 1 &&
			mariadb --no-defaults -h127.0.0.1 -P"$COMPAT_PORT" -uroot -e 'SELECT 1' >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.1
	done
	echo "compat: $kind not ready after 30 s; log:" >&2
	tail -20 "$dir/server.log" >&2
	return 1
}

# Azurite's well-known development account key (public, documented by Microsoft).
COMPAT_AZURITE_KEY='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='

# compat_start_azurite DIR: starts azurite-table ($COMPAT_AZURITE_BIN) in memory on a
# free loopback port. Sets AZURITE_PORT and AZURITE_PID.
compat_start_azurite() {
	local dir=$1 i
	AZURITE_PORT=$(compat_free_port)
	"$COMPAT_AZURITE_BIN" --tableHost 127.0.0.1 --tablePort "$AZURITE_PORT" --inMemoryPersistence \
		--disableTelemetry --skipApiVersionCheck >"$dir/azurite.log" 2>&1 </dev/null &
	AZURITE_PID=$!
	for ((i = 0; i < 300; i++)); do
		grep -qs "successfully started" "$dir/azurite.log" && return 0
		kill -0 "$AZURITE_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "compat: azurite did not start; log:" >&2
	tail -20 "$dir/azurite.log" >&2
	return 1
}

# compat_stop_pid PID: stops one process we started, by its PID, and waits for it.
compat_stop_pid() {
	local pid=$1 i
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 0
	kill "$pid" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# compat_stop_server: stops the server started last (and its Azurite), by PID.
compat_stop_server() {
	compat_stop_pid "${SERVER_PID:-}"
	compat_stop_pid "${AZURITE_PID:-}"
	SERVER_PID= AZURITE_PID=
}

# compat_mariadb_template DIR: makes an initialised MariaDB datadir once, to copy per client.
compat_mariadb_template() {
	local dir=$1
	if [ -d "$dir/mysql" ]; then
		return 0
	fi
	mkdir -p "$dir"
	mariadb-install-db --no-defaults --user=root --datadir="$dir" \
		--auth-root-authentication-method=normal --skip-test-db >"$dir.install.log" 2>&1 || {
		cat "$dir.install.log" >&2
		return 1
	}
}
