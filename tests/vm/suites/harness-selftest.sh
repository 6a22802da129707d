#!/bin/bash
# harness-selftest.sh: proves the VM harness itself works, with the kernel's
# own rdma_rxe (no sroce code involved): modules load, a RoCE device comes
# up on eth0, verbs traffic flows on one host, netem is available, and in
# two-VM mode (SROCE_PEER_IP4 set) RC traffic crosses the link.
#   scripts/vm-run.sh tests/vm/suites/harness-selftest.sh
#   scripts/vm-run.sh --two tests/vm/suites/harness-selftest.sh
# No `set -e`: a failed check is a TAP result, not the end of the suite.
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"

dev=rxe0
# Distinct ports: the peer's client must never reach the local test's
# server, and reaching h1's cross-VM server proves h1 is past its pings.
port=18515
xport=18516


two=0
: "${SROCE_PEER_IP6:=}"
[ -n "${SROCE_PEER_IP4:-}" ] && two=1
if [ $two = 1 ]; then plan 19; else plan 16; fi

diag "host $SROCE_HOST, kernel $KVER, args: $*"
is "$SROCE_NETDEV" eth0 "SROCE_NETDEV is eth0"
ok "$([ -n "$SROCE_IP4" ] && ip -4 addr show dev eth0 | grep -qF " $SROCE_IP4/" && echo 1 || echo 0)" \
	"eth0 carries SROCE_IP4 ($SROCE_IP4)"
run_ok "modprobe rdma_rxe" modprobe rdma_rxe
run_ok "rdma link add $dev on eth0" rdma link add "$dev" type rxe netdev eth0
ok "$(ibv_devices | grep -cw "$dev")" "ibv_devices lists $dev"

gid=$(gid_index "$dev" "$SROCE_IP4") || gid=
ok "$([ -n "$gid" ] && echo 1 || echo 0)" "RoCE v2 GID for $SROCE_IP4 (index ${gid:-none})"

# One device, loopback: server and client are the same rxe0 (the TCP side
# channel goes over lo).
timeout 60 ibv_rc_pingpong -d "$dev" -g "${gid:-0}" -n 5 -c -p $port >/tmp/srv.log 2>&1 &
srv=$!
run_ok "ibv_rc_pingpong -c on one host (client)" \
	retry 10 timeout 30 ibv_rc_pingpong -d "$dev" -g "${gid:-0}" -n 5 -c -p $port 127.0.0.1
wait $srv
st=$?
ok "$((st == 0))" "ibv_rc_pingpong -c on one host (server)" || diag "$(cat /tmp/srv.log)"

# tap_merge (lib.sh) counts a program's checks once each and flags a
# program that did not end the way its checks say; its output is captured
# here, so its deliberate failures are not this suite's.
out=$(tap_merge fake bash -c 'echo "ok 1 - a"; echo "not ok 2 - b # TODO known"; echo "1..2"')
is "$(grep -cE '^(not )?ok ' <<<"$out")" 2 "tap_merge: a clean program's checks, once each"
out=$(tap_merge fake bash -c 'echo "ok 1 - a"; echo "1..2"')
ok "$(grep -c 'planned 2 checks but printed 1' <<<"$out")" "tap_merge: a short plan is a failure"
out=$(tap_merge fake bash -c 'echo "ok 1 - a"; echo "1..1"; kill -SEGV $$')
ok "$(grep -c 'exited with status 139 after all its checks passed' <<<"$out")" \
	"tap_merge: a crash after the last check is a failure"

run_ok "tc netem loss 1% on eth0" tc qdisc add dev eth0 root netem loss 1%
ok "$(tc qdisc show dev eth0 | grep -c 'netem.*loss 1%')" "netem qdisc is in place"
run_ok "netem removed" tc qdisc del dev eth0 root

if [ $two = 1 ]; then
	# Both guests boot at about the same time, but not exactly.
	run_ok "peer $SROCE_PEER_IP4 answers ping" retry 30 ping -c 1 -W 1 "$SROCE_PEER_IP4"
	run_ok "peer $SROCE_PEER_IP6 answers ping" retry 10 ping -6 -c 1 -W 1 "$SROCE_PEER_IP6"
	# h1 serves, h2 connects (and retries until h1's server listens).
	if [ "$SROCE_HOST" = 1 ]; then
		run_ok "ibv_rc_pingpong -c across VMs (server)" \
			timeout 120 ibv_rc_pingpong -d "$dev" -g "${gid:-0}" -n 5 -c -p $xport
	else
		run_ok "ibv_rc_pingpong -c across VMs (client)" \
			retry 60 timeout 30 ibv_rc_pingpong -d "$dev" -g "${gid:-0}" -n 5 -c -p $xport "$SROCE_PEER_IP4"
	fi
fi

run_ok "rdma link delete $dev" rdma link delete "$dev"
run_ok "rmmod rdma_rxe" rmmod rdma_rxe
