#!/bin/bash
# `make bench`, two VMs joined by a point-to-point link: TCP (iperf3),
# rdma_rxe and sroce on the same link in the same boots, under several
# link settings. Arguments:
#   bench-loss-guest.sh [ITERS [RUNS [TCP_SECONDS [CASES [EXTRAS]]]]]
# (300, 3, 5, "loss0 loss0.1 loss1 mtu9000 rtt20 rtt20_loss0.1", 1).
# ITERS 64 KiB RDMA WRITEs per ib_write_bw run; RUNS rounds, each one
# every case for rxe, sroce and TCP (rxe and sroce one after the other:
# they cannot share UDP 4791). A case is a link setting, its name words
# joined by "_": lossL (tc netem loss L% on both hosts' eth0), mtuM
# (eth0's MTU M on both hosts, 1500 otherwise) and rttR (netem delay
# R/2 ms on both hosts, so R ms round trip). Host 1 serves, host 2 is
# the client (it sends, as the write_bw client does) and prints
#   BENCH <impl> <test> <value> <unit>   or   BENCH <impl> <test> n/a <why>
# with impl rxe, sroce or tcp and test write_bw_64k_<case> or
# tcp_<case>, or impl sroce-rxe (sroce sends to rdma_rxe) or rxe-sroce:
# interop on the same link, one stack on each host, for the cases that
# set only loss (EXTRAS 1). With EXTRAS 1 too, for the TCP run of case
# loss0 and for an ib_write_bw of 400 x 64 KiB per TCP second on each
# RDMA device on the clean link, host 2 prints what it cost both hosts'
# kernels (host 1 sends its CPU time over TCP):
#   BENCH <impl> cpu_gib <kernel CPU seconds per GiB moved> s/GiB
# and, on the clean link, an ib_send_bw of ITERS x 64 KiB whose two
# processes sleep for their completions (sleeping()):
#   BENCH <impl> send_bw_64k_events <MB/s> MB/s
# A one-host run cannot measure this: rdma_rxe loops traffic to a local
# address back inside itself, where netem never sees it.
N=${1:-300}
RUNS=${2:-3}
SECS=${3:-5}
CASES=${4:-loss0 loss0.1 loss1 mtu9000 rtt20 rtt20_loss0.1}
EXTRAS=${5:-1}
port=21000

# shellcheck source=tests/vm/lib/roce.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/roce.sh"

for _ in $(seq 60); do ping -c 1 -W 1 "$SROCE_PEER_IP4" >/dev/null 2>&1 && break; done

# Under netem on both links a virtio-net once stopped transmitting for
# good (VM-NOTES). Both hosts check the link before every figure and stop
# together with that diagnosis instead of waiting out one timeout per
# figure. 15 tries: at 1% loss each way a healthy link never fails them.
link_ok() {
	local i
	for i in $(seq 15); do
		ping -c 1 -W 1 "$SROCE_PEER_IP4" >/dev/null 2>&1 && return 0
	done
	echo "BENCH-LINK dead before $1 (host $SROCE_HOST): no ping reply from $SROCE_PEER_IP4 in 15 tries"
	ip -s link show eth0
	tc -s qdisc show dev eth0
	dmesg | tail -n 20
	exit 3
}

