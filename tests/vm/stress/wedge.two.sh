#!/bin/bash
# wedge.two.sh [ROUNDS]: not a make check suite, a tool: the two-VM
# link's heaviest burst, rc_peer with 1 MiB messages both ways at once,
# ROUNDS times (25) in one boot, the peer pinged before each round
# (link_alive: a dead link bails out and vm-run dumps both NICs' rings).
# Run it with the host's cores busy, as make check SHAKE=1 does:
#   for i in 1 2; do timeout 30m sh -c 'while :; do :; done' & done
#   scripts/vm-run.sh --two --timeout 1200 tests/vm/stress/wedge.two.sh
# It found the transmit wedge of guests booted with "-smp 1" (TCG then
# drops the guest's barriers, scripts/vm-README.md): one run in two
# stopped with NETDEV WATCHDOG within 25 rounds.
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"
# shellcheck source=tests/vm/lib/rc-two.bash
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/rc-two.bash"

rounds=${1:-25}
rc_two_setup sroce sroce
for i in $(seq "$rounds"); do
	link_alive "$SROCE_PEER_IP4" || bail_out "the link is dead before round $i"
	rc_two_both "rc_peer -s 1048576 round $i" /usr/libexec/sroce/rc_peer \
		-d "$dev" -g "$gid4" -s 1048576 -n 3
done
rc_two_end
done_testing
