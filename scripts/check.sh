#!/usr/bin/env bash
# `make check`: every build, static check and test. Each step is one TAP
# line in build/results/host.tap; unit and VM suites add their own TAP.
# Ends with "N passed, N failed" over all of them and fails if any failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
res=$top/build/results
rm -rf "$res"
mkdir -p "$res"
host=$res/host.tap
: > "$host"
n=0
start=$(date +%s)

# step NAME CMD...: run CMD, log it, record one TAP line.
step() {
	local name=$1 log
	shift
	n=$((n + 1))
	log=$res/step-$n.log
	echo "== $name"
	if "$@" > "$log" 2>&1; then
		echo "ok $n - $name" | tee -a "$host"
	else
		echo "not ok $n - $name (log: $log)" | tee -a "$host"
		tail -n 30 "$log" | sed 's/^/#   /'
	fi
}

# Any output from sparse or a compiler warning is a failure (the build
# uses -Werror; sparse does not stop the build by itself).
sparse_clean() {
	local kdir=$1 log
	log=$(make -s module KDIR="$kdir" C=2 2>&1) || { echo "$log"; return 1; }
	echo "$log"
	! echo "$log" | grep -E 'warning:|error:' | grep -v 'Skipping BTF'
}

checkpatch() {
	local cp=$top/build/cache/checkpatch/scripts/checkpatch.pl
	"$cp" --strict --no-tree --terse --show-types --quiet \
		--ignore LINUX_VERSION_CODE,FILE_PATH_CHANGES,SPDX_LICENSE_TAG \
		-f drivers/infiniband/sw/sroce/*.[ch] drivers/infiniband/sw/sroce/proto/*.h \
		include/uapi/rdma/sroce-abi.h tests/kmod/*.c
}

# vm_suite FILE KVER STAGE [two]: one VM boot (two VMs joined by a link
# for *.two.sh or with "two") runs the suite.
vm_suite() {
	local t=$1 kver=$2 stage=$3 name opts=()
	name=$(basename "$t" .sh)-$kver
	case $t in *.two.sh) opts+=(--two) ;; esac
	if [ "${4:-}" = two ]; then
		opts+=(--two)
		name=$name-two
	fi
	echo "== vm suite $name"
	if scripts/vm-run.sh "${opts[@]}" --kver "$kver" --stage "$stage" \
		--log "$res/vm-$name.log" "$t" > "$res/vm-$name.out" 2>&1; then
		echo "ok - vm suite $name: VM ran clean" > "$res/vm-$name.harness.tap"
	else
		echo "not ok - vm suite $name: VM run failed (see $res/vm-$name.out)" \
			> "$res/vm-$name.harness.tap"
		tail -n 40 "$res/vm-$name.out" | sed 's/^/#   /'
	fi
	grep -E '^(\[h[12]\] )?(not )?ok ' "$res/vm-$name.out" |
		sed -E 's/^\[h[12]\] //' > "$res/vm-$name.tap" || true
	grep -E '^not ok' "$res/vm-$name.tap" | sed 's/^/#   /' || true
	cat "$res/vm-$name.harness.tap"
	tail -n 1 "$res/vm-$name.out"
}

step "dependencies installed (make deps)" scripts/deps.sh
k61=$(scripts/kver.sh 6.1)
k612=$(scripts/kver.sh 6.12)
step "module builds against $k61 with -Werror" make -s module KDIR=/lib/modules/$k61/build
step "module builds against $k612 with -Werror" make -s module KDIR=/lib/modules/$k612/build
step "sparse clean on $k61" sparse_clean /lib/modules/$k61/build
step "sparse clean on $k612" sparse_clean /lib/modules/$k612/build
step "checkpatch --strict clean" checkpatch
step "test module builds" make -s test-kmod KDIR=/lib/modules/$k61/build
step "provider builds against rdma-core 56.1, links to system libibverbs" make -s provider
step "test programs build" make -s progs
step "install into a DESTDIR ($k61)" make -s stage KDIR=/lib/modules/$k61/build
step "install into a DESTDIR ($k612)" make -s stage KDIR=/lib/modules/$k612/build \
	STAGE="$top/build/stage-$k612"
step "dkms builds the module for $k612" scripts/dkms-check.sh "$k612"

echo "== unit tests"
make -s -C tests/unit run > "$res/unit.tap" 2>&1
grep -E '^not ok' "$res/unit.tap" | sed 's/^/#   /'
grep -q '^1\.\.' "$res/unit.tap" || echo "not ok - unit tests did not finish" >> "$res/unit.tap"

echo "== fuzz smoke"
make -s -C tests/fuzz smoke > "$res/fuzz.tap" 2>&1
grep -E '^(not )?ok' "$res/fuzz.tap"
grep -qE '^(not )?ok' "$res/fuzz.tap" || echo "not ok - fuzz smoke did not run" >> "$res/fuzz.tap"

# The harness itself, with rdma_rxe, across two VMs; every suite on 6.1;
# the lifecycle suite on 6.12 too.
vm_suite tests/vm/harness-selftest.sh "$k61" "$top/build/stage" two

for t in tests/vm/*.sh; do
	case $(basename "$t") in lib.sh|roce.sh|harness-selftest.sh|bench-guest.sh|bench-loss-guest.sh) continue ;; esac
	vm_suite "$t" "$k61" "$top/build/stage"
done
vm_suite tests/vm/lifecycle.sh "$k612" "$top/build/stage-$k612"

pass=$(cat "$res"/*.tap | grep -Ec '^ok ' || true)
skip=$(cat "$res"/*.tap | grep -Ec '^ok .*# SKIP' || true)
fail=$(cat "$res"/*.tap | grep -Ec '^not ok ' || true)
pass=$((pass - skip))
echo "make check: $(( $(date +%s) - start )) s wall"
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
