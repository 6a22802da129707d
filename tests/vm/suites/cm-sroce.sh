#!/bin/bash
# cm-sroce.sh: UD queue pairs, address handles, the GSI QP (QP1) and the
# RDMA CM on one sroce device, its QPs talking to its own addresses (the
# packets loop back inside sroce): ud_ops, then the programs rdma-core,
# librdmacm and perftest ship, over IPv4 and IPv6, with their data checked
# where the program can check it.
#   scripts/vm-run.sh tests/vm/suites/cm-sroce.sh
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"

dev=sroce0
ND=${SROCE_NETDEV:-eth0}
IP4=$SROCE_IP4
IP6=$SROCE_IP6
P=/usr/libexec/sroce

sroce_up -g "$dev" "$ND" "$IP4" "$IP6"
gid4=${up_gids[0]} gid6=${up_gids[1]}

# The MAD layer opened the port: its GSI QP is QP1, in RTS.
ok "rdma res show qp link $dev/1 | grep -q 'lqpn 1 type GSI state RTS'" \
	"the MAD layer's QP1 is up (GSI, RTS)" || diag "$(rdma res show qp)"
ok "! dmesg | grep -q 'ib_mad QP1\|open port'" "no MAD layer errors in dmesg"

# What ibv_devinfo -v advertises is what works; what is not built is 0.
info=$(ibv_devinfo -v -d "$dev")
devinfo() { awk -v k="$1:" '$1 == k { print $2; exit }' <<<"$info"; }
is "$(devinfo max_ah) $(devinfo max_srq) $(devinfo max_srq_wr)" "65536 16384 16384" \
	"ibv_devinfo: max_ah, max_srq, max_srq_wr"
is "$(devinfo max_mw)" "16777215" "ibv_devinfo: max_mw, the key table's slots"
is "$(devinfo max_mcast_grp) $(devinfo max_mcast_qp_attach) $(devinfo max_ee)" \
	"8192 56 0" "ibv_devinfo: multicast groups and QPs per group; no EE contexts"

# UD and AHs through the verbs, every error case; an AH to an address
# without a route must fail.
ip route add unreachable 198.51.100.0/24
tap_merge "ud_ops IPv4" timeout 300 $P/ud_ops "$dev" "${gid4:-0}" 198.51.100.1
tap_merge "ud_ops IPv6" timeout 300 $P/ud_ops "$dev" "${gid6:-0}"
ip route del unreachable 198.51.100.0/24

# Multicast: attach, detach, delivery to every QP attached, IPv4 and IPv6.
tap_merge "mcast_ops IPv4" timeout 120 $P/mcast_ops "$dev" "${gid4:-0}"
tap_merge "mcast_ops IPv6" timeout 120 $P/mcast_ops "$dev" "${gid6:-0}"

# librdmacm's mckey: the RDMA CM joins the group (librdmacm attaches the
# QP), a receiver waits for 20 datagrams from a sender on this host. The
# sender sleeps 3 s after its join before it sends; the receiver is
# started first and seen joined on the netdev before the sender starts.
mckey_local() {
	local name=$1 group=$2 bind=$3 rpid st
	timeout 60 mckey -m "$group" -b "$bind" -C 20 -S 1000 >/tmp/mckey.log 2>&1 &
	rpid=$!
	for _ in $(seq 100); do
		ip maddr show dev "$ND" | grep -qw "$group" && break
		sleep 0.1
	done
	run_ok "$name (sender)" timeout 60 mckey -m "$group" -b "$bind" -s -C 20 -S 1000
	wait $rpid
	st=$?
	ok "$((st == 0))" "$name (receiver, 20 datagrams)" || diag "$(tail -5 /tmp/mckey.log)"
}
# IPv4 only: the RDMA CM refuses IPv6 groups on RoCE v2 (ENOTSUPP, in
# cma_iboe_join_multicast(), for every device); mcast_ops covers IPv6.
mckey_local "mckey 239.1.2.3" 239.1.2.3 "$IP4"
is "$(ip maddr show dev "$ND" | grep -cw '239.1.2.3')" 0 \
	"the group is left with its last member"

# rdma-core's UD ping-pong, data checked (-c), polled and with events.
for g in "$gid4" "$gid6"; do
	for ev in "" -e; do
		pingpong_local "ibv_ud_pingpong -g $g $ev" \
			ibv_ud_pingpong -d "$dev" -g "${g:-0}" -s 1024 -n 200 -c $ev
	done
done

