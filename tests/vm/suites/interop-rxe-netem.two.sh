#!/bin/bash
# interop-rxe-netem.two.sh: interop-rxe.two.sh under 1% loss on both
# links: each side's retransmissions must satisfy the other's responder
# (sroce on host 1, rdma_rxe on 2). Loss only: with duplication and
# reordering too, rdma_rxe (6.1) now and then stalls a connection on its
# own side (see Documentation/rxe-differences.rst); sroce against sroce
# runs with all three (rc-sroce-netem.two.sh). For the same reason the
# messages stop at 64 KiB here: rc_peer's 1 MiB writes and reads in both
# directions at once made rdma_rxe's requester stall for good about once
# in eight runs (no completion, then a WARNING in rxe_destroy_qp).
#   scripts/vm-run.sh --two tests/vm/suites/interop-rxe-netem.two.sh
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"
# shellcheck source=tests/vm/lib/rc-two.bash
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/rc-two.bash"

rc_two_sizes="1 1000 4096 65536"
# Under loss the smallest and largest path MTU only: every MTU runs on
# the clean link (interop-rxe.two.sh, rc-sroce.two.sh), and make check's
# time is better spent on the loss cases.
rc_two_mtus="256 4096"
rc_two_main sroce rxe netem loss 1%
if [ "$SROCE_HOST" = 1 ]; then
	run_ok "rmmod sroce" rmmod sroce
else
	run_ok "rmmod rdma_rxe" rmmod rdma_rxe
fi
done_testing
