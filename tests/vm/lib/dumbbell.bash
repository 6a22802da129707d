# tests/vm/lib/dumbbell.bash - a dumbbell of network namespaces with sroce
# devices, sourced after lib.sh by dumbbell.sh (the checks) and
# bench-cc-guest.sh (make bench's congestion control table).
# Four sender namespaces s1..s4, each with a veth to a switch namespace sw
# that routes to a receiver namespace r; a sroce device on every sender's
# end (sroce1..sroce4) and one in r (sroce0). sw's egress towards r is the
# bottleneck: htb at 40 Mb/s with red under it, which marks ECN-capable
# packets CE as the queue builds ("ecn"; "nodrop" queues what is not
# ECN-capable, perftest's TCP, rather than dropping it early, so every
# drop counted is the queue's limit). Each sender is paced from the start
# at its line rate (cc_pace_line, a NIC's port clock) and sends 64 KiB
# SENDs (ib_send_bw, which sleeps on its CQ: busy-polling perftests
# starve the kernel of the guest's two CPUs) to its own server in r.
# Rates are interface counters on sw, read five times a second by one
# sampler in sw that also logs red's queue (perftest's own figures under
# TCG can read 0.00).
#
# Under TCG a paced QP reaches about half its line rate at 40 Mb/s (the
# pacing timer fires late, and the lateness is not made up), so the line
# rate is set for an offered load about twice the bottleneck's: 100 Mb/s
# for two flows (about 34 Mb/s each; at 60 the two offered 1.4 times the
# link, and a slower stretch of the guest left it underused), 40 for four
# (about 22 each; at 60, four flows overload the link almost threefold,
# and DCQCN's oscillation then reaches red's limit).

RATE=40			# Mb/s: the bottleneck
# shellcheck disable=SC2034 # the line rates are the sourcing scripts'
LINE2=100		# Mb/s: the senders' line rate with two flows ...
# shellcheck disable=SC2034
LINE4=40		# ... and with four
LIMIT=300000		# red's queue limit, bytes
QMIN=6000		# red marks from this average queue (bytes) ...
QMAX=60000		# ... with a probability rising to 0.2 here, and all above
SETTLE=4		# s after the last flow started before a window opens
sr=/sys/class/infiniband
mon=/tmp/db.mon
tab=/tmp/db.tab
port=19500
declare -a g start end

# mac NET HOST: the veth addresses, fixed so the neighbours can be too.
mac() {
	printf '02:00:00:00:%02x:%02x' "$1" "$2"
}

# net_setup: s1..s4 -- sw -- r. Net 0 joins sw (.254) and r (.1), net I
# sw and sI (.1). Every neighbour is permanent: sw's ARP towards r would
# cross the marking queue, and a refresh lost there would cut r off in
# the middle of a run.
net_setup() {
	local n i swd hd hn
	for n in sw r s1 s2 s3 s4; do
		ip netns add $n && ip -n $n link set lo up || return 1
	done
	for i in 0 1 2 3 4; do
		# sw's end swr and r's vr; sw's end swI and sI's vsI.
		swd=sw$i hd=vs$i hn=s$i
		[ $i = 0 ] && swd=swr hd=vr hn=r
		ip -n sw link add $swd address "$(mac $i 254)" type veth \
			peer name $hd address "$(mac $i 1)" netns $hn &&
			ip -n sw addr add "10.7.$i.254/24" dev $swd &&
			ip -n sw link set $swd up &&
			ip -n $hn addr add "10.7.$i.1/24" dev $hd &&
			ip -n $hn link set $hd up &&
			ip -n $hn route add default via "10.7.$i.254" &&
			ip -n sw neigh replace "10.7.$i.1" lladdr "$(mac $i 1)" dev $swd nud permanent &&
			ip -n $hn neigh replace "10.7.$i.254" lladdr "$(mac $i 254)" dev $hd nud permanent ||
			return 1
	done
	ip netns exec sw sysctl -qw net.ipv4.ip_forward=1
}

# pings: every sender reaches r through sw.
pings() {
	local i
	for i in 1 2 3 4; do
		ip netns exec s$i ping -c 1 -W 2 10.7.0.1 || return 1
	done
}

