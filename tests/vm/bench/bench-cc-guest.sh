#!/bin/bash
# `make bench`, one VM: the dumbbell of dumbbell.bash (senders through a
# 40 Mb/s htb bottleneck whose red marks ECN, to one receiver), two flows
# and then four, every flow starting at once: sroce with the senders'
# reaction point on and off (cc_rp) and DCQCN's timers set for the link
# (dumbbell.bash's dcqcn_timers), sroce with every cc_* parameter at its
# default ("dflt"), and TCP (cubic with ECN, iperf3). Arguments:
#   bench-cc-guest.sh [RUNS [SENDS2 [SENDS4]]]   (3, 400, 300)
# SENDS2 and SENDS4: the 64 KiB SENDs of each flow with two and four
# flows. Prints, per run,
#   BENCH <cc> cc_<F>flows_<figure> <value> <unit>   or   ... n/a <why>
# with cc "on", "off", "dflt" or "tcp", F 2 or 4 and figure jain (Jain's index of the
# flows' rates) and util (the bottleneck's utilisation, resends and all)
# over the window in which every flow ran (dumbbell.bash's common);
# goodput (the SENDs' bytes over the run, from the first flow's start to
# the last one's end, as a share of the bottleneck's rate), qmax and qmean
# (red's queue, largest and mean while every flow ran, KB) and drops
# (packets red dropped).
RUNS=${1:-3}
N2=${2:-400}
N4=${3:-300}

# shellcheck source=tests/vm/lib/roce.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/roce.sh"
# dumbbell.bash's diagnostics, outside a TAP suite.
diag() {
	printf '# %s\n' "$*"
}
# shellcheck source=tests/vm/lib/dumbbell.bash
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/dumbbell.bash"

# measure CC F SPEC...: one run of flows SPEC... (dumbbell.bash's flows)
# and its figures, as BENCH lines for cc CC with F flows.
measure() {
	local cc=$1 f=$2 dt jain util rates q qm i n=0 from=1e30 to=0 gp ids=()
	local -a red
	shift 2
	for i in "$@"; do
		ids+=("${i%%:*}")
		n=$((n + ${i##*:}))
	done
	if ! flows "$@"; then
		for i in jain util goodput qmax qmean drops; do
			echo "BENCH $cc cc_${f}flows_$i n/a the bottleneck was not set up"
		done
		return
	fi
	figures "${ids[@]}"
	diag "cc $cc, $f flows: ${dt} s together, Mb/s$rates"
	# A flow that failed (seen without congestion control, four flows
	# through a queue at its limit) leaves its rate out, not its queue.
	if [ -n "$fail" ]; then
		for i in jain util goodput; do
			echo "BENCH $cc cc_${f}flows_$i n/a failed:$fail"
		done
	elif [ "$(ge "$dt" 2)" = 1 ]; then
		echo "BENCH $cc cc_${f}flows_jain $jain idx"
		echo "BENCH $cc cc_${f}flows_util $util of_link"
	else
		echo "BENCH $cc cc_${f}flows_jain n/a ran together ${dt} s only"
		echo "BENCH $cc cc_${f}flows_util n/a ran together ${dt} s only"
	fi
	for i in "${ids[@]}"; do
		from=$(awk -v x="$from" -v y="${start[$i]}" 'BEGIN { print (y < x) ? y : x }')
		to=$(awk -v x="$to" -v y="${end[$i]}" 'BEGIN { print (y > x) ? y : x }')
	done
	gp=$(awk -v b=$((n * 65536)) -v a="$from" -v z="$to" -v r=$RATE \
		'BEGIN { if (z > a) printf "%.3f", b * 8 / (z - a) / 1e6 / r }')
	if [ -n "$fail" ]; then
		:
	elif [ -n "$gp" ]; then
		echo "BENCH $cc cc_${f}flows_goodput $gp of_link"
	else
		echo "BENCH $cc cc_${f}flows_goodput n/a no start or end seen"
	fi
	echo "BENCH $cc cc_${f}flows_qmax $((q / 1000)) KB"
	echo "BENCH $cc cc_${f}flows_qmean $((qm / 1000)) KB"
	echo "BENCH $cc cc_${f}flows_drops ${red[4]} pkts"
}

modprobe sroce || exit 2
net_setup >/dev/null || exit 2
pings >/dev/null || exit 2
devices || exit 2
gids || exit 2
# Every device's cc_* parameters as the module set them.
declare -A dflt
for f in "$sr"/sroce0/cc_*; do
	dflt[${f##*/}]=$(cat "$f") || exit 2
done
defaults() {
	local k i
	for k in "${!dflt[@]}"; do
		for i in 0 1 2 3 4; do
			echo "${dflt[$k]}" > "$sr/sroce$i/$k" || return 1
		done
	done
}
for _ in $(seq "$RUNS"); do
	for cc in on off dflt tcp; do
		defaults || exit 2
		FLOWS_TCP=
		case $cc in
		on|off)
			dcqcn_timers || exit 2
			if [ $cc = on ]; then sender_cc rp 1; else sender_cc rp 0; fi
			sender_cc line_rate_mbps $LINE2
			;;
		tcp)	FLOWS_TCP=1 ;;
		esac
		measure $cc 2 1:0:"$N2" 2:0:"$N2"
		[ $cc = on ] || [ $cc = off ] && sender_cc line_rate_mbps $LINE4
		measure $cc 4 1:0:"$N4" 2:0:"$N4" 3:0:"$N4" 4:0:"$N4"
	done
done
FLOWS_TCP=
defaults
devices_del
rmmod sroce
