#!/bin/bash
# kverbs-rxe.sh: the kernel-consumer RC data test (sroce_test_rc) run
# against the kernel's own rdma_rxe, to validate the test itself.
#   scripts/vm-run.sh tests/vm/suites/kverbs-rxe.sh
# No `set -e`: a failed check is a TAP result, not the end of the suite.
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"
# shellcheck source=tests/vm/lib/kverbs.bash
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/kverbs.bash"

kverbs_main rxe
done_testing