# bottleneck: a fresh htb + red on sw's way to r, its counters at 0. htb
# gets a 32 KiB burst: with its default of one packet, every late timer
# of the guest is lost capacity and the link drains well below its rate.
# red's average follows the queue closely (burst 6), as a switch marks
# on its instantaneous queue.
bottleneck() {
	tc -n sw qdisc del dev swr root 2>/dev/null
	tc -n sw qdisc add dev swr root handle 1: htb default 10 &&
		tc -n sw class add dev swr parent 1: classid 1:10 htb \
			rate ${RATE}mbit ceil ${RATE}mbit burst 32k cburst 32k &&
		tc -n sw qdisc add dev swr parent 1:10 handle 10: red limit $LIMIT \
			min $QMIN max $QMAX avpkt 1100 burst 6 probability 0.2 \
			bandwidth ${RATE}mbit ecn nodrop
}

# sender_cc NAME VALUE: cc_NAME on the four senders.
sender_cc() {
	local i
	for i in 1 2 3 4; do
		echo "$2" > $sr/sroce$i/cc_$1 || return 1
	done
}

# stats FILE: every device's port counters, one line per device; then
# what the network stack dropped on the way: "netdrops softnet N" (the
# per-CPU backlogs, softnet_stat) and "netdrops NS/VETH RX TX" (drops).
stats() {
	local n h sn=0
	for h in $(awk '{ print $2 }' /proc/net/softnet_stat); do
		sn=$((sn + 16#$h))
	done
	{
		rdma statistic show link
		echo "netdrops softnet $sn"
		for n in sw r s1 s2 s3 s4; do
			ip -n $n -s -o link show type veth | awk -v n=$n '{
				for (i = 1; i <= NF; i++) {
					if ($i == "RX:") rx = i
					if ($i == "TX:") tx = i
				}
				sub(/@.*/, "", $2)
				print "netdrops " n "/" $2, $(rx + 11), $(tx + 11)
			}'
		done
	} > "$1"
}

# netdrops: the drops stats saw grow over the last run, "" for none.
netdrops() {
	awk '$1 == "netdrops" { k = $2; v = $3 + ($4 == "" ? 0 : $4) }
		$1 == "netdrops" && FILENAME == ARGV[1] { a[k] = v }
		$1 == "netdrops" && FILENAME == ARGV[2] && v != a[k] { printf " %s %d;", k, v - a[k] }' \
		/tmp/db.st0 /tmp/db.st1
}

# stat FILE DEV NAME: one counter from a stats FILE.
stat() {
	awk -v d="$2/1" -v n="$3" '$2 == d { for (i = 3; i < NF; i++) if ($i == n) print $(i + 1) }' "$1"
}

# delta DEV NAME: NAME's growth on DEV over the last run.
delta() {
	echo $(($(stat /tmp/db.st1 "$1" "$2") - $(stat /tmp/db.st0 "$1" "$2")))
}

# listening PORT...: perftest's servers in r listen on every TCP PORT
# (one look a tenth of a second, for 20 s, in one process).
listening() {
	ip netns exec r timeout 30 bash -c '
		for _ in $(seq 200); do
			ok=1
			for p in "$@"; do
				ss -Hltn "sport = :$p" | grep -q . || ok=0
			done
			[ $ok = 1 ] && exit 0
			sleep 0.1
		done
		exit 1' listening "$@"
}

# monitor_start / monitor_stop: in sw, five times a second, a line
# "S TIME RX1 RX2 RX3 RX4 TXR" (the bytes sw received from each sender,
# and sent towards r) and then red's statistics, into $mon. One process
# for the run: every ip netns exec costs a fresh sysfs mount.
monitor_start() {
	ip netns exec sw timeout 300 bash -c '
		while :; do
			s="S $EPOCHREALTIME"
			for d in sw1 sw2 sw3 sw4; do
				read -r v < /sys/class/net/$d/statistics/rx_bytes
				s+=" $v"
			done
			read -r v < /sys/class/net/swr/statistics/tx_bytes
			echo "$s $v"
			tc -s qdisc show dev swr
			sleep 0.2
		done' > $mon 2>&1 &
	monpid=$!
}
monitor_stop() {
	kill "$monpid" 2>/dev/null
	wait "$monpid" 2>/dev/null
}

# table: $mon as one line a sample: time, RX1..RX4, TXR, red's backlog
# (bytes), marked, early, pdrop, other, dropped.
table() {
	awk '
		function bytes(s) {
			if (s ~ /Mb$/) return s * 1048576
			if (s ~ /Kb$/) return s * 1024
			return s + 0
		}
		function emit() {
			print t, b[1], b[2], b[3], b[4], tx, bl, mk, ea, pd, ot, dr
		}
		$1 == "S" {
			if (have) emit()
			t = $2; b[1] = $3; b[2] = $4; b[3] = $5; b[4] = $6; tx = $7
			have = 1; red = 0; next
		}
		$1 == "qdisc" { red = ($2 == "red"); next }
		red && $1 == "Sent" {
			for (i = 1; i < NF; i++) if ($i == "(dropped") dr = $(i + 1) + 0
		}
		red && $1 == "backlog" { bl = bytes($2) }
		red && $1 == "marked" { mk = $2; ea = $4; pd = $6; ot = $8 }
		END { if (have) emit() }' $mon > $tab
}

# series: the samples as rates (Mb/s) from each sender and towards r, and
# red's queue: the diagnostic when a run's check fails.
series() {
	awk 'NR > 1 && $1 > t {
			dt = $1 - t
			printf "%5.1f s", $1 - t0
			for (c = 2; c <= 5; c++) printf " %5.1f", ($c - p[c]) * 8 / dt / 1e6
			printf " -> %5.1f Mb/s, queue %6d B\n", ($6 - p[6]) * 8 / dt / 1e6, $7
		}
		NR == 1 { t0 = $1 }
		{ t = $1; for (c = 2; c <= 6; c++) p[c] = $c }' $tab
}

