#!/bin/bash
# rc-sroce.sh: the RC and UC conformance test (rc_ops) on sroce, one
# device, two QPs over its own address (the packets loop back inside
# sroce), then thread and parent domains (td_test), the WR API (wr_api),
# extended CQs (cq_ex_test) and ibv_uc_pingpong; every check must pass:
# sroce keeps the IBTA spec where rxe does not
# (Documentation/rxe-differences.rst). What sroce has not built yet
# (memory windows) is a TODO "not built", never a pass.
#   scripts/vm-run.sh tests/vm/suites/rc-sroce.sh [-t GLOB]...
# (arguments go to rc_ops: -t runs only the checks whose ID matches)
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"

dev=sroce0
ND=${SROCE_NETDEV:-eth0}

sroce_up -g "$dev" "$ND" "$SROCE_IP4"
gid=${up_gids[0]}

# The conformance checks run with early resends on, as by default
# (sroce-cc.rst): err-retry-measured needs them.
is "$(cat /sys/class/infiniband/$dev/cc_early_rexmit)" 1 "early resends on (cc_early_rexmit 1)"
tap_merge rc_ops timeout 600 /usr/libexec/sroce/rc_ops "$@" "$dev" "${gid:-0}"
# Thread and parent domains (libsroce's; rdma_rxe's provider has none).
tap_merge td_test timeout 120 /usr/libexec/sroce/td_test "$dev" "${gid:-0}"
# The extended QP verbs: every builder of ibv_wr_post(3), RC and UC.
tap_merge wr_api timeout 120 /usr/libexec/sroce/wr_api "$dev" "${gid:-0}"
# Extended CQs, completion timestamps and the device clock.
tap_merge cq_ex_test timeout 120 /usr/libexec/sroce/cq_ex_test "$dev" "${gid:-0}"
# rdma-core's UC ping-pong, data checked (-c), polled and with events.
for ev in "" -e; do
	pingpong_local "ibv_uc_pingpong -s 4096 $ev" \
		ibv_uc_pingpong -d "$dev" -g "${gid:-0}" -s 4096 -n 200 -c $ev
done
rdma statistic show link "$dev/1" | tr ' ' '\n' | paste -sd' ' | sed 's/^/# /'

# The NIC model, visible (Documentation/sroce-observe.rst): its counters,
# a live QP's debugfs file and the tracepoints.
stat=$(rdma statistic show link "$dev/1" | tr ' ' '\n')
counter() { grep -A1 -x "$1" <<<"$stat" | sed -n 2p; }
for c in dispatches passes budget_exhausted pass_limit section_budget_out \
	worker_handoffs stream_handoffs runlist_handoffs window_full rnr_stalls \
	fifo_hwm; do
	ok "$([ -n "$(counter $c)" ] && echo 1 || echo 0)" "counter $c in rdma statistic ($(counter $c))"
done
ok "$([ "$(counter dispatches)" -gt 0 ] && [ "$(counter passes)" -ge "$(counter dispatches)" ] && echo 1 || echo 0)" \
	"rc_ops made dispatches ($(counter dispatches)) and as many passes or more ($(counter passes))"
ok "$([ "$(counter fifo_hwm)" -gt 0 ] && echo 1 || echo 0)" "a receive FIFO held packets (fifo_hwm $(counter fifo_hwm))"

tr=/sys/kernel/tracing
[ -d $tr/events ] || mount -t tracefs nodev $tr 2>/dev/null
[ -d $tr/events ] || tr=/sys/kernel/debug/tracing
ok "$([ -d $tr/events/sroce ] && echo 1 || echo 0)" "tracefs lists the sroce events ($tr)"
echo 0 > $tr/tracing_on 2>/dev/null
echo > $tr/trace 2>/dev/null
echo 1 > $tr/events/sroce/enable 2>/dev/null
echo 1 > $tr/tracing_on 2>/dev/null

# rc_peer's server has its QP before it waits for the client.
dbg=/sys/kernel/debug/sroce/$dev
timeout 120 /usr/libexec/sroce/rc_peer -d "$dev" -g "${gid:-0}" -p 18600 -s 4096 -n 2 \
	>/tmp/rc_peer.log 2>&1 &
srv=$!
for _ in $(seq 300); do
	[ -n "$(find $dbg -name 'qp*' 2>/dev/null)" ] && break
	sleep 0.2
