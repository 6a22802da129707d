#!/usr/bin/env bash
# `make bench`: one VM boot runs the perftest matrix on rdma_rxe and on
# sroce (tests/vm/bench-guest.sh); prints the sroce/rxe ratios and writes
# them to build/bench.txt. Absolute TCG figures mean little; the ratios
# from one boot are the measure. For latency, lower is better, so the
# ratio printed is rxe/sroce (above 1: sroce is faster) like the others.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench.txt
log=$top/build/bench.log

"$top/scripts/vm-run.sh" --timeout 1800 --log "$log" "$top/tests/vm/bench-guest.sh" \
	> /dev/null || true
# Goodput under loss: two VMs, netem on the link (the client is host 2).
"$top/scripts/vm-run.sh" --two --timeout 1800 --log "$log.loss" \
	"$top/tests/vm/bench-loss-guest.sh" > /dev/null || true
cat "$log" "$log.loss.h2" 2>/dev/null | grep -a '^BENCH ' > "$top/build/bench.raw" || {
	echo "bench: no results (see $log)" >&2
	exit 1
}

awk '
	$4 ~ /^[0-9.]+$/ { u[$3] = $5 }
	$4 !~ /^[0-9.]+$/ { why[$2, $3] = substr($0, index($0, " n/a ") + 5) }
	{ v[$2, $3] = $4; if (!($3 in seen)) { seen[$3] = 1; order[n++] = $3 } }
	END {
		printf "%-18s %12s %12s %8s  %s\n", "test", "rxe", "sroce", "ratio", "unit"
		for (i = 0; i < n; i++) {
			t = order[i]; r = v["rxe", t]; s = v["sroce", t]
			ratio = "n/a"
			if (r ~ /^[0-9.]+$/ && s ~ /^[0-9.]+$/ && r > 0 && s > 0)
				ratio = sprintf("%.2f", (u[t] == "us") ? r / s : s / r)
			printf "%-18s %12s %12s %8s  %s\n", t, r, s, ratio, u[t]
		}
		for (k in why) {
			split(k, p, SUBSEP)
			printf "  %s %s did not run: %s\n", p[1], p[2], why[k]
		}
	}' "$top/build/bench.raw" | tee "$out"
echo "(written to $out; ratio > 1 means sroce is better)"