# span I: when flow I ran: the first sample that saw 128 KiB of it, and
# the first that saw its last byte ("0 0" if it never ran).
span() {
	awk -v c=$((1 + $1)) '
		NR == 1 { first = $c }
		{ v[NR] = $c; t[NR] = $1 }
		END {
			s = 0; e = 0
			for (i = 1; i <= NR; i++) if (v[i] - first > 131072) { s = t[i]; break }
			for (i = 1; s && i <= NR; i++) if (v[i] == v[NR]) { e = t[i]; break }
			print s, e
		}' $tab
}

# window FROM TO I...: over the samples inside [FROM, TO]: the seconds
# covered, Jain's index of flows I..., the bottleneck's utilisation, and
# each flow's rate in Mb/s; "0 0 0" if fewer than two samples fall in.
window() {
	awk -v a="$1" -v b="$2" -v fl="${*:3}" -v rate=$RATE '
		{ t[NR] = $1; for (c = 2; c <= 6; c++) v[NR, c] = $c }
		END {
			for (i = 1; i <= NR; i++) if (t[i] >= a) { ia = i; break }
			for (i = NR; i >= 1; i--) if (t[i] <= b) { ib = i; break }
			if (!ia || !ib || ib <= ia) { print 0, 0, 0; exit }
			dt = t[ib] - t[ia]
			n = split(fl, f, " ")
			s = 0; s2 = 0; out = ""
			for (k = 1; k <= n; k++) {
				x = (v[ib, 1 + f[k]] - v[ia, 1 + f[k]]) * 8 / dt / 1e6
				s += x; s2 += x * x; out = out sprintf(" %.2f", x)
			}
			u = (v[ib, 6] - v[ia, 6]) * 8 / dt / 1e6 / rate
			printf "%.1f %.3f %.3f%s\n", dt, (s2 > 0) ? s * s / (n * s2) : 0, u, out
		}' $tab
}

# qmax: the largest backlog red showed over the run (bytes).
qmax() {
	awk '$7 > m { m = $7 } END { print m + 0 }' $tab
}

# qmean FROM TO: red's mean backlog over the samples inside [FROM, TO].
qmean() {
	awk -v a="$1" -v b="$2" '$1 >= a && $1 <= b { s += $7; n++ } END { printf "%d", n ? s / n : 0 }' $tab
}

# red_end: red's marked early pdrop other dropped at the run's end.
red_end() {
	tail -n 1 $tab | awk '{ print $8 + 0, $9 + 0, $10 + 0, $11 + 0, $12 + 0 }'
}

# ge A B: 1 when the number A >= B.
ge() {
	awk -v a="$1" -v b="$2" 'BEGIN { print (a + 0 >= b + 0) ? 1 : 0 }'
}

