#!/usr/bin/env bash
# Runs each named make target in turn (all of them, even after a failure),
# times each, and prints a summary ending in "parts: N passed, N failed".
# Exits non-zero if any part failed. Used by `make test` and by .ci/run.
set -uo pipefail
make=${MAKE:-make}
declare -A took status
failed=0
for part in "$@"; do
	echo
	echo "== make $part"
	s=$SECONDS
	if "$make" --no-print-directory "$part" </dev/null; then
		status[$part]=ok
	else
		status[$part]=FAIL
		failed=$((failed + 1))
	fi
	took[$part]=$((SECONDS - s))
done
echo
echo "== summary"
for part in "$@"; do
	printf '%-15s %-4s %5d s\n' "$part" "${status[$part]}" "${took[$part]}"
done
echo "parts: $(($# - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
