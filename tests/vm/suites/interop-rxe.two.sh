#!/bin/bash
# interop-rxe.two.sh: sroce on host 1, the kernel's rdma_rxe on host 2:
# the same cases as rc-sroce.two.sh, each side once server and once
# client, IPv4 and IPv6 GIDs. rdma_rxe judges sroce's wire format.
#   scripts/vm-run.sh --two tests/vm/suites/interop-rxe.two.sh
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"
# shellcheck source=tests/vm/lib/rc-two.bash
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/rc-two.bash"

rc_two_main sroce rxe
if [ "$SROCE_HOST" = 1 ]; then
	run_ok "rmmod sroce" rmmod sroce
else
	run_ok "rmmod rdma_rxe" rmmod rdma_rxe
fi
done_testing
