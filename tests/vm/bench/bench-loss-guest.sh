#!/bin/bash
# `make bench`, two VMs joined by a point-to-point link: TCP (iperf3),
# rdma_rxe and sroce on the same link in the same boots, clean and with
# tc netem loss on both links (0.1% and 1%). Arguments:
#   bench-loss-guest.sh [ITERS [RUNS [TCP_SECONDS]]]   (300, 3, 5)
# ITERS 64 KiB RDMA WRITEs per ib_write_bw run; RUNS rounds, each one
# rxe, sroce and TCP at every loss level (rxe and sroce one after the
# other: they cannot share UDP 4791). Host 1 serves, host 2 is the client
# (it sends, as the write_bw client does) and prints
#   BENCH <impl> <test> <value> <unit>   or   BENCH <impl> <test> n/a <why>
# with impl rxe, sroce or tcp and test write_bw_64k_lossL or tcp_lossL,
# or impl sroce-rxe (sroce sends to rdma_rxe) or rxe-sroce: interop on
# the same link, one stack on each host. For the clean TCP figure and
# for an ib_write_bw of 400 x 64 KiB per TCP second on each RDMA device
# on the clean link, host 2 prints what it cost both hosts' kernels
# (host 1 sends its CPU time over TCP):
#   BENCH <impl> cpu_gib <kernel CPU seconds per GiB moved> s/GiB
# A one-host run cannot measure this: rdma_rxe loops traffic to a local
# address back inside itself, where netem never sees it.
N=${1:-300}
RUNS=${2:-3}
SECS=${3:-5}
LOSSES="0 0.1 1"
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

# netem LOSS: the loss on this host's egress; checks tc's status, since a
# missing sch_netem would quietly leave the link clean.
netem() {
	tc qdisc del dev eth0 root 2>/dev/null
	[ "$1" = 0 ] && return 0
	tc qdisc add dev eth0 root netem loss "$1%" || {
		echo "BENCH-LINK tc netem loss $1% failed"
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

# rdma_cpu IMPL DEV: 64 KiB ib_write_bw on the clean link, 400 writes
# (25 MiB) per TCP second, so its setup is a small part of the time, and
# what the bytes it moved cost each host.
rdma_cpu() {
	local impl=$1 dev=$2 gid out c0 n=$((SECS * 400))
	gid=$(gid_index "$dev" "$SROCE_IP4")
	link_ok "$impl cpu"
	netem 0
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

# goodput IMPL DEV LOSS: one 64 KiB ib_write_bw run.
goodput() {
	local impl=$1 dev=$2 loss=$3 gid out v
	gid=$(gid_index "$dev" "$SROCE_IP4")
	link_ok "$impl loss $loss"
	netem "$loss"
	port=$((port + 1))
	if [ "$SROCE_HOST" = 1 ]; then
		timeout 240 ib_write_bw -d "$dev" -x "$gid" -F -s 65536 -n "$N" -p "$port" >/dev/null 2>&1
		return
	fi
	for _ in $(seq 60); do
		out=$(timeout 240 ib_write_bw -d "$dev" -x "$gid" -F -s 65536 -n "$N" \
			-p "$port" "$SROCE_PEER_IP4" 2>&1) && break
		sleep 1
	done
	v=$(awk '/^ *[0-9]+ +[0-9]+ / { v = $4 } END { print v }' <<< "$out")
	report "$impl" "write_bw_64k_loss$loss" MB/s "$out" "$v"
	# The counters so far, for reading a figure (not part of the table).
	echo "# $impl loss $loss: $(rdma statistic show link "$dev/1" | tr ' ' '\n' | paste -sd' ')"
}

# rx_bytes OUT: the bytes iperf3's receiver line says arrived (its
# transfer column scales its unit to the amount, whatever -f says).
rx_bytes() {
	awk 'BEGIN { u["Bytes"] = 1; u["KBytes"] = 1024; u["MBytes"] = 1048576; u["GBytes"] = 1073741824 }
		/receiver/ { for (i = 2; i <= NF; i++) if ($i in u) b = $(i - 1) * u[$i] }
		END { printf "%.0f\n", b }' <<< "$1"
}

# tcp LOSS: iperf3 from host 2 to host 1 for SECS seconds; the figure is
# the receiver's goodput; on the clean link, what it cost each host.
tcp() {
	local loss=$1 out v c0
	link_ok "tcp loss $loss"
	netem "$loss"
	port=$((port + 1))
	c0=$(cpu_busy)
	if [ "$SROCE_HOST" = 1 ]; then
		out=$(timeout $((SECS + 60)) iperf3 -s -1 -p "$port" -f M 2>&1)
		[ "$loss" != 0 ] || cpu_per_gib tcp $(($(cpu_busy) - c0))
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
	report tcp "tcp_loss$loss" MB/s "$out" "$v"
	[ "$loss" != 0 ] || cpu_per_gib tcp $(($(cpu_busy) - c0)) "$(rx_bytes "$out")"
}

for r in $(seq "$RUNS"); do
	[ "$SROCE_HOST" = 2 ] && echo "# round $r of $RUNS, $N iterations, TCP ${SECS}s ($(date +%T))"
	stack_up rxe
	for l in $LOSSES; do goodput rxe rxe0 "$l"; done
	rdma_cpu rxe rxe0
	stack_down rxe

	stack_up sroce sr
	for l in $LOSSES; do goodput sroce sroce0 "$l"; done
	rdma_cpu sroce sroce0
	stack_down sroce

	# Interop: host 2 (the sender) runs one stack, host 1 the other.
	for pair in "sroce rxe" "rxe sroce"; do
		if [ "$SROCE_HOST" = 2 ]; then mine=${pair% *}; else mine=${pair#* }; fi
		stack_up "$mine"
		for l in $LOSSES; do goodput "${pair% *}-${pair#* }" "${mine}0" "$l"; done
		stack_down "$mine"
	done

	for l in $LOSSES; do tcp "$l"; done
done
tc qdisc del dev eth0 root 2>/dev/null
exit 0
