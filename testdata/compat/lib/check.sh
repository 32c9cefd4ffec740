# shellcheck shell=bash
# Checks for the shell-driven compat clients (mysql CLI, mariadb-dump, discovery).
# Connection: COMPAT_HOST, COMPAT_PORT, COMPAT_USER, COMPAT_PASSWORD; COMPAT_SERVER is
# sqlgw or mariadb. Each check prints "ok NAME", "FAIL NAME ..." or "XFAIL NAME ...";
# compat_summary prints "N passed, N failed, N skipped" (skipped = expected failures)
# and returns non-zero if anything failed.

COMPAT_PASSED=0
COMPAT_FAILED=0
COMPAT_XFAILED=0

# The client binary; every option is on the command line (--no-defaults).
compat_sql() {
	mariadb --no-defaults --default-character-set=utf8mb4 --protocol=TCP -h"${COMPAT_HOST:-127.0.0.1}" -P"$COMPAT_PORT" \
		-u"${COMPAT_USER:-root}" ${COMPAT_PASSWORD:+-p"$COMPAT_PASSWORD"} "$@"
}

compat_ok() {
	COMPAT_PASSED=$((COMPAT_PASSED + 1))
	echo "ok $1"
}

# compat_fail NAME WHY: WHY goes on one line (" // " between its lines, without the
# client's "-----" statement frames) so that the runner's summary shows all of it.
compat_fail() {
	COMPAT_FAILED=$((COMPAT_FAILED + 1))
	echo "FAIL $1: $(printf '%s' "$2" | grep -v -e '^-*$' | sed ':a;N;$!ba;s/\n/ \/\/ /g')"
}

# compat_eq NAME WANT GOT
compat_eq() {
	if [ "$2" == "$3" ]; then
		compat_ok "$1"
	else
		compat_fail "$1" "$(printf 'want:\n%s\ngot:\n%s' "$2" "$3")"
	fi
}

# compat_not_supported_is_expected ERRTEXT: true if ERRTEXT is sqlgw saying a feature is
# not supported yet (MySQL error 1235 / "not supported"), which only sqlgw may answer.
compat_not_supported_is_expected() {
	[ "${COMPAT_SERVER:-}" = sqlgw ] && printf '%s' "$1" | grep -qiE 'ERROR 1235|not (yet )?supported'
}

# compat_index NAME SQL...: runs a CREATE INDEX statement; an error counts as an expected
# failure only on sqlgw and only when the server says the feature is not supported.
compat_index() {
	local name=$1 out
	shift
	if out=$(compat_sql "$@" 2>&1); then
		compat_ok "$name"
	elif compat_not_supported_is_expected "$out"; then
		COMPAT_XFAILED=$((COMPAT_XFAILED + 1))
		echo "XFAIL $name (secondary indexes not supported yet): $(printf '%s' "$out" | grep -v -e '^-*$' | tr '\n' ' ')"
	else
		compat_fail "$name" "$out"
	fi
}

# compat_query NAME WANT SQLARGS...: runs the client with SQLARGS (batch, no column names)
# and compares its output with WANT; an error is a failure that shows the server's error.
compat_query() {
	local name=$1 want=$2 got
	shift 2
	if got=$(compat_sql --batch --skip-column-names "$@" 2>&1); then
		compat_eq "$name" "$want" "$got"
	else
		compat_fail "$name" "$got"
	fi
}

# compat_exec NAME SQLARGS...: the statement(s) must succeed.
compat_exec() {
	local name=$1 out
	shift
	if out=$(compat_sql --batch "$@" 2>&1); then
		compat_ok "$name"
	else
		compat_fail "$name" "$out"
	fi
}

compat_summary() {
	echo "$COMPAT_PASSED passed, $COMPAT_FAILED failed, $COMPAT_XFAILED skipped"
	[ "$COMPAT_FAILED" -eq 0 ]
}
