#!/usr/bin/env bash
# tap-count.sh LOGFILE...
# Sum the TAP results in console logs of the VM suites (and host suites):
# prints "N passed, N failed, N skipped" and exits 1 if anything failed.
# A "# SKIP" result is counted as skipped, not passed; "not ok ... # TODO"
# is an expected failure in TAP and is counted as neither. The "[hN] "
# prefix that vm-run.sh adds in two-VM logs is accepted.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: tap-count.sh LOGFILE..." >&2; exit 2; }

cat -- "$@" | tr -d '\r' | awk '
	{ sub(/^\[h[0-9]+\] /, "") }
	/^not ok([ \t]|$)/ {
		if ($0 ~ /(^|[^\\])#[ \t]*[Tt][Oo][Dd][Oo]/) todo++; else failed++
		next
	}
	/^ok([ \t]|$)/ {
		if ($0 ~ /(^|[^\\])#[ \t]*[Ss][Kk][Ii][Pp]/) skipped++; else passed++
	}
	END {
		printf "%d passed, %d failed, %d skipped", passed, failed, skipped
		if (todo) printf ", %d todo", todo
		printf "\n"
		exit failed ? 1 : 0
	}'
