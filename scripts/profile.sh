#!/usr/bin/env bash
# `make profile` (or `make bench PROFILE=1`): where the time goes.
# One VM boot runs tests/vm/bench/profile-guest.sh, which samples the
# whole guest with `perf record -a -g` during a 2-byte ib_send_lat, 64 KiB
# ib_write_bw and ib_send_bw, and a 64-byte ib_send_bw over 4 QPs, on
# rdma_rxe and on sroce (loopback on eth0); a two-VM boot runs
# tests/vm/bench/profile-two-guest.sh, which samples each end of a 64 KiB
# ib_write_bw stream on rdma_rxe and on sroce and of an iperf3 TCP stream
# between the hosts. Each report's lines carry a "PROFILE <name> " prefix
# and are sorted here into build/profile-<name>.txt.
# Environment: PROFILE_SECS (seconds per load, 8), PROFILE_TOP (symbols
# kept per report, 40), PROFILE_ONLY (one or two: that boot only),
# SROCE_VM_SLUB_DEBUG (scripts/vm-run.sh).
set -euo pipefail
# Without SLUB debugging unless asked for, as `make bench` (scripts/bench.sh).
export SROCE_VM_SLUB_DEBUG=${SROCE_VM_SLUB_DEBUG-}
top=$(cd "$(dirname "$0")/.." && pwd)
log=$top/build/profile.log
secs=${PROFILE_SECS:-8}
ntop=${PROFILE_TOP:-40}
only=${PROFILE_ONLY:-}
case $only in
'' | one | two) ;;
*) echo "PROFILE_ONLY=$only: one or two" >&2; exit 2 ;;
esac
mkdir -p "$top/build"

logs=()
if [ "$only" != two ]; then
	find "$top/build" -maxdepth 1 -name 'profile-*.txt' ! -name '*-two-*' -delete
	rm -f "$log"
	"$top/scripts/vm-run.sh" --timeout 900 --log "$log" \
		"$top/tests/vm/bench/profile-guest.sh" "$secs" "$ntop" > /dev/null ||
		echo "profile: the VM run failed (see $log)" >&2
	logs+=("$log")
fi
if [ "$only" != one ]; then
	rm -f "$top"/build/profile-*-two-*.txt "$log.two" "$log.two.h1" "$log.two.h2"
	"$top/scripts/vm-run.sh" --two --timeout 900 --log "$log.two" \
		"$top/tests/vm/bench/profile-two-guest.sh" "$secs" "$ntop" > /dev/null ||
		echo "profile: the two-VM run failed (see $log.two.h1 and .h2)" >&2
	logs+=("$log.two.h1" "$log.two.h2")
fi

names=$(cat "${logs[@]}" 2>/dev/null | grep -a '^PROFILE ' | awk '{print $2}' | sort -u)
[ -n "$names" ] || { echo "profile: no profiles in ${logs[*]}" >&2; exit 1; }
for n in $names; do
	f=$top/build/profile-$n.txt
	cat "${logs[@]}" 2>/dev/null | grep -a "^PROFILE $n " | sed "s/^PROFILE $n //" > "$f"
	echo "== $f"
	# The header, the samples by command and the ten hottest symbols.
	grep -v '^# record:' "$f" | awk '
		/^## by object/ { skip = 1 } /^## top/ { skip = 0; t = 1 } /^## callers/ { exit }
		skip || !NF { next } t && ++k > 13 { exit } { print }'
done