# rel T: T as seconds since the run's first sample ("never" for 0).
rel() {
	awk -v t="$1" -v z="$t_first" 'BEGIN { if (t + 0 == 0) print "never"; else printf "%.1f", t - z }'
}

# why LOG: what a perftest LOG says of its failure (its stderr, written
# unbuffered, comes before the buffered stdout's last lines).
why() {
	grep -aiE 'error|fail|status|unable|couldn' "$1" | tail -n 3 | grep . || tail -n 3 "$1"
}

# flows SPEC...: one run through a fresh bottleneck. SPEC is I:DELAY:N:
# sender sI sends N 64 KiB SENDs to its own server in r, started DELAY
# seconds after the first (SPECs in increasing DELAY order). Sets fail
# (the pairs that failed, "" if none) and the flows' start and end, and
# leaves the samples in $tab and the counters in /tmp/db.st0 and .st1.
# With FLOWS_TCP=1 each flow is N x 64 KiB of TCP (iperf3, cubic, ECN)
# instead: the same bottleneck's figures for TCP (make bench).
flows() {
	local spec i d n at=0 st
	local -A srv cli fport
	bottleneck || { diag "tc: the bottleneck was not set up"; return 1; }
	for spec in "$@"; do
		IFS=: read -r i d n <<<"$spec"
		port=$((port + 1))
		fport[$i]=$port
		if [ -n "${FLOWS_TCP:-}" ]; then
			ip netns exec r timeout 150 iperf3 -s -1 -p $port \
				>/tmp/db.srv$i.log 2>&1 &
		else
			ip netns exec r timeout 150 ib_send_bw -d sroce0 -x "$g0" -F -e \
				-n "$n" -p $port >/tmp/db.srv$i.log 2>&1 &
		fi
		srv[$i]=$!
	done
	listening "${fport[@]}" || diag "not every server listens yet"
	stats /tmp/db.st0
	monitor_start
	for spec in "$@"; do
		IFS=: read -r i d n <<<"$spec"
		[ "$d" -gt $at ] && sleep $((d - at)) && at=$d
		if [ -n "${FLOWS_TCP:-}" ]; then
			ip netns exec s$i sysctl -qw net.ipv4.tcp_ecn=1
			ip netns exec s$i timeout 150 iperf3 -c 10.7.0.1 -C cubic \
				-n $((n * 65536)) -p "${fport[$i]}" >/tmp/db.cli$i.log 2>&1 &
		else
			ip netns exec s$i timeout 150 ib_send_bw -d sroce$i -x "${g[$i]}" -F -e \
				-n "$n" -p "${fport[$i]}" 10.7.0.1 >/tmp/db.cli$i.log 2>&1 &
		fi
		cli[$i]=$!
	done
	fail=
	for spec in "$@"; do
		i=${spec%%:*}
		wait "${cli[$i]}"
		st=$?
		[ $st = 0 ] || { fail+=" s$i(client $st)"; diag "s$i client: $(why /tmp/db.cli$i.log)"; }
		wait "${srv[$i]}"
		st=$?
		[ $st = 0 ] || { fail+=" s$i(server $st)"; diag "s$i server: $(why /tmp/db.srv$i.log)"; }
	done
	sleep 1
	monitor_stop
	stats /tmp/db.st1
	table
	t_first=$(awk 'NR == 1 { print $1 }' $tab)
	for spec in "$@"; do
		i=${spec%%:*}
		read -r "start[$i]" "end[$i]" < <(span "$i")
	done
	diag "$(wc -l < $tab) samples; the flows ran$(for spec in "$@"; do
		i=${spec%%:*}
		printf ' s%s %s-%s s' "$i" "$(rel "${start[$i]}")" "$(rel "${end[$i]}")"
	done)"
	return 0
}

# common I...: "FROM TO", the window in which flows I... all ran, from
# SETTLE s after the last of them started to 1 s before the first ended.
common() {
	local i from=0 to=1e30
	for i in "$@"; do
		from=$(awk -v x="$from" -v y="${start[$i]}" 'BEGIN { printf "%.6f", (y > x) ? y : x }')
		to=$(awk -v x="$to" -v y="${end[$i]}" 'BEGIN { printf "%.6f", (y < x) ? y : x }')
	done
	awk -v a="$from" -v b="$to" -v s=$SETTLE 'BEGIN { printf "%.6f %.6f\n", a + s, b - 1 }'
}

