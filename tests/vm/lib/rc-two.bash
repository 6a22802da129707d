# tests/vm/lib/rc-two.bash - the RC data path between two VMs on a point-to-
# point link, sourced by the *.two.sh suites (after lib.sh). Host 1 runs
# driver $1, host 2 driver $2 (sroce or rxe), so one boot of two VMs
# tests sroce against sroce or against the kernel's rdma_rxe. Each case
# runs twice, host 1 serving first and host 2 second, so each side is
# once server and once client; both hosts walk the same case list, the
# server on its own port per case, the client retrying until it listens.
# The data is checked by ibv_rc_pingpong -c and by rc_peer (every RC
# operation, tests/vm/prog/rc_peer.c); perftest runs every bw/lat test.
#
# rc_two_main DRV1 DRV2 [netem ARGS...]

rc_two_port=20000

# rc_two_run SERVER_HOST DESC CMD...: CMD is the whole tool command line
# without the peer address; the server runs it as is, the client adds the
# peer's address and retries until the server listens.
rc_two_run() {
	local server=$1 desc=$2 port=$rc_two_port
	shift 2
	rc_two_port=$((rc_two_port + 1))
	# A dead link fails every later check after its full timeout: stop
	# the suite at once and say why (the peer does the same).
	link_alive "$SROCE_PEER_IP4" ||
		bail_out "the link to $SROCE_PEER_IP4 is dead before \"$desc\""
	if [ -n "${rc_two_todo:-}" ]; then
		rc_two_run_todo "$server" "$desc" "$port" "$@"
	elif [ "$SROCE_HOST" = "$server" ]; then
		run_ok "$desc (server, $rc_two_me)" timeout 150 "$@" -p "$port"
	else
		run_ok "$desc (client, $rc_two_me)" \
			connect_retry timeout 120 "$@" -p "$port" "$SROCE_PEER_IP4"
	fi
}

# rc_two_todo=REASON rc_two_run...: a case a peer is known to fail, an
# expected failure (TODO REASON) that is reported when it starts passing.
rc_two_run_todo() {
	local server=$1 desc=$2 port=$3 role=client out st=0
	shift 3
	if [ "$SROCE_HOST" = "$server" ]; then
		role=server
		out=$(timeout 150 "$@" -p "$port" 2>&1) || st=$?
	else
		out=$(connect_retry timeout 120 "$@" -p "$port" "$SROCE_PEER_IP4" 2>&1) || st=$?
	fi
	_tap_result "$((st == 0))" "$desc ($role, $rc_two_me)" "TODO $rc_two_todo"
	[ $st = 0 ] || diag "$(tail -2 <<< "$out")"
}

# rc_two_both DESC CMD...: rc_two_run with host 1 serving, then host 2.
rc_two_both() {
	rc_two_run 1 "$@"
	rc_two_run 2 "$@"
}