done
qpf=$(find $dbg -name 'qp*' 2>/dev/null | head -1)
ok "$([ -n "$qpf" ] && echo 1 || echo 0)" "a live QP has its debugfs file (${qpf:-none})"
is "$(sed -n 's/^state\t//p' "${qpf:-/dev/null}" 2>/dev/null)" "RESET" "its file shows the QP's state"
diag "$(cat "${qpf:-/dev/null}" 2>/dev/null)"
run_ok "rc_peer on $dev (client)" connect_retry timeout 60 /usr/libexec/sroce/rc_peer \
	-d "$dev" -g "${gid:-0}" -p 18600 -s 4096 -n 2 "$SROCE_IP4"
wait $srv
ok "$(($? == 0))" "rc_peer on $dev (server)" || diag "$(tail -3 /tmp/rc_peer.log)"
ok "$([ -n "$qpf" ] && [ ! -e "$qpf" ] && echo 1 || echo 0)" "the file went with its QP"
# The engines' workers run ahead of processes, and root may say otherwise
# (sroce-datapath.rst, The scheduler).
wqn=/sys/devices/virtual/workqueue/sroce/nice
is "$(cat $wqn 2>/dev/null)" "-20" "the engines' workqueue runs at nice -20"
run_ok "root sets its nice to 0" sh -c "echo 0 > $wqn"
is "$(cat $wqn 2>/dev/null)" "0" "its nice reads 0"
run_ok "and back to -20" sh -c "echo -20 > $wqn"
echo 0 > $tr/events/sroce/enable 2>/dev/null
for e in sroce_post_send sroce_post_recv sroce_xmit sroce_recv sroce_complete; do
	n=$(grep -c " $e: " $tr/trace 2>/dev/null)
	ok "$([ "${n:-0}" -gt 0 ] && echo 1 || echo 0)" "the trace holds $e lines (${n:-0})"
done
grep " sroce_" $tr/trace 2>/dev/null | head -8 | sed 's/^/# /'
echo > $tr/trace 2>/dev/null

# A 1 MiB transfer both ways between two processes on $dev, its data
# checked by rc_peer, with the value of counter $2 the same after it as
# before (nothing dropped for that reason). $1 names the case.
rc_peer_pair() {
	local what=$1 cnt=$2 before after srv
	before=$(rdma statistic show link "$dev/1" | tr ' ' '\n' | grep -A1 -x "$cnt" | sed -n 2p)
	timeout 120 /usr/libexec/sroce/rc_peer -d "$dev" -g "${gid:-0}" -p 18601 -s 1048576 -n 2 \
		>/tmp/rc_peer.log 2>&1 &
	srv=$!
	sleep 0.5
	run_ok "rc_peer 1 MiB, $what (client)" connect_retry timeout 60 \
		/usr/libexec/sroce/rc_peer -d "$dev" -g "${gid:-0}" -p 18601 -s 1048576 -n 2 "$SROCE_IP4"
	wait $srv
	ok "$(($? == 0))" "rc_peer 1 MiB, $what (server)" || diag "$(tail -3 /tmp/rc_peer.log)"
	after=$(rdma statistic show link "$dev/1" | tr ' ' '\n' | grep -A1 -x "$cnt" | sed -n 2p)
	is "${after:-x}" "${before:-y}" "nothing counted in $cnt ($what)"
}

# Between QPs of one host the ICRC is left out unless local_icrc is set
# (sroce_tx.c); with it set, every packet's ICRC is computed and checked,
# and a wrong one would be dropped (rx_drop_icrc) and fail the transfer.
prm=/sys/module/sroce/parameters/local_icrc
is "$(cat $prm 2>/dev/null)" "N" "local_icrc is off by default"
for v in 1 0; do
	echo $v > $prm
	rc_peer_pair "local_icrc=$v" rx_drop_icrc
done

# Packet buffers come from a page pool per CPU; a CPU whose pool is empty
# and cannot grow takes them from the page fragment cache instead
# (sroce_tx.c). fault_tx_nopool sends every packet down that path: the
# transfer must pass with nothing dropped for memory (tx_drop_nomem).
nopool=/sys/kernel/debug/sroce/$dev/fault_tx_nopool
run_ok "fault injection: fault_tx_nopool 1" sh -c "echo 1 > $nopool"
rc_peer_pair "fault_tx_nopool=1" tx_drop_nomem
run_ok "fault_tx_nopool back to 0" sh -c "echo 0 > $nopool"

run_ok "rdma link delete $dev" rdma link delete "$dev"
run_ok "rmmod sroce" rmmod sroce
done_testing
