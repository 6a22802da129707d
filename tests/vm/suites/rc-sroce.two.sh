#!/bin/bash
# rc-sroce.two.sh: sroce on both VMs; ibv_rc_pingpong (data checked) at
# sizes 1 B..1 MiB and every path MTU, over IPv4 and IPv6 GIDs, and
# perftest's send/write/read/atomic bandwidth and latency tests, each side
# once server and once client (tests/vm/lib/rc-two.bash).
#   scripts/vm-run.sh --two tests/vm/suites/rc-sroce.two.sh
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"
# shellcheck source=tests/vm/lib/rc-two.bash
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/rc-two.bash"

rc_two_main sroce sroce
run_ok "rmmod sroce" rmmod sroce
done_testing
