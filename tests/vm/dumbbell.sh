#!/bin/bash
# dumbbell.sh: DCQCN on a shared bottleneck (Documentation/sroce-cc.rst,
# "Fairness on a shared bottleneck"), in the namespaces of dumbbell.bash:
# four senders through a switch whose 40 Mb/s egress marks ECN (red) to
# one receiver.
#
# With congestion control on, two flows, then three joined by a fourth
# that starts late, share the link fairly (Jain's index >= 0.9 over their
# rates in a window inside their common run) and fill it (>= 90% of
# 40 Mb/s); the queue stays under two thirds of red's limit, nothing is
# dropped, packets are marked instead, CNPs come back and every sender
# cuts its rate for them; the late flow gets its share. With the senders'
# reaction point off (cc_rp 0) the same two flows fill the queue to its
# limit and lose packets.
#   scripts/vm-run.sh tests/vm/dumbbell.sh [series]
# ("series": every run's samples as diagnostics, not only a failed one's)
set -u
# shellcheck source=tests/vm/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/vm/dumbbell.bash
. "${SROCE_TESTS:-$(dirname "$0")}/dumbbell.bash"

QBOUND=$((LIMIT * 2 / 3)) # the largest queue congestion control may leave
LATE_SETTLE=6		# s the late flow gets to converge before its window
show_series=
[ "${1:-}" = series ] && show_series=1

# cc_on_checks NAME I...: the checks of a run with congestion control on,
# over the window in which flows I... all ran. Sets q and qm to the
# queue's largest and mean backlog.
cc_on_checks() {
	local name=$1 dt jain util rates ce red
	shift
	figures "$@"
	ok "$(ge "$dt" 6)" "$name: the flows ran together for ${dt} s of samples (6 at least)"
	diag "$name: Mb/s$rates, Jain $jain, utilisation $util"
	ok "$(ge "$jain" 0.9)" "$name: fair shares (Jain's index $jain >= 0.9; Mb/s:$rates)"
	ok "$(ge "$util" 0.9)" "$name: the bottleneck is used (utilisation $util >= 0.9)"
	diag "$name: queue max $q B, mean $qm B while they ran together; red: marked ${red[0]} early ${red[1]} pdrop ${red[2]} other ${red[3]} dropped ${red[4]}"
	ok "$((q > 0 && q <= QBOUND))" "$name: the queue stays bounded (max $q B: two thirds of red's limit $LIMIT at most)"
	is "${red[1]} ${red[2]} ${red[3]} ${red[4]}" "0 0 0 0" "$name: nothing dropped (red's early, pdrop, other, dropped)"
	ce=$(delta sroce0 rx_ecn_ce)
	ok "$((red[0] > 0 && ce > 0))" "$name: marked instead (red marked ${red[0]}, r received $ce CE)"
	cnp_report "$@"
	ok "$(($(delta sroce0 tx_cnp) > 0))" "$name: r answers the marks with CNPs ($(delta sroce0 tx_cnp))"
	run_ok "$name: every sender receives CNPs and cuts its rate" cnp_ok "$@"
}

run_ok "modprobe sroce" modprobe sroce
run_ok "namespaces s1..s4, sw and r; sw routes between them" net_setup
run_ok "every sender reaches r through sw" pings
run_ok "sroce0 in r on vr, sroce1..sroce4 in s1..s4 on vs1..vs4" devices
gids && st=1 || st=0
ok $st "every device has a GID for its IPv4 address"
run_ok "senders paced at their line rate, DCQCN's timers set for 40 Mb/s" dcqcn_timers
is "$(cat $sr/sroce1/cc_ecn $sr/sroce1/cc_rp | tr '\n' ' ')" "1 1 " \
	"ECN-capable packets and the reaction point on (the defaults)"
run_ok "the bottleneck: htb $RATE Mb/s, red ecn (limit $LIMIT, min $QMIN, max $QMAX)" bottleneck

# Two flows at once.
nfail=$_tap_failed
sender_cc line_rate_mbps $LINE2
flows 1:0:530 2:0:530
is "${fail:-none}" none "2 flows, line rate $LINE2 Mb/s: both ib_send_bw pairs complete"
cc_on_checks "2 flows" 1 2
q2=$q
[ "$_tap_failed" = "$nfail" ] && [ -z "$show_series" ] || diag "$(series)"

# Three flows, then a fourth 10 s later.
nfail=$_tap_failed
sender_cc line_rate_mbps $LINE4
flows 1:0:590 2:0:590 3:0:590 4:10:300
is "${fail:-none}" none "4 flows, line rate $LINE4 Mb/s, the fourth late: every ib_send_bw pair completes"
# shellcheck disable=SC2046 # two numbers
w=$(window $(awk -v a="$(common 1 2 3 | cut -d' ' -f1)" -v b="${start[4]}" \
	'BEGIN { printf "%.6f %.6f", a, b - 0.5 }') 1 2 3)
read -r dt jain util rates <<<"$w"
diag "3 flows before the fourth: Mb/s$rates, Jain $jain, utilisation $util"
ok "$(ge "$dt" 3)" "3 flows: they ran together before the fourth for ${dt} s of samples (3 at least)"
ok "$(ge "$jain" 0.9)" "3 flows: fair shares (Jain's index $jain >= 0.9; Mb/s:$rates)"
SETTLE=$LATE_SETTLE cc_on_checks "4 flows" 1 2 3 4
# shellcheck disable=SC2046 # two numbers
w=$(window $(SETTLE=$LATE_SETTLE common 1 2 3 4) 1 2 3 4)
read -r dt jain util r1 r2 r3 r4 <<<"$w"
share=$(awk -v a="${r1:-0}" -v b="${r2:-0}" -v c="${r3:-0}" -v d="${r4:-0}" \
	'BEGIN { s = a + b + c + d; printf "%.2f", (s > 0) ? 4 * d / s : 0 }')
ok "$(ge "$share" 0.8)" "the late flow reaches its fair share (${r4:-0} Mb/s, $share of a quarter; 0.8 at least)"
[ "$_tap_failed" = "$nfail" ] && [ -z "$show_series" ] || diag "$(series)"

# The two flows again, with the senders' reaction point off.
nfail=$_tap_failed
sender_cc line_rate_mbps $LINE2
sender_cc rp 0
flows 1:0:250 2:0:250
sender_cc rp 1
diag "2 flows, cc_rp 0: ${fail:-both ib_send_bw pairs complete}"
figures 1 2
diag "2 flows, cc_rp 0: Mb/s$rates, Jain $jain, utilisation $util; queue max $q B, mean $qm B; red: marked ${red[0]} early ${red[1]} pdrop ${red[2]} other ${red[3]} dropped ${red[4]}"
cnp_report 1 2
ok "$((q >= LIMIT * 95 / 100 && q > 2 * q2))" \
	"2 flows, cc_rp 0: the queue fills to red's limit $LIMIT (max $q B, against $q2 with congestion control)"
ok "$((red[2] > 0))" "2 flows, cc_rp 0: packets are lost at the limit (pdrop ${red[2]})"
is "$(delta sroce1 rate_cuts) $(delta sroce2 rate_cuts)" "0 0" "2 flows, cc_rp 0: CNPs come but cut nothing"
[ "$_tap_failed" = "$nfail" ] && [ -z "$show_series" ] || diag "$(series)"

run_ok "the devices deleted" devices_del
run_ok "rmmod sroce" rmmod sroce
done_testing
