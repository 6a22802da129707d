#!/bin/bash
# dumbbell.sh: DCQCN on a shared bottleneck (Documentation/sroce-cc.rst,
# "Fairness on a shared bottleneck"), in the namespaces of dumbbell.bash:
# four senders through a switch whose 40 Mb/s egress marks ECN (red) to
# one receiver.
#
# What congestion control does, not how well: with it on, two flows, then
# three joined by a fourth that starts late, all complete; nothing is
# dropped, packets are marked instead, CNPs come back and every sender
# cuts its rate for them; the late flow gets bytes through while the
# other three still run. With the senders' reaction point off (cc_rp 0)
# CNPs still come and cut nothing. How fair, how full the link and how
# deep the queue are figures, not checks (they hold only on a host fast
# enough): each run's show as diagnostics here, and `make bench`
# (bench-cc-guest.sh) reports them.
#   scripts/vm-run.sh tests/vm/suites/dumbbell.sh [series]
# ("series": every run's samples as diagnostics, not only a failed one's)
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"
# shellcheck source=tests/vm/lib/dumbbell.bash
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/dumbbell.bash"

LATE_SETTLE=6		# s the late flow gets to converge before its window
show_series=
[ "${1:-}" = series ] && show_series=1

# cc_on_checks NAME I...: the checks of a run with congestion control on,
# in which flows I... ran; the figures over the window in which they all
# ran (fairness, utilisation, queue) are diagnostics.
cc_on_checks() {
	local name=$1 dt jain util rates ce red
	shift
	figures "$@"
	diag "$name: ${dt} s together; Mb/s$rates, Jain $jain, utilisation $util"
	diag "$name: queue max $q B, mean $qm B while they ran together; red: marked ${red[0]} early ${red[1]} pdrop ${red[2]} other ${red[3]} dropped ${red[4]}"
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
[ "$_tap_failed" = "$nfail" ] && [ -z "$show_series" ] || diag "$(series)"

# Three flows, then a fourth 10 s later. The three carry 3 x 590 x 64 KiB,
# 23 s of the link at least: they still run when the fourth starts.
nfail=$_tap_failed
sender_cc line_rate_mbps $LINE4
flows 1:0:590 2:0:590 3:0:590 4:10:300
is "${fail:-none}" none "4 flows, line rate $LINE4 Mb/s, the fourth late: every ib_send_bw pair completes"
# shellcheck disable=SC2046 # two numbers
w=$(window $(awk -v a="$(common 1 2 3 | cut -d' ' -f1)" -v b="${start[4]}" \
	'BEGIN { printf "%.6f %.6f", a, b - 0.5 }') 1 2 3)
read -r dt jain util rates <<<"$w"
diag "3 flows before the fourth: ${dt} s; Mb/s$rates, Jain $jain, utilisation $util"
SETTLE=$LATE_SETTLE cc_on_checks "4 flows" 1 2 3 4
# shellcheck disable=SC2046 # two numbers
w=$(window $(SETTLE=$LATE_SETTLE common 1 2 3 4) 1 2 3 4)
read -r dt jain util r1 r2 r3 r4 <<<"$w"
share=$(awk -v a="${r1:-0}" -v b="${r2:-0}" -v c="${r3:-0}" -v d="${r4:-0}" \
	'BEGIN { s = a + b + c + d; printf "%.2f", (s > 0) ? 4 * d / s : 0 }')
diag "the late flow: ${r4:-0} Mb/s once settled, $share of a quarter"
# Not starved: its first 128 KiB passed before any of the three ended.
first_end=$(awk -v a="${end[1]}" -v b="${end[2]}" -v c="${end[3]}" \
	'BEGIN { m = a; if (b < m) m = b; if (c < m) m = c; print m }')
ok "$(awk -v s="${start[4]}" -v e="$first_end" 'BEGIN { print (s > 0 && e > 0 && s < e) ? 1 : 0 }')" \
	"the late flow gets bytes through while the other three run (it passed 128 KiB at $(rel "${start[4]}") s, the first of them ended at $(rel "$first_end") s)"
[ "$_tap_failed" = "$nfail" ] && [ -z "$show_series" ] || diag "$(series)"

# The two flows again, with the senders' reaction point off: a short run,
# long enough for marks and CNPs (the queue passes red's 6 KB minimum in
# the first milliseconds of 68 Mb/s offered to 40). Its queue and losses
# are figures (make bench: cc off).
nfail=$_tap_failed
sender_cc line_rate_mbps $LINE2
sender_cc rp 0
flows 1:0:100 2:0:100
sender_cc rp 1
diag "2 flows, cc_rp 0: ${fail:-both ib_send_bw pairs complete}"
figures 1 2
diag "2 flows, cc_rp 0: Mb/s$rates, Jain $jain, utilisation $util; queue max $q B, mean $qm B; red: marked ${red[0]} early ${red[1]} pdrop ${red[2]} other ${red[3]} dropped ${red[4]}"
cnp_report 1 2
ok "$(($(delta sroce1 rx_cnp) > 0 && $(delta sroce2 rx_cnp) > 0))" \
	"2 flows, cc_rp 0: CNPs come to both senders ($(delta sroce1 rx_cnp), $(delta sroce2 rx_cnp))"
is "$(delta sroce1 rate_cuts) $(delta sroce2 rate_cuts)" "0 0" "2 flows, cc_rp 0: CNPs come but cut nothing"
[ "$_tap_failed" = "$nfail" ] && [ -z "$show_series" ] || diag "$(series)"

run_ok "the devices deleted" devices_del
run_ok "rmmod sroce" rmmod sroce
done_testing