# figures I...: the last run's figures while flows I... all ran (common),
# set in the caller's scope: dt jain util rates (window's), q (qmax),
# qm (qmean) and red (red_end's counters, an array).
# shellcheck disable=SC2034 # the caller's variables
figures() {
	local span
	span=$(common "$@")
	# shellcheck disable=SC2086 # two numbers
	read -r dt jain util rates <<<"$(window $span "$@")"
	# shellcheck disable=SC2086 # two numbers
	qm=$(qmean $span)
	q=$(qmax)
	read -r -a red <<<"$(red_end)"
}

# cnp_report I...: what r marked and answered, and each sender's CNPs,
# cuts and retransmissions in the last run, with whatever else a loss
# or a wait would show (a diagnostic); cnp_ok I...: every sender got
# CNPs and cut its rate for them.
cnp_report() {
	local i c v out more
	out="sroce0: rx_ecn_ce $(delta sroce0 rx_ecn_ce), tx_cnp $(delta sroce0 tx_cnp);"
	for i in "$@"; do
		out+=" sroce$i: rx_cnp $(delta sroce$i rx_cnp), rate_cuts $(delta sroce$i rate_cuts), retransmit $(delta sroce$i retransmit);"
	done
	diag "$out"
	more=
	for i in 0 "$@"; do
		for c in ack_timeout seq_nak_sent seq_nak_rcvd rnr_nak_sent rnr_nak_rcvd rx_dup_req \
			rx_drop_ip rx_drop_udp_len rx_drop_hdr rx_drop_icrc rx_drop_no_qp rx_drop_nomem \
			rx_drop_fifo rx_drop_state rx_drop_bad rx_drop_len tx_drop_route tx_drop_nomem; do
			v=$(delta sroce$i $c)
			[ "$v" = 0 ] || more+=" sroce$i $c $v;"
		done
	done
	[ -z "$more" ] || diag "also:$more"
	more=$(netdrops)
	[ -z "$more" ] || diag "dropped by the network stack:$more"
}
cnp_ok() {
	local i
	for i in "$@"; do
		[ "$(delta sroce$i rx_cnp)" -gt 0 ] && [ "$(delta sroce$i rate_cuts)" -gt 0 ] || return 1
	done
}

# devices: sroce0 on vr in r and sroceI on vsI in sI.
devices() {
	local i
	ip netns exec r rdma link add sroce0 type sroce netdev vr || return 1
	for i in 1 2 3 4; do
		ip netns exec s$i rdma link add sroce$i type sroce netdev vs$i || return 1
	done
}

# gids: g0 and g[I], each device's GID index for its IPv4 address (in
# this shell: not under run_ok's command substitution).
gids() {
	local i
	for i in 1 2 3 4; do
		g[$i]=$(gid_index sroce$i 10.7.$i.1) || return 1
	done
	g0=$(gid_index sroce0 10.7.0.1)
}

# devices_del: the five devices gone.
devices_del() {
	local i
	for i in 1 2 3 4; do
		ip netns exec s$i rdma link delete sroce$i || return 1
	done
	ip netns exec r rdma link delete sroce0
}

# dcqcn_timers: the senders paced at their line rate, and DCQCN's timers
# for a 40 Mb/s link whose round trip under TCG is milliseconds: alpha
# decays per ms, the rate climbs per 2 ms, in 5 and 20 Mb/s steps; r
# sends a QP at most one CNP a millisecond. The senders offer selective
# repeat (all ends are sroce).
dcqcn_timers() {
	local i d
	for i in 1 2 3 4; do
		d=$sr/sroce$i
		echo 1 > $d/cc_pace_line &&
			echo 1000 > $d/cc_alpha_us &&
			echo 2000 > $d/cc_rate_timer_us &&
			echo 5 > $d/cc_ai_mbps &&
			echo 20 > $d/cc_hai_mbps &&
			echo 2 > $d/cc_min_rate_mbps &&
			echo 2 > $d/cc_sel_repeat || return 1
	done
	echo 1000 > $sr/sroce0/cc_cnp_interval_us
}