# cm_two_both DESC SERVER CLIENT [LISTEN_PORT]: an RDMA CM program, host
# 1 serving, then host 2. In the command lines @PORT@ is the case's port,
# @ME@ the server's address, @PEER@ (the client's) the server's; the
# server listens on the case's port, or on LISTEN_PORT (a program with a
# fixed one). The client starts only once its server listens: a request
# that finds no listener is rejected, and a client of several
# connections that gives up after one rejection leaves the server
# waiting for ever on another that was accepted. So the server's host
# tells the client's, over TCP (peer_ready), when its CM id listens.
cm_two_both() {
	local desc=$1 srv=$2 cli=$3 server port lport ready spid st cmd
	for server in 1 2; do
		port=$rc_two_port
		rc_two_port=$((rc_two_port + 1))
		lport=${4:-$port}
		ready=$((port + 10000))
		link_alive "$SROCE_PEER_IP4" ||
			bail_out "the link to $SROCE_PEER_IP4 is dead before \"$desc\""
		if [ "$SROCE_HOST" = "$server" ]; then
			cmd=${srv//@PORT@/$port}
			# The same deadline as the client's, which starts a
			# little later: a stalled pair is described server side
			# first, while the client still holds its end.
			stall_dump 120 bash -c "${cmd//@ME@/$SROCE_IP4}" >/tmp/cm_two_srv.log 2>&1 &
			spid=$!
			if wait_listen "$lport" 30; then
				tell_peer "$ready" 150 ||
					diag "$desc: the client's host never asked whether port $lport listens"
			else
				diag "$desc: nothing listens on port $lport after 30 s"
			fi
			wait $spid
			st=$?
			ok "$((st == 0))" "$desc (server, $rc_two_me)" ||
				diag "$(tail -n 40 /tmp/cm_two_srv.log)"
		else
			peer_ready "$SROCE_PEER_IP4" "$ready" 150 ||
				diag "$desc: the server's host never said it listens"
			cmd=${cli//@PORT@/$port}
			run_ok "$desc (client, $rc_two_me)" \
				stall_dump 120 bash -c "${cmd//@PEER@/$SROCE_PEER_IP4}"
		fi
	done
}

# mc_two_both GROUP: multicast across the link, each host once as the
# receiver: librdmacm's mckey joins the group (librdmacm attaches its
# QP), tells the other host once its netdev has joined, and must get all
# 20 datagrams the other host sends to the group. The sender is mc_send,
# not mckey -s: mckey leaves and destroys its QP as soon as it has posted
# its (unsignaled) sends, and rdma_rxe 6.12, which sends from a work
# queue, then drops most of them: 2 rounds in 12 lost all but one.
mc_two_both() {
	local group=$1 recv ready rpid st
	for recv in 1 2; do
		ready=$((rc_two_port + 10000))
		rc_two_port=$((rc_two_port + 1))
		link_alive "$SROCE_PEER_IP4" ||
			bail_out "the link to $SROCE_PEER_IP4 is dead before mckey $group"
		if [ "$SROCE_HOST" = "$recv" ]; then
			timeout 90 mckey -m "$group" -b "$SROCE_IP4" -C 20 -S 1000 \
				>/tmp/mckey_two.log 2>&1 &
			rpid=$!
			for _ in $(seq 100); do
				ip maddr show | grep -qw "$group" && break
				sleep 0.1
			done
			tell_peer "$ready" 60 ||
				diag "mckey $group: the sender's host never asked whether we joined"
			wait $rpid
			st=$?
			ok "$((st == 0))" "mckey $group (receiver, 20 datagrams, $rc_two_me)" ||
				diag "$(tail -n 5 /tmp/mckey_two.log)"
		else
			peer_ready "$SROCE_PEER_IP4" "$ready" 60 ||
				diag "mckey $group: the receiver's host never said it joined"
			run_ok "mc_send $group (sender, $rc_two_me)" \
				timeout 60 /usr/libexec/sroce/mc_send -m "$group" \
				-b "$SROCE_IP4" -C 20 -S 1000
		fi
	done
}

# ecn_marks PCT: this host's RoCE packets (UDP port 4791) leave through
# a queue that marks PCT% of the ECN-capable ones CE (netem ... ecn, which
# would drop the others: none is, with traffic class 2); 0: a plain queue.
ecn_marks() {
	tc qdisc del dev eth0 root 2>/dev/null
	[ "$1" = 0 ] && return 0
	tc qdisc add dev eth0 root handle 1: prio &&
		tc qdisc add dev eth0 parent 1:3 handle 30: netem loss "$1%" ecn &&
		tc filter add dev eth0 parent 1: protocol ip u32 \
			match ip dport 4791 0xffff flowid 1:3
}

# rc_two_cc: congestion notification across the link (sroce-cc.rst).
# 64 KiB WRITEs with traffic class 2, ECT(0), which rdma_rxe too puts in
# the IP header, leave the sender's host through a queue that marks 5%
# CE; each host once the sender. A sroce receiver answers the marks with
# CNPs to the sender's QP; a sroce sender counts those it gets and cuts
# its rate. rdma_rxe has no congestion control: as the sender it must
# take sroce's CNPs (BTH opcode 0x81) and go on, its data intact; as the
# receiver it sends none, and takes CE-marked packets (the ICRC masks
# the IP header's ECN bits).
rc_two_cc() {
	local server ce cnp rcnp cuts
	for server in 1 2; do
		ce=$(port_stat "$dev" rx_ecn_ce) cnp=$(port_stat "$dev" tx_cnp)
		rcnp=$(port_stat "$dev" rx_cnp) cuts=$(port_stat "$dev" rate_cuts)
		[ "$SROCE_HOST" = "$server" ] ||
			run_ok "5% of the RoCE packets sent marked CE ($rc_two_me)" ecn_marks 5
		rc_two_run "$server" "ib_write_bw 64 KiB, traffic class 2, 5% CE marks on the sender's side" \
			ib_write_bw -d "$dev" -x "$gid4" -s 65536 -n 100 -F --tclass=2
		ecn_marks 0
		[ "$rc_two_me" = sroce ] || continue
		ce=$(($(port_stat "$dev" rx_ecn_ce) - ce)) cnp=$(($(port_stat "$dev" tx_cnp) - cnp))
		rcnp=$(($(port_stat "$dev" rx_cnp) - rcnp)) cuts=$(($(port_stat "$dev" rate_cuts) - cuts))
		if [ "$SROCE_HOST" = "$server" ]; then
			ok "$((ce > 0 && cnp > 0 && cnp <= ce))" \
				"the receiver answers the $rc_two_peer sender's CE marks with CNPs (rx_ecn_ce $ce, tx_cnp $cnp)"
		elif [ "$rc_two_peer" = sroce ]; then
			ok "$((rcnp > 0 && cuts > 0))" \
				"the sender takes the CNPs and cuts its rate (rx_cnp $rcnp, rate_cuts $cuts)"
		else
			diag "the $rc_two_peer receiver sent $rcnp CNPs for the CE marks"
		fi
	done
}

# rc_two_cm DEV GID4 [lossy]: UD and the RDMA CM across the link: QP1 of
# each side talks to the other's, UD datagrams go both ways. On a lossy
# link only what recovers from loss runs (RC data; the CM's MADs are
# retried by the CM): a UD ping-pong would wait for ever for a lost
# datagram, ibv_srq_pingpong and rdma_server/rdma_client, like
# ibv_rc_pingpong, have no closing handshake (see rc_two_main), rping's
# server waits for a DREQ nothing resends (below).
rc_two_cm() {
	local dev=$1 gid4=$2 lossy=${3:-}
	ok "rdma res show qp link $dev/1 | grep -q 'lqpn 1 type GSI state RTS'" \
		"QP1 is up ($rc_two_me)"
	cm_two_both "ucmatose 2 connections" "ucmatose -b @ME@ -p @PORT@ -c 2 -C 20" \
		"ucmatose -s @PEER@ -p @PORT@ -c 2 -C 20"
	cm_two_both "rstream 64 KiB" "rstream -p @PORT@ -S 65536 -C 50" \
		"rstream -s @PEER@ -p @PORT@ -S 65536 -C 50"
	cm_two_both "riostream 64 KiB" "riostream -p @PORT@ -S 65536 -C 50" \
		"riostream -s @PEER@ -p @PORT@ -S 65536 -C 50"
	[ -n "$lossy" ] && return
	# rping's server ends only on the client's DREQ, and the client
	# destroys its CM id as soon as it has sent it, which stops the
	# CM's resends (ib_cm, whatever the device): one lost DREQ leaves
	# the server waiting for ever (CI saw it under 1% loss; a script
	# that dropped the DREQ showed it, see commit be545e5).
	cm_two_both "rping -V IPv4" "rping -s -a @ME@ -p @PORT@ -C 20 -S 1000 -V" \
		"rping -c -a @PEER@ -p @PORT@ -C 20 -S 1000 -V"
	# rdma_server/rdma_client have no closing handshake either: the
	# client, done first, destroys its QP, and when the ACK of the
	# server's reply is lost the server's resends meet no QP. A correct
	# server ends in RETRY_EXC_ERR (and rdma_server still exits 0);
	# rdma_rxe 6.1's requester stalled there for good under 1% loss
	# (rxe-differences.rst, 4), so the server hung. Clean links only.
	cm_two_both "rdma_server/rdma_client" "rdma_server -p @PORT@" \
		"rdma_client -s @PEER@ -p @PORT@"
	# Multicast: datagrams, so on a clean link only.
	mc_two_both 239.1.2.4
	# perftest -R is not run across the link: Debian's perftest races
	# with itself (cm_pair in roce.sh), under loss and under load alike
	# (a SIDR REQ answered "no listener" on a clean link under SHAKE=1),
	# and running a pair again would need both hosts to agree on it.
	# cm-sroce.sh runs it on one host, where a rerun is simple.
	rc_two_both "ibv_ud_pingpong -c" ibv_ud_pingpong -d "$dev" -g "$gid4" -s 1024 -n 100 -c
	rc_two_both "ibv_srq_pingpong -q 4 -c" ibv_srq_pingpong -d "$dev" -g "$gid4" -q 4 -n 50 -c
	# udaddy takes no port: it listens on 7174.
	cm_two_both "udaddy 2 connections" "udaddy -b @ME@ -c 2 -C 20" \
		"udaddy -s @PEER@ -c 2 -C 20" 7174
}

# The message sizes and path MTUs rc_two_data runs; a suite may set fewer.
rc_two_sizes=${rc_two_sizes:-1 1000 4096 65536 1048576}
rc_two_mtus=${rc_two_mtus:-256 512 1024 2048 4096}

# rc_two_data DEV GID4 GID6 TOOL [ARGS...]: TOOL (ibv_rc_pingpong or
# rc_peer, which take the same options) at each of rc_two_sizes, at every
# path MTU, and over IPv6.
rc_two_data() {
	local dev=$1 gid4=$2 gid6=$3 tool=$4 name s m
	shift 4
	name=${tool##*/}
	for s in $rc_two_sizes; do
		rc_two_both "$name${*:+ $*} -s $s IPv4" \
			"$tool" -d "$dev" -g "$gid4" -s "$s" -n 3 "$@"
	done
	for m in $rc_two_mtus; do
		rc_two_both "$name${*:+ $*} -m $m -s 10000 IPv4" \
			"$tool" -d "$dev" -g "$gid4" -m "$m" -s 10000 -n 3 "$@"
	done
	local b0
	b0=$(port_stat "$dev" tx_batches)
	rc_two_both "$name${*:+ $*} -s 70000 IPv6" \
		"$tool" -d "$dev" -g "$gid6" -s 70000 -n 3 "$@"
	# sroce's IPv6 packets leave in lists as its IPv4 ones do (tx_batch).
	[ "$dev" != sroce0 ] ||
		run_ok "$name: sroce0's IPv6 bulk left in packet lists too (tx_batches)" \
			stat_above "$dev" tx_batches "${b0:-0}"
}

# rc_two_setup DRV1 DRV2 [netem ARGS...]: this host's device on eth0, the
# peer reachable, netem on the link if asked. Sets dev, gid4, gid6, netem
# and qpt (the local ACK timeout a lossy link wants) in the caller's scope.
rc_two_setup() {
	local drv
	netem='' qpt=''
	drv=$1 rc_two_peer=$2
	[ "$SROCE_HOST" = 2 ] && drv=$2 rc_two_peer=$1
	shift 2
	rc_two_me=$drv
	dev=${drv}0

	diag "host $SROCE_HOST runs $drv, peer $SROCE_PEER_IP4 / $SROCE_PEER_IP6"
	# 4096-byte path MTUs need jumbo frames on the link.
	run_ok "eth0 MTU 9000" ip link set eth0 mtu 9000
	sroce_up -t "$drv" "$dev" eth0 "$SROCE_IP4" "$SROCE_IP6"
	gid4=${up_gids[0]:-0} gid6=${up_gids[1]:-0}
	# Both ends sroce: selective repeat offered, as a deployment of
	# sroce hosts would (towards rdma_rxe sroce only answers it).
	if [ "$drv" = sroce ] && [ "$rc_two_peer" = sroce ]; then
		run_ok "$dev offers selective repeat" \
			sh -c "echo 2 > /sys/class/infiniband/$dev/cc_sel_repeat"
	fi
	diag "GID $gid4 for $SROCE_IP4, GID $gid6 for $SROCE_IP6"
	run_ok "peer $SROCE_PEER_IP4 answers ping" retry 60 ping -c 1 -W 1 "$SROCE_PEER_IP4"
	run_ok "peer $SROCE_PEER_IP6 answers ping" retry 10 ping -6 -c 1 -W 1 "$SROCE_PEER_IP6"
	if [ "${1:-}" = netem ]; then
		shift
		netem=$*
		# Under loss the two TCG guests queue hundreds of milliseconds
		# of frames between them when one falls behind: the QPs get a
		# local ACK timeout of 1 s (4.096 us << 18) instead of 67 ms, as
		# a slow lossy network wants on real hardware too.
		qpt=18
		# Both sides lose, duplicate and reorder: each side's
		# retransmissions must satisfy the other's responder.
		run_ok "tc netem $*" tc qdisc add dev eth0 root netem "$@"
	fi
}

# rc_two_end: the counters, then the device goes.
rc_two_end() {
	rdma statistic show link "$dev/1" | tr ' ' '\n' | paste -sd' ' | sed 's/^/# /'
	# sroce sent its multi-packet messages in packet lists (tx_batch,
	# sroce_tx.c); the data checks above saw them arrive intact.
	[ "$dev" != sroce0 ] ||
		run_ok "sroce0's bulk left in packet lists (tx_batches)" \
			stat_above sroce0 tx_batches 0
	tc qdisc del dev eth0 root 2>/dev/null
	run_ok "rdma link delete $dev" rdma link delete "$dev"
}

rc_two_main() {
	local dev gid4 gid6 netem qpt

	rc_two_setup "$@"
	# ibv_rc_pingpong -c checks the data it receives, but it has no
	# closing handshake: the side done first destroys its QP, and if the
	# ACK of the other's last message is lost, the other retransmits to
	# a QP that is gone and ends, rightly, in RETRY_EXC_ERR. So on a
	# lossy link only rc_peer runs: every operation, both directions at
	# once, data checked, and a barrier before either side lets go.
	if [ -z "$netem" ]; then
		rc_two_data "$dev" "$gid4" "$gid6" ibv_rc_pingpong -c
	fi
	rc_two_data "$dev" "$gid4" "$gid6" /usr/libexec/sroce/rc_peer ${qpt:+-t $qpt}
	# UC: nothing resends, so under loss a message that lost a packet is
	# dropped whole; every one that arrives is whole and arrives once
	# (rc_peer -u), and most arrive (4 packets each, 1% loss a packet).
	[ -n "$netem" ] ||
		rc_two_both "ibv_uc_pingpong -c" ibv_uc_pingpong -d "$dev" -g "$gid4" -s 4096 -n 50 -c
	rc_two_both "rc_peer -u (UC) 40 x 4 KiB" /usr/libexec/sroce/rc_peer -d "$dev" \
		-g "$gid4" -s 4096 -m 1024 -n 10 -u ${netem:+-L 50}
	# Memory windows: each side's buffer has no remote right of its own;
	# WRITE, READ and atomics reach it through a type 1 window.
	rc_two_both "rc_peer -w (through memory windows) 4 KiB" /usr/libexec/sroce/rc_peer \
		-d "$dev" -g "$gid4" -s 4096 -m 1024 -n 2 -w ${qpt:+-t $qpt}

	# perftest, small counts: TCG runs ~20x slower than metal.
	rc_two_both "ib_send_bw 64 KiB" ib_send_bw -d "$dev" -x "$gid4" -s 65536 -n 50 -F ${qpt:+-u $qpt}
	rc_two_both "ib_write_bw 64 KiB" ib_write_bw -d "$dev" -x "$gid4" -s 65536 -n 50 -F ${qpt:+-u $qpt}
	rc_two_both "ib_read_bw 64 KiB" ib_read_bw -d "$dev" -x "$gid4" -s 65536 -n 50 -F ${qpt:+-u $qpt}
	rc_two_both "ib_atomic_bw" ib_atomic_bw -d "$dev" -x "$gid4" -n 50 -F ${qpt:+-u $qpt}
	rc_two_both "ib_send_lat 2 B" ib_send_lat -d "$dev" -x "$gid4" -s 2 -n 50 -F ${qpt:+-u $qpt}
	# ib_write_lat (perftest 4.5, upstream too) has no closing handshake,
	# unlike the other perftest tools: each side waits for the ACK of its
	# last WRITE, and if that ACK is lost, the peer, done already, has
	# destroyed its QP before the retransmission arrives: RETRY_EXC_ERR,
	# rightly (CI saw it on sroce and on rdma_rxe). Not on a lossy link.
	[ -n "$netem" ] ||
		rc_two_both "ib_write_lat 2 B" ib_write_lat -d "$dev" -x "$gid4" -s 2 -n 50 -F
	rc_two_both "ib_read_lat 2 B" ib_read_lat -d "$dev" -x "$gid4" -s 2 -n 50 -F ${qpt:+-u $qpt}
	rc_two_both "ib_write_bw 64 KiB IPv6" ib_write_bw -d "$dev" -x "$gid6" -s 65536 -n 50 -F ${qpt:+-u $qpt}
	[ -n "$netem" ] || rc_two_cc
	rc_two_cm "$dev" "$gid4" ${netem:+lossy}
	rc_two_end
}
