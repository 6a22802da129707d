#!/usr/bin/env bash
# tap-count.sh LOGFILE...
# Sum the TAP results in console logs of the VM suites (and host suites):
# prints "N passed, N failed, N skipped" and exits 1 if anything failed.
# A "# SKIP" result is counted as skipped, not passed. A "# TODO" result is
# counted apart: "not ok ... # TODO not built: ..." is a capability sroce
# has not built yet, any other "not ok ... # TODO" a known deviation of a
# peer (rdma_rxe); "ok ... # TODO" is a TODO that passes now (its entry is
# stale) and is listed by name. The "[hN] " prefix that vm-run.sh adds in
# two-VM logs is accepted.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: tap-count.sh LOGFILE..." >&2; exit 2; }

cat -- "$@" | tr -d '\r' | awk '
	function directive(line) {
		if (match(line, /(^|[^\\])#[ \t]*[Tt][Oo][Dd][Oo]/)) {
			rest = substr(line, RSTART + RLENGTH)
			sub(/^[ \t]*/, "", rest)
			return "todo:" rest
		}
		if (match(line, /(^|[^\\])#[ \t]*[Ss][Kk][Ii][Pp]/))
			return "skip"
		return ""
	}
	{ sub(/^\[h[0-9]+\] /, "") }
	/^not ok([ \t]|$)/ {
		d = directive($0)
		if (d ~ /^todo:not built/) notbuilt++
		else if (d ~ /^todo:/) deviation++
		else failed++
		next
	}
	/^ok([ \t]|$)/ {
		d = directive($0)
		if (d == "skip") skipped++
		else if (d ~ /^todo:/) { stale++; names = names "\n#   " $0 }
		else passed++
	}
	END {
		if (stale) printf "# TODO checks that pass now (update their entries):%s\n", names
		printf "%d passed, %d failed, %d skipped", passed, failed, skipped
		if (notbuilt) printf ", %d not built", notbuilt
		if (deviation) printf ", %d known peer deviations", deviation
		if (stale) printf ", %d TODO passing now", stale
		printf "\n"
		exit failed ? 1 : 0
	}'
