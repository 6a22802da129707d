#!/bin/bash
# rc-sroce-netem.two.sh: rc-sroce.two.sh's cases with both VMs' links
# losing 1%, duplicating 1% and reordering packets (tc netem): every
# message still arrives intact (ibv_rc_pingpong -c checks the data) and
# every perftest run completes, through sroce's go-back-N recovery.
#   scripts/vm-run.sh --two tests/vm/suites/rc-sroce-netem.two.sh
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"
# shellcheck source=tests/vm/lib/rc-two.bash
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/rc-two.bash"

# Under loss the smallest and largest path MTU only: every MTU runs on
# the clean link (interop-rxe.two.sh, rc-sroce.two.sh), and make check's
# time is better spent on the loss cases.
rc_two_mtus="256 4096"
rc_two_main sroce sroce netem delay 1ms reorder 95% 50% loss 1% duplicate 1%
run_ok "rmmod sroce" rmmod sroce
done_testing
