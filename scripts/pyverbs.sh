#!/usr/bin/env bash
# `make pyverbs`: rdma-core's Python test suite (pyverbs, Debian's
# python3-pyverbs) on sroce and on rdma_rxe in one VM boot on Debian's
# 6.12 kernel (tests/vm/suites/pyverbs.sh). Prints the suite's TAP, then
# one line per device:
#   pyverbs <dev>: ran N passed P skipped S failures F errors E
# and exits non-zero when sroce failed or erred on any test.
# Environment: PYVERBS_TIMEOUT (seconds for the boot, 5400).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
k=$("$top/scripts/kver.sh" 6.12)
stage=$top/build/stage-$k
log=$top/build/pyverbs.log

make -s -C "$top" module test-kmod KDIR="/lib/modules/$k/build"
make -s -C "$top" provider progs
make -s -C "$top" stage KDIR="/lib/modules/$k/build" STAGE="$stage"
st=0
"$top/scripts/vm-run.sh" --kver "$k" --timeout "${PYVERBS_TIMEOUT:-5400}" \
	--stage "$stage" --log "$log" "$top/tests/vm/suites/pyverbs.sh" || st=$?
sed -n 's/^# PYVERBS \([^ ]*\) /pyverbs \1: /p' "$log"
exit "$st"