# link_set CASE: this host's eth0 as CASE says (the MTU, then netem's
# delay and loss on egress); checks tc's status, since a missing
# sch_netem would quietly leave the link clean. The queue holds 10000
# packets: the delay line is a long path, not a shallow switch.
link_set() {
	local w mtu=1500 args=()
	for w in ${1//_/ }; do
		case $w in
		loss0) ;;
		loss*) args+=(loss "${w#loss}%") ;;
		mtu*) mtu=${w#mtu} ;;
		rtt*) args+=(delay "$(awk -v r="${w#rtt}" 'BEGIN { print r / 2 }')ms") ;;
		*)
			echo "BENCH-LINK unknown case word $w"
			exit 4
			;;
		esac
	done
	tc qdisc del dev eth0 root 2>/dev/null
	ip link set eth0 mtu "$mtu" || {
		echo "BENCH-LINK MTU $mtu on eth0 failed"
		exit 4
	}
	[ ${#args[@]} = 0 ] && return 0
	tc qdisc add dev eth0 root netem limit 10000 "${args[@]}" || {
		echo "BENCH-LINK tc netem ${args[*]} failed"
		exit 4
	}
}

# report IMPL TEST UNIT OUT VALUE
report() {
	if [ -n "$5" ]; then
		echo "BENCH $1 $2 $5 $3"
	else
		echo "BENCH $1 $2 n/a $(tail -n 1 <<< "$4" | tr -s ' ' | cut -c1-60)"
	fi
}

# cpu_busy: the kernel CPU time this host has spent so far (system, irq
# and softirq: the transports' own work; user time is the benchmark
# programs', and perftest busy-polls its CQ), in /proc/stat's USER_HZ
# ticks: 100 a second on x86, whatever the kernel's HZ.
cpu_busy() {
	awk '/^cpu / { print $4 + $7 + $8 }' /proc/stat
}

# cpu_per_gib IMPL TICKS BYTES: host 1 sends host 2 its kernel ticks of
# the run that just ended (TICKS there; over TCP port+1000), and host 2,
# which knows the BYTES that arrived, prints what they cost both hosts:
#   BENCH <impl> cpu_gib <kernel CPU seconds per GiB> s/GiB
cpu_per_gib() {
	local peer=""
	if [ "$SROCE_HOST" = 1 ]; then
		echo "$2" | timeout 60 nc -l -p $((port + 1000)) >/dev/null 2>&1
		return 0
	fi
	for _ in $(seq 30); do
		peer=$(nc -w 2 "$SROCE_PEER_IP4" $((port + 1000)) </dev/null 2>/dev/null) &&
			[ -n "$peer" ] && break
		sleep 1
	done
	awk -v t="$2" -v p="$peer" -v b="$3" -v tag="BENCH $1 cpu_gib" '
		BEGIN { if (b > 0 && p ~ /^[0-9]+$/) printf "%s %.2f s/GiB\n", tag, (t + p) / 100 / (b / 1073741824)
			else if (b > 0) printf "%s n/a host 1 sent no CPU figure\n", tag
			else printf "%s n/a nothing moved\n", tag }'
}

# rdma_cpu IMPL DEV: 64 KiB ib_write_bw on the clean link (case loss0
# has set it up), 400 writes (25 MiB) per TCP second, so its setup is a
# small part of the time, and what the bytes it moved cost each host.
rdma_cpu() {
	local impl=$1 dev=$2 gid out c0 n=$((SECS * 400))
	gid=$(gid_index "$dev" "$SROCE_IP4")
	link_ok "$impl cpu"
	port=$((port + 1))
	c0=$(cpu_busy)
	if [ "$SROCE_HOST" = 1 ]; then
		timeout 300 ib_write_bw -d "$dev" -x "$gid" -F -s 65536 -n "$n" \
			-p "$port" >/dev/null 2>&1
		cpu_per_gib "$impl" $(($(cpu_busy) - c0))
		return
	fi
	for _ in $(seq 60); do
		c0=$(cpu_busy)
		out=$(timeout 300 ib_write_bw -d "$dev" -x "$gid" -F -s 65536 -n "$n" \
			-p "$port" "$SROCE_PEER_IP4" 2>&1) && break
		sleep 1
	done
	if ! grep -qE '^ *[0-9]+ +[0-9]+ ' <<< "$out"; then
		report "$impl" cpu_gib s/GiB "$out" ""
		return
	fi
	cpu_per_gib "$impl" $(($(cpu_busy) - c0)) $((n * 65536))
}

# bw IMPL DEV TEST TOOL [OPTION...]: one 64 KiB perftest TOOL run (host
# 1 serves, host 2 sends) on the link as it is, reported as TEST in MB/s.
bw() {
	local impl=$1 dev=$2 test=$3 tool=$4 gid out v
	shift 4
	gid=$(gid_index "$dev" "$SROCE_IP4")
	link_ok "$impl $test"
	port=$((port + 1))
	if [ "$SROCE_HOST" = 1 ]; then
		timeout 240 "$tool" -d "$dev" -x "$gid" -F "$@" -s 65536 -n "$N" \
			-p "$port" >/dev/null 2>&1
		return
	fi
	for _ in $(seq 60); do
		out=$(timeout 240 "$tool" -d "$dev" -x "$gid" -F "$@" -s 65536 -n "$N" \
			-p "$port" "$SROCE_PEER_IP4" 2>&1) && break
		sleep 1
	done
	v=$(awk '/^ *[0-9]+ +[0-9]+ / { v = $4 } END { print v }' <<< "$out")
	report "$impl" "$test" MB/s "$out" "$v"
}

# goodput IMPL DEV CASE: one 64 KiB ib_write_bw run on the link CASE
# has set up (link_set).
goodput() {
	bw "$1" "$2" "write_bw_64k_$3" ib_write_bw
	[ "$SROCE_HOST" = 1 ] && return
	# The counters so far, for reading a figure (not part of the table).
	echo "# $1 $3: $(rdma statistic show link "$2/1" | tr ' ' '\n' | paste -sd' ')"
}

# sleeping IMPL DEV: 64 KiB ib_send_bw with completion events (-e) on
# the clean link: both processes sleep until a completion comes, as
# iperf3 sleeps in send() and recv(), where ib_write_bw busy-polls its
# CQ on the sender's only vCPU (perftest refuses -e for WRITE).
sleeping() {
	bw "$1" "$2" send_bw_64k_events ib_send_bw -e
}

# rx_bytes OUT: the bytes iperf3's receiver line says arrived (its
# transfer column scales its unit to the amount, whatever -f says).
rx_bytes() {
	awk 'BEGIN { u["Bytes"] = 1; u["KBytes"] = 1024; u["MBytes"] = 1048576; u["GBytes"] = 1073741824 }
		/receiver/ { for (i = 2; i <= NF; i++) if ($i in u) b = $(i - 1) * u[$i] }
		END { printf "%.0f\n", b }' <<< "$1"
}

# tcp CASE: iperf3 from host 2 to host 1 for SECS seconds on the link
# CASE has set up; the figure is the receiver's goodput; for loss0, what
# it cost each host.
tcp() {
	local case=$1 out v c0
	link_ok "tcp $case"
	port=$((port + 1))
	c0=$(cpu_busy)
	if [ "$SROCE_HOST" = 1 ]; then
		out=$(timeout $((SECS + 60)) iperf3 -s -1 -p "$port" -f M 2>&1)
		[ "$case" != loss0 ] || [ "$EXTRAS" != 1 ] || cpu_per_gib tcp $(($(cpu_busy) - c0))
		return
	fi
	for _ in $(seq 60); do
		c0=$(cpu_busy)
		out=$(timeout $((SECS + 30)) iperf3 -c "$SROCE_PEER_IP4" -p "$port" -t "$SECS" \
			-f M 2>&1) && break
		sleep 1
	done
	v=$(awk '/receiver/ { for (i = 2; i <= NF; i++) if ($i == "MBytes/sec") v = $(i - 1) }
		END { print v }' <<< "$out")
	report tcp "tcp_$case" MB/s "$out" "$v"
	[ "$case" != loss0 ] || [ "$EXTRAS" != 1 ] ||
		cpu_per_gib tcp $(($(cpu_busy) - c0)) "$(rx_bytes "$out")"
}

# Each case: rxe, sroce, interop (loss only) and TCP; the link is set
# once, before any stack comes up, so each sees the MTU it runs at.
for r in $(seq "$RUNS"); do
	[ "$SROCE_HOST" = 2 ] && echo "# round $r of $RUNS, $N iterations, TCP ${SECS}s ($(date +%T))"
	for c in $CASES; do
		link_set "$c"
		stack_up rxe
		goodput rxe rxe0 "$c"
		[ "$c" != loss0 ] || [ "$EXTRAS" != 1 ] || rdma_cpu rxe rxe0
		[ "$c" != loss0 ] || [ "$EXTRAS" != 1 ] || sleeping rxe rxe0
		stack_down rxe

		stack_up sroce sr
		goodput sroce sroce0 "$c"
		[ "$c" != loss0 ] || [ "$EXTRAS" != 1 ] || rdma_cpu sroce sroce0
		[ "$c" != loss0 ] || [ "$EXTRAS" != 1 ] || sleeping sroce sroce0
		stack_down sroce

		# Interop: host 2 (the sender) runs one stack, host 1 the other.
		pairs=()
		[[ $EXTRAS != 1 || ! $c =~ ^loss[0-9.]+$ ]] || pairs=("sroce rxe" "rxe sroce")
		for pair in "${pairs[@]}"; do
			if [ "$SROCE_HOST" = 2 ]; then mine=${pair% *}; else mine=${pair#* }; fi
			stack_up "$mine"
			goodput "${pair% *}-${pair#* }" "${mine}0" "$c"
			stack_down "$mine"
		done

		tcp "$c"
	done
done
link_set loss0
exit 0
