#!/usr/bin/env bash
# `make profile` (or `make bench PROFILE=1`): one VM boot runs
# tests/vm/bench/profile-guest.sh, which samples the whole guest with
# `perf record -a -g` during a 2-byte ib_send_lat, 64 KiB ib_write_bw and
# ib_send_bw, and a 64-byte ib_send_bw over 4 QPs, on rdma_rxe and on
# sroce (loopback on eth0), and prints
# `perf report --no-children --sort sym` with a "PROFILE <name> " prefix.
# The lines are sorted here into build/profile-<impl>-<load>.txt.
# Environment: PROFILE_SECS (seconds per load, 8), PROFILE_TOP (symbols
# kept per report, 40), SROCE_VM_SLUB_DEBUG (scripts/vm-run.sh).
set -euo pipefail
# Without SLUB debugging unless asked for, as `make bench` (scripts/bench.sh).
export SROCE_VM_SLUB_DEBUG=${SROCE_VM_SLUB_DEBUG-}
top=$(cd "$(dirname "$0")/.." && pwd)
log=$top/build/profile.log
secs=${PROFILE_SECS:-8}
ntop=${PROFILE_TOP:-40}
mkdir -p "$top/build"
rm -f "$top"/build/profile-*.txt

"$top/scripts/vm-run.sh" --timeout 900 --log "$log" "$top/tests/vm/bench/profile-guest.sh" \
	"$secs" "$ntop" > /dev/null || echo "profile: the VM run failed (see $log)" >&2

names=$(grep -a '^PROFILE ' "$log" | awk '{print $2}' | sort -u)
[ -n "$names" ] || { echo "profile: no profiles in $log" >&2; exit 1; }
for n in $names; do
	f=$top/build/profile-$n.txt
	grep -a "^PROFILE $n " "$log" | sed "s/^PROFILE $n //" > "$f"
	echo "== $f"
	# The header, the samples by command and the ten hottest symbols.
	grep -v '^# record:' "$f" | awk '
		/^## by object/ { skip = 1 } /^## top/ { skip = 0; t = 1 } /^## callers/ { exit }
		skip || !NF { next } t && ++k > 13 { exit } { print }'
done
