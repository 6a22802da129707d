#!/bin/bash
# The receive path's first stage: crafted RoCEv2 frames on a veth, each
# kind dropped and counted under its reason (rdma statistic), garbage
# survived; FLUSH and ATOMIC WRITE against a peer played on the veth
# (a19_wire) and through the verbs (a19_ops); selective repeat against
# such a peer (sr_wire); CNPs and CE marks from the peer and from a
# stranger (cc_wire); P_Keys on a connected QP (pkey_wire); and the UDP
# port shared with (or refused to) rdma_rxe. It runs on 6.12 too: only
# from 6.2 on may an MR grant FLUSH.
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"

inject=/usr/libexec/sroce/roce_inject
not_exists() { [ ! -e "/sys/class/infiniband/$1" ]; }
both_listed() {
	local l
	l=$(ibv_devices | awk 'NR > 2 { print $1 }')
	grep -qx rxe0 <<< "$l" && grep -qx sy <<< "$l"
}

veth_device sx
mac=$(cat /sys/class/net/va/address)

# counter NAME: the value `rdma statistic` shows for NAME on sx.
counter() {
	rdma statistic show link sx/1 |
		awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'
}
ok "$(( $(rdma statistic show link sx/1 | wc -w) > 10 ))" "rdma statistic lists the counters"

# send KIND N COUNTER: N frames of KIND raise COUNTER by N.
send() {
	local before after
	before=$(counter "$3")
	"$inject" vb "$mac" 10.99.0.2 10.99.0.1 "$1" "$2" || return 1
	for _ in $(seq 600); do
		after=$(counter "$3")
		[ $((after - before)) -ge "$2" ] && break
		sleep 0.1
	done
	[ $((after - before)) = "$2" ] || { echo "$3: $before -> $after, want +$2"; return 1; }
}

run_ok "good packets are accepted (rx_packets)" send good 10 rx_packets
run_ok "... and dropped for want of a QP (rx_drop_no_qp)" send good 10 rx_drop_no_qp
run_ok "a wrong ICRC is dropped (rx_drop_icrc)" send badicrc 10 rx_drop_icrc
run_ok "a reserved opcode is dropped (rx_drop_hdr)" send badop 10 rx_drop_hdr
run_ok "IPv4 options are dropped (rx_drop_ip)" send ipopt 10 rx_drop_ip
# Datagrams for QP1 (the MAD layer's): the wrong Q_Key or P_Key, and
# too big for a MAD, are dropped and counted; junk MADs with the right
# keys reach the MAD layer, which must survive them, and QP1 with it.
run_ok "QP1: a wrong Q_Key is dropped (rx_drop_qkey)" send ud_qkey 10 rx_drop_qkey
run_ok "QP1: a wrong P_Key is dropped (rx_drop_bad)" send ud_pkey 10 rx_drop_bad
run_ok "QP1: more than a MAD is dropped (rx_drop_bad)" send gsi_big 10 rx_drop_bad
run_ok "QP1: 5000 junk MADs go in" "$inject" vb "$mac" 10.99.0.2 10.99.0.1 gsi_junk 5000
qp1_up() { rdma res show qp link sx/1 | grep -q 'lqpn 1 type GSI state RTS'; }
run_ok "QP1 is still up after them" qp1_up
diag "junk MADs: rx_drop_no_recv $(counter rx_drop_no_recv), rx_drop_fifo $(counter rx_drop_fifo)"
timeout 60 rping -s -a 10.99.0.1 -C 10 -V >/tmp/rping_srv.log 2>&1 &
for _ in $(seq 600); do rdma res show cm_id | grep -q LISTEN && break; sleep 0.1; done
run_ok "the RDMA CM still connects through QP1 (rping -V)" timeout 60 rping -c -a 10.99.0.1 -C 10 -V
wait $!
ok "$(($? == 0))" "... and its server ends well" || diag "$(tail -3 /tmp/rping_srv.log)"
garbage_drops() {
	echo $(( $(counter rx_drop_icrc) + $(counter rx_drop_hdr) + $(counter rx_drop_udp_len) ))
}
drops_before=$(garbage_drops)
run_ok "2000 random packets go in" "$inject" vb "$mac" 10.99.0.2 10.99.0.1 garbage 2000
# Each is counted once it has passed receive: wait for all of them.
for _ in $(seq 600); do
	drops_after=$(garbage_drops)
	[ $((drops_after - drops_before)) -ge 2000 ] && break
	sleep 0.1
done
is "$((drops_after - drops_before))" 2000 "every random packet is dropped and counted"
run_ok "the device still answers" ibv_devinfo -d sx

# FLUSH and ATOMIC WRITE on the wire, against an RC peer a19_wire plays
# on vb as 10.99.0.2 (a neighbour entry only: no address of this host).
ip neigh replace 10.99.0.2 lladdr "$(cat /sys/class/net/vb/address)" dev va nud permanent
gid=$(gid_index sx 10.99.0.1) || gid=
ok "$([ -n "$gid" ] && echo 1 || echo 0)" "RoCE v2 GID for 10.99.0.1 (index ${gid:-none})"
# ... and through the verbs, sx's QPs talking to its own address.
tap_merge a19_ops timeout 120 /usr/libexec/sroce/a19_ops sx "${gid:-0}"
tap_merge a19_wire timeout 120 /usr/libexec/sroce/a19_wire sx "${gid:-0}" vb
# Selective repeat on the wire against the same played peer: what sroce
# keeps past a gap and NAKs, what it resends for an SR NAK or a plain one.
tap_merge sr_wire timeout 300 /usr/libexec/sroce/sr_wire sx "${gid:-0}" vb
# Congestion notification only from the QP's peer.
tap_merge cc_wire timeout 120 /usr/libexec/sroce/cc_wire sx "${gid:-0}" vb
# A connected QP takes only its partition's P_Key, as requests and as ACKs.
tap_merge pkey_wire timeout 120 /usr/libexec/sroce/pkey_wire sx "${gid:-0}" vb
# ... and ibv_wr_flush, under rdma-core 56.1's libibverbs (44 has none).
tap_merge flush_ops env "$(rc56_env)" timeout 120 /usr/libexec/sroce/flush_ops sx "${gid:-0}"

# One RoCEv2 stack per namespace owns UDP 4791.
run_ok "rdma link delete sx" rdma link delete sx
run_ok "rmmod sroce frees the port" rmmod sroce
run_ok "rdma_rxe loads (takes the port)" modprobe rdma_rxe
run_ok "an rxe device" rdma link add rxe0 type rxe netdev va
fails_ok "an sroce device in the same namespace is refused" rdma link add sy type sroce netdev vb
run_ok "no sroce device was left" not_exists sy
ip netns add ns1
ip link set vb netns ns1
ip -n ns1 link set vb up
run_ok "an sroce device in another namespace" ip netns exec ns1 rdma link add sy type sroce netdev vb
run_ok "libibverbs sees both" both_listed
run_ok "rxe0 opens through the rxe provider" ibv_devinfo -d rxe0
is "$(ibv_devinfo -v -d sy | awk '$1 == "vendor_part_id:" { print $2 }')" 24076 \
	"sy opens through libsroce"
run_ok "rdma link delete sy" rdma link delete sy
run_ok "rdma link delete rxe0" rdma link delete rxe0
run_ok "the namespace goes" ip netns del ns1
run_ok "rmmod sroce" rmmod sroce
run_ok "rmmod rdma_rxe" rmmod rdma_rxe
done_testing
