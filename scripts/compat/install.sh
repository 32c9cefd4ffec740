#!/usr/bin/env bash
# Installs what the compat clients need and builds them into WORK (default
# ${TMPDIR:-/tmp}/sqlgw-compat): Debian packages (only those missing; needs root),
# the Node clients' pinned packages (npm ci), the GORM and sqlx clients (their own Go
# module), the Java clients (JDBC, Hibernate, Spring, EclipseLink) and the C++ client. Usage: scripts/compat/install.sh [--server sqlgw|mariadb]
# [--no-packages] [WORK]; --no-packages skips apt and npm (the clients are still built).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
server=sqlgw
packages=1
while [ $# -gt 0 ]; do
	case $1 in
	--server) server=$2; shift 2 ;;
	--no-packages) packages=0; shift ;;
	*) break ;;
	esac
done
work=${1:-${TMPDIR:-/tmp}/sqlgw-compat}
mkdir -p "$work"

# Debian packages: the clients, the C client library behind mysqlclient, and the
# reference server when the suite runs against MariaDB.
pkgs=(mariadb-client python3-pymysql python3-mysqldb python3-sqlalchemy python3-django libmariadb-java
	odbc-mariadb python3-pyodbc mycli python3-peewee python3-aiomysql
	libhibernate3-java libjavassist-java libslf4j-java unixodbc tmux sqlline python3-pony python3-sqlmodel
	libspring-jdbc-java libhikaricp-java php-cli php-mysql libdbd-mariadb-perl libdbd-mysql-perl ruby-mysql2
	ruby-activerecord ruby-sequel python3-alembic libmysqlcppconn-dev g++ libeclipselink-java
	php-doctrine-dbal php-illuminate-database)
[ "$server" = mariadb ] && pkgs+=(mariadb-server)
command -v javac >/dev/null || pkgs+=(default-jdk-headless)
command -v npm >/dev/null || pkgs+=(nodejs npm)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ $packages = 1 ] && [ ${#missing[@]} -gt 0 ]; then
	echo "compat: installing ${missing[*]}"
	sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >"$work/apt.log" 2>&1 ||
		{ tail -30 "$work/apt.log" >&2; exit 1; }
fi

# Node: exactly the versions in package-lock.json.
node_dir=$root/testdata/compat/node
if [ $packages = 1 ] && { [ ! -f "$node_dir/node_modules/.package-lock.json" ] ||
	[ "$node_dir/package-lock.json" -nt "$node_dir/node_modules/.package-lock.json" ]; }; then
	(cd "$node_dir" && npm ci --no-audit --no-fund --loglevel=error)
fi

# Azurite, for --store azurite: the version pinned in tools/azurite (the storage
# tests' pin), installed into WORK.
if [ "${COMPAT_STORE:-}" = azurite ] && [ ! -x "$work/azurite/node_modules/.bin/azurite-table" ]; then
	mkdir -p "$work/azurite"
	cp "$root/tools/azurite/package.json" "$root/tools/azurite/package-lock.json" "$work/azurite/"
	(cd "$work/azurite" && npm ci --no-audit --no-fund --loglevel=error)
fi

# Go: the GORM and sqlx clients are a module of their own (pinned in its go.mod/go.sum).
(cd "$root/testdata/compat/go" && go build -o "$work/gormcompat" . && go build -o "$work/sqlxcompat" ./sqlx)

# Java: the JDBC client against Debian's MariaDB Connector/J.
mkdir -p "$work/java"
javac -cp /usr/share/java/mariadb-java-client.jar -d "$work/java" "$root/testdata/compat/java/JdbcClient.java"
# shellcheck source=lib.sh
. "$root/scripts/compat/lib.sh"
mkdir -p "$work/hibernate"
javac -cp "$COMPAT_HIBERNATE_CP" -d "$work/hibernate" "$root/testdata/compat/java/hibernate/HibernateClient.java"
mkdir -p "$work/spring"
javac -cp "$COMPAT_SPRING_CP" -d "$work/spring" "$root/testdata/compat/java/spring/SpringClient.java"
mkdir -p "$work/eclipselink"
javac -cp "$COMPAT_ECLIPSELINK_CP" -d "$work/eclipselink" "$root/testdata/compat/java/eclipselink/EclipseLinkClient.java"
# C++: the MySQL Connector/C++ 1.1 client.
g++ -O1 -o "$work/cppconncompat" "$root/testdata/compat/cpp/cppconn_client.cpp" -lmysqlcppconn
echo "compat: clients ready in $work"
