#!/bin/bash
# kverbs-sroce.sh: the kernel-consumer RC data test (sroce_test_rc) run
# on sroce, through a DMA MR and an FRMR, as NVMe-oF and RDS use it.
#   scripts/vm-run.sh tests/vm/suites/kverbs-sroce.sh
# No `set -e`: a failed check is a TAP result, not the end of the suite.
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"
# shellcheck source=tests/vm/lib/kverbs.bash
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/kverbs.bash"

kverbs_main sroce
done_testing