# The RDMA CM: RC and UD connections through QP1, the way applications
# and kernel ULPs make them. rping -V checks the data it reads and writes.
for a in "$IP4" "$IP6"; do
	srv=0.0.0.0
	[[ $a == *:* ]] && srv=::0
	cm_pair "rping -V $a" 7174 "rping -s -a $srv -p 7174 -C 50 -S 1000 -V" \
		"rping -c -a $a -p 7174 -C 50 -S 1000 -V"
	cm_pair "ucmatose 4 connections $a" 7471 "ucmatose -b $a -p 7471 -c 4 -C 50" \
		"ucmatose -s $a -p 7471 -c 4 -C 50"
	# udaddy has no port option (its -p is the port space): 7174.
	cm_pair "udaddy 4 connections $a" 7174 "udaddy -b $a -c 4 -C 50" \
		"udaddy -s $a -c 4 -C 50"
done
cm_pair "rdma_server/rdma_client" 7473 "rdma_server -p 7473" "rdma_client -s $IP4 -p 7473"
cm_pair "rstream 64 KiB" 7474 "rstream -p 7474 -S 65536 -C 200" \
	"rstream -s $IP4 -p 7474 -S 65536 -C 200"
cm_pair "riostream 64 KiB" 7475 "riostream -p 7475 -S 65536 -C 200" \
	"riostream -s $IP4 -p 7475 -S 65536 -C 200"

# perftest connecting through the RDMA CM (-R). -F: under emulation the
# CPU clock looks unsteady, which perftest otherwise takes for an error.
port=18600
for t in "ib_send_bw" "ib_write_bw" "ib_read_bw" "ib_send_lat" "ib_send_bw -c UD"; do
	port=$((port + 1))
	cm_pair "$t -R" $port "$t -d $dev -R -F -p $port -n 200" \
		"$t -d $dev -R -F -p $port -n 200 $IP4"
done

# Everything went with its process: no CM ids and no QPs but QP1 left.
is "$(rdma res show cm_id 2>/dev/null | grep -c .)" "0" "no RDMA CM ids left"
is "$(rdma res show qp link "$dev/1" 2>/dev/null | grep -vc 'lqpn 1 type GSI')" "0" \
	"no QPs left but QP1"
stat=$(rdma statistic show link "$dev/1" | tr ' ' '\n')
counter() { grep -A1 -x "$1" <<<"$stat" | sed -n 2p; }
diag "$(rdma statistic show link "$dev/1")"
# What a correct peer never sends, however late it comes (QPNs are not
# reused within a run: a late packet cannot meet another QP's peer or
# transport). rx_drop_no_qp is left out: a packet in flight when its QP
# was destroyed (a process ending, an ACK resent) is legal and is dropped
# as no_qp; so is rx_drop_fifo, which counts a receive FIFO that filled
# because the engine ran late on a busy host. Both are shown in the diag.
for c in rx_drop_bad rx_drop_hdr rx_drop_icrc; do
	is "$(counter $c)" "0" "no packet dropped as $c"
done
ok "$(($(counter rx_drop_qkey) >= 2))" "rx_drop_qkey counted ud_ops' wrong Q_Keys ($(counter rx_drop_qkey))"

# QP1 goes with its device, and comes back with the next one.
run_ok "rdma link delete $dev" rdma link delete "$dev"
run_ok "rdma link add $dev again" rdma link add "$dev" type sroce netdev "$ND"
gid4=$(gid_index "$dev" "$IP4") || gid4=0
ok "rdma res show qp link $dev/1 | grep -q 'lqpn 1 type GSI state RTS'" "QP1 is back"
cm_pair "rping after re-adding the device" 7174 "rping -s -a 0.0.0.0 -p 7174 -C 10 -V" \
	"rping -c -a $IP4 -p 7174 -C 10 -V"

# A local user who holds every address handle userspace may create
# (15/16 of the pool): the RDMA CM, a kernel consumer, still gets the
# AHs it needs, and rping connects.
rm -f /tmp/ah_hold.in
mkfifo /tmp/ah_hold.in
$P/ah_hold "$dev" "${gid4:-0}" </tmp/ah_hold.in >/tmp/ah_hold.out 2>&1 &
ahpid=$!
exec {ahin}>/tmp/ah_hold.in
for _ in $(seq 1800); do
	grep -q '^# holding\|^not ok' /tmp/ah_hold.out && break
	sleep 0.1
done
ok "grep -q '^# holding' /tmp/ah_hold.out" \
	"a local user holds every AH it may ($(sed -n 's/^# holding //p' /tmp/ah_hold.out))" ||
	diag "$(tail -5 /tmp/ah_hold.out)"
cm_pair "rping while a user holds every AH it may" 7174 \
	"rping -s -a 0.0.0.0 -p 7174 -C 10 -V" "rping -c -a $IP4 -p 7174 -C 10 -V"
exec {ahin}>&-
wait $ahpid
st=$?
tap_merge ah_hold cat /tmp/ah_hold.out
ok "$((st == 0))" "ah_hold gave every AH back and ended well (status $st)"
run_ok "rdma link delete $dev, finally" rdma link delete "$dev"
run_ok "rmmod sroce" rmmod sroce
done_testing
