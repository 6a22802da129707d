#!/usr/bin/env bash
# `make check`: every build, static check and test. Each step is one TAP
# line in build/results/host.tap; unit and VM suites add their own TAP.
# Ends with "N passed, N failed" over all of them and fails if any failed.
# SHAKE=1 (make check SHAKE=1): the whole run under a CPU hog, one busy
# loop per host core at normal priority, so a check that holds only on
# an idle machine shows itself. The hog stops when the run ends, however
# it ends, and after 2 hours in any case.
# --list: run nothing, print the VM runs the same environment would make
# (one line each: vm-run.sh's options, the suite, its arguments), in order.
set -uo pipefail

list=0
case ${1:-} in
--list) list=1 ;;
'') ;;
*) echo "usage: scripts/check.sh [--list]" >&2; exit 2 ;;
esac

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
res=$top/build/results
if [ $list = 1 ]; then
	# Results and logs of a real run stay as they are.
	res=$(mktemp -d)
	trap 'rm -rf "$res"' EXIT
else
	rm -rf "$res"
fi
mkdir -p "$res"
host=$res/host.tap
: > "$host"
n=0
start=$(date +%s)

shake_pids=()
shake_stop() {
	local p
	for p in "${shake_pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	shake_pids=()
}
if [ $list = 1 ]; then
	:
elif [ "${SHAKE:-0}" = 1 ]; then
	trap shake_stop EXIT
	trap 'shake_stop; exit 130' INT
	trap 'shake_stop; exit 143' TERM
	for _ in $(seq "$(nproc)"); do
		timeout 2h sh -c 'while :; do :; done' &
		shake_pids+=($!)
	done
	echo "== shake is on: ${#shake_pids[@]} busy loops (one per core, 2 h at most) for the whole run"
elif [ "${SHAKE:-0}" != 0 ]; then
	echo "SHAKE=$SHAKE: 1 or 0 only" >&2
	exit 2
fi
case ${DEBUG_KERNEL:-0} in
0 | 1 | full) ;;
*) echo "DEBUG_KERNEL=$DEBUG_KERNEL: 0, 1 or full only" >&2; exit 2 ;;
esac

# step NAME CMD...: run CMD, log it, record one TAP line.
step() {
	local name=$1 log t0
	shift
	[ $list = 0 ] || return 0
	n=$((n + 1))
	log=$res/step-$n.log
	echo "== $name"
	t0=$(date +%s)
	if "$@" > "$log" 2>&1; then
		echo "ok $n - $name" | tee -a "$host"
	else
		echo "not ok $n - $name (log: $log)" | tee -a "$host"
		tail -n 30 "$log" | sed 's/^/#   /'
	fi
	# Where CI's minutes go, step by step (the VM runs say their own).
	echo "# step $n took $(( $(date +%s) - t0 )) s"
}

# Any output from sparse or a compiler warning is a failure (the build
# uses -Werror; sparse does not stop the build by itself).
sparse_clean() {
	local kdir=$1 log
	log=$(make -s "$j" module KDIR="$kdir" C=2 2>&1) || { echo "$log"; return 1; }
	echo "$log"
	! echo "$log" | grep -E 'warning:|error:' | grep -v 'Skipping BTF'
}

checkpatch() {
	local cp=${SROCE_CACHE:-$top/build/cache}/checkpatch/scripts/checkpatch.pl
	"$cp" --strict --no-tree --terse --show-types --quiet \
		--ignore LINUX_VERSION_CODE,FILE_PATH_CHANGES,SPDX_LICENSE_TAG \
		-f drivers/infiniband/sw/sroce/*.[ch] drivers/infiniband/sw/sroce/*/*.[ch] \
		include/uapi/rdma/sroce-abi.h tests/kmod/*.c
}

# failures OUT: each "not ok" line of a suite's console, and for a real
# failure (not a TODO) the diagnostics under it, so the CI log says why a
# check failed; a two-VM console's lines are followed per host.
failures() {
	awk '{
		h = ""; l = $0
		if (match(l, /^\[h[12]\] /)) { h = substr(l, 1, RLENGTH); l = substr(l, RLENGTH + 1) }
		if (l ~ /^not ok/) {
			print "#   " h l
			left[h] = (l ~ /#[ \t]*[Tt][Oo][Dd][Oo]/) ? 0 : 25
		} else if (left[h] > 0) {
			if (l ~ /^#/) { print "#     " h l; left[h]-- } else left[h] = 0
		}
	}' "$1"
}

# vm_suite ENTRY KVER STAGE: one VM boot (two VMs joined by a link for a
# suite in TEST_PROGS_TWO_VM) runs the suite. ENTRY is a suite's entry in
# tests/vm/suites/Makefile, FILE or FILE:ARG[:ARG...]. vm_opts (more
# vm-run.sh options) apply when set.
vm_opts=()
vm_suite() {
	local kver=$2 stage=$3 t name words vm_args opts=()
	IFS=: read -ra words <<<"$1"
	t=tests/vm/suites/${words[0]}
	vm_args=("${words[@]:1}")
	name=$(basename "$t" .sh)-$kver
	if [[ " ${two_vm[*]} " == *" ${words[0]} "* ]]; then
		opts+=(--two)
		# A suite that also runs on one VM says which it was.
		case $t in *.two.sh) ;; *) name=$name-two ;; esac
	fi
	if [ $list = 1 ]; then
		echo "$name:" ${SROCE_VM_SLUB_DEBUG+"SROCE_VM_SLUB_DEBUG='$SROCE_VM_SLUB_DEBUG'"} \
			"${opts[@]}" ${vm_opts[@]+"${vm_opts[@]}"} --kver "$kver" \
				--stage "${stage#"$top"/}" "$t" ${vm_args[@]+"${vm_args[@]}"}
		return
	fi
	echo "== vm suite $name"
	local out=$res/vm-$name.out st=0 failed vmfault
	scripts/vm-run.sh "${opts[@]}" ${vm_opts[@]+"${vm_opts[@]}"} --kver "$kver" \
		--stage "$stage" --log "$res/vm-$name.log" "$t" \
		${vm_args[@]+"${vm_args[@]}"} > "$out" 2>&1 || st=$?
	grep -E '^(\[h[12]\] )?(not )?ok ' "$out" |
		sed -E 's/^\[h[12]\] //' > "$res/vm-$name.tap" || true
	failures "$out"
	# One more result for the VM run itself: it fails for what no check
	# of the suite counted (a dirty dmesg, a crash, a timeout, a suite
	# that stopped early), not again for a check that failed.
	failed=$(grep -E '^not ok' "$res/vm-$name.tap" | grep -vEc '#[[:space:]]*[Tt][Oo][Dd][Oo]' || true)
	vmfault=$(grep -E '^vm-run: ' "$out" | grep -vE 'test failed with status|: PASS$|FAIL \(|booting again' || true)
	if [ $st = 0 ]; then
		echo "ok - vm suite $name: VM ran clean"
	elif [ -z "$vmfault" ] && [ "$failed" -gt 0 ]; then
		echo "ok - vm suite $name: VM ran clean (the suite's $failed failed checks are counted above)"
	else
		echo "not ok - vm suite $name: VM run failed (see $out)"
		tail -n 40 "$out" | sed 's/^/#   /'
	fi > "$res/vm-$name.harness.tap"
	# A boot that failed before /init and went again is said, not hidden.
	grep -E '^vm-run: .*(boot failure|boot hang)' "$out" |
		sed 's/^/# booted again after: /' >> "$res/vm-$name.harness.tap" || true
	cat "$res/vm-$name.harness.tap"
	tail -n 1 "$out"
}

step "dependencies installed (make deps)" scripts/deps.sh
# The debug pass's kernel builds meanwhile, at the lowest priority: it
# takes the CPU the VMs leave idle (their guests wait, boot, sleep), not
# theirs. setsid gives it a session, and with it a scheduler autogroup of
# its own, which the scheduler would share the CPU with equally whatever
# its tasks' nice value: the autogroup is niced too.
dk_pid=''
if [ "${DEBUG_KERNEL:-0}" != 0 ] && [ $list = 0 ]; then
	setsid bash -c 'echo 19 >/proc/self/autogroup 2>/dev/null
		exec nice -n 19 scripts/debug-kernel.sh' > "$res/debug-kernel.log" 2>&1 &
	dk_pid=$!
	# Its own process group: a run that ends early stops all its makes.
	trap 'shake_stop; kill -- -"$dk_pid" 2>/dev/null' EXIT
fi
k61=$(scripts/kver.sh 6.1)
k612=$(scripts/kver.sh 6.12)
# The host's builds take every core: the VMs run only after them.
j=-j$(nproc)
step "module builds against $k61 with -Werror" make -s "$j" module KDIR=/lib/modules/$k61/build
step "module builds against $k612 with -Werror" make -s "$j" module KDIR=/lib/modules/$k612/build
step "sparse clean on $k61" sparse_clean /lib/modules/$k61/build
step "sparse clean on $k612" sparse_clean /lib/modules/$k612/build
step "checkpatch --strict clean" checkpatch
step "calls go down the layer table, no cycle (scripts/callgraph.sh --strict)" scripts/callgraph.sh --strict
step "docs name only what exists (scripts/docs-check.sh)" scripts/docs-check.sh
step "call-graph page is scripts/callgraph.sh --doc (scripts/docs-check.sh --graph)" \
	scripts/docs-check.sh --graph
step "test module builds" make -s "$j" test-kmod KDIR=/lib/modules/$k61/build
step "provider builds in rdma-core 56.1, needs only what system libibverbs has" make -s provider
step "test programs build" make -s "$j" progs
step "install into a DESTDIR ($k61)" make -s "$j" stage KDIR=/lib/modules/$k61/build
step "install into a DESTDIR ($k612)" make -s "$j" stage KDIR=/lib/modules/$k612/build \
	STAGE="$top/build/stage-$k612"
step "dkms builds the module for $k612" scripts/dkms-check.sh "$k612"
step "in-tree build (linux-source-6.1)" scripts/intree-build.sh

# unit_tests: each host test binary's TAP as it is, plus one failure
# when a binary did not end the way its results say (a crash or an ASan
# abort: no plan, a short plan, or a non-zero exit with no failed check).
unit_tests() {
	local t out st n plan
	make -s -C tests/unit all OUT="$top/build/unit" ||
		{ echo "not ok - unit tests build"; return; }
	for t in "$top"/build/unit/test_*; do
		out=$("$t" 2>&1)
		st=$?
		printf '%s\n' "$out"
		n=$(grep -cE '^(not )?ok ' <<<"$out")
		plan=$(sed -n 's/^1\.\.\([0-9]*\).*/\1/p' <<<"$out" | tail -n 1)
		if [ "$plan" != "$n" ]; then
			echo "not ok - $(basename "$t"): plan ${plan:-missing}, $n results (exit $st)"
		elif [ "$st" != 0 ] && ! grep -q '^not ok' <<<"$out"; then
			echo "not ok - $(basename "$t") exited with status $st after all its checks passed"
		fi
	done
}

if [ $list = 0 ]; then
	echo "== unit tests"
	unit_tests > "$res/unit.tap" 2>&1
	grep -E '^not ok' "$res/unit.tap" | sed 's/^/#   /'
	grep -q '^ok ' "$res/unit.tap" || echo "not ok - unit tests did not run" >> "$res/unit.tap"

	echo "== fuzz smoke"
	make -s -C tests/fuzz smoke > "$res/fuzz.tap" 2>&1
	grep -E '^(not )?ok' "$res/fuzz.tap"
	grep -qE '^(not )?ok' "$res/fuzz.tap" || echo "not ok - fuzz smoke did not run" >> "$res/fuzz.tap"
fi

# The VM suites are declared where they live, kselftest-style: the
# Makefile in tests/vm/suites lists which run here, in which order, on
# which kernel, across two VMs; the one in tests/vm/stress those run
# only by hand. decl ARRAY DIR VAR: VAR of tests/vm/DIR/Makefile.
decl() {
	local out
	out=$(make -s --no-print-directory -C "tests/vm/$2" "print-$3") || return 1
	read -ra "$1" <<<"$out"
}
if decl suites suites TEST_PROGS && decl two_vm suites TEST_PROGS_TWO_VM &&
	decl suites612 suites TEST_PROGS_612 && decl only612 suites TEST_PROGS_612_ONLY &&
	decl debug suites TEST_PROGS_DEBUG && decl debug_full suites TEST_PROGS_DEBUG_FULL &&
	decl extended suites TEST_PROGS_EXTENDED &&
	decl stress stress TEST_PROGS_EXTENDED; then
	echo "ok - the VM suites' declarations read (tests/vm/{suites,stress}/Makefile)" >> "$host"
else
	echo "not ok - the VM suites' declarations do not read (tests/vm/{suites,stress}/Makefile)" |
		tee -a "$host"
	suites=() two_vm=() suites612=() only612=() debug=() debug_full=() extended=() stress=()
fi
# Each file in suites/ and stress/ is declared there, each entry is a
# file, and the other folders hold what is not a suite: lib (sourced),
# bench (make bench, make profile), prog (C programs).
stray=()
declared=" ${suites[*]%%:*} ${only612[*]%%:*} ${extended[*]%%:*} "
for t in tests/vm/suites/* tests/vm/stress/* tests/vm/*; do
	[ -d "$t" ] || [ "${t##*/}" = Makefile ] && continue
	case $t in
	tests/vm/suites/*) [[ $declared == *" ${t##*/} "* ]] && continue ;;
	tests/vm/stress/*) [[ " ${stress[*]} " == *" ${t##*/} "* ]] && continue ;;
	esac
	stray+=("${t#tests/vm/}")
done
for e in "${suites[@]}" "${two_vm[@]}" "${suites612[@]}" "${only612[@]}" "${debug[@]}" \
	"${debug_full[@]}" ${extended[@]+"${extended[@]}"}; do
	[ -f "tests/vm/suites/${e%%:*}" ] || stray+=("suites/${e%%:*} (declared, no such file)")
done
for e in ${stress[@]+"${stress[@]}"}; do
	[ -f "tests/vm/stress/$e" ] || stray+=("stress/$e (declared, no such file)")
done
if [ ${#stray[@]} = 0 ]; then
	echo "ok - every suite in tests/vm is declared, every declared suite exists" >> "$host"
else
	echo "not ok - tests/vm: undeclared suites or loose files: ${stray[*]}" | tee -a "$host"
fi

# Every suite on 6.1; then on 6.12 those that run there too and those
# that run there only.
for e in ${suites[@]+"${suites[@]}"}; do
	vm_suite "$e" "$k61" "$top/build/stage"
done
for e in ${suites612[@]+"${suites612[@]}"} ${only612[@]+"${only612[@]}"}; do
	vm_suite "$e" "$k612" "$top/build/stage-$k612"
done

# The debug pass (DEBUG_KERNEL=1, by hand): core suites on a kernel
# with KASAN, lockdep, kmemleak, CSD lock and list debugging, built from
# Debian's linux-source-6.1 (scripts/debug-kernel.sh, cached outside the
# tree), and the random-verbs generator; DEBUG_KERNEL=full (by hand) runs
# the rest of the core on it too (tests/vm/suites/Makefile). Slower under
# the debug options, so each run gets more time.
if [ "${DEBUG_KERNEL:-0}" != 0 ]; then
	dstart=$(date +%s)
	kdbg=''
	dk_wait() { wait "$dk_pid" && cat "$res/debug-kernel.log"; }
	step "debug kernel built (scripts/debug-kernel.sh)" dk_wait
	kdbg=$(scripts/debug-kernel.sh --print 2>/dev/null) || kdbg=''
	# --list before the kernel is built lists the pass all the same.
	[ -n "$kdbg" ] || [ $list = 0 ] || kdbg=DEBUG_KERNEL
	if [ -n "$kdbg" ]; then
		step "module builds against $kdbg with -Werror" make -s module KDIR=/lib/modules/$kdbg/build
		step "install into a DESTDIR ($kdbg)" make -s stage KDIR=/lib/modules/$kdbg/build \
			STAGE="$top/build/stage-debug"
		# KASAN watches every cache: SLUB's own debugging would only
		# slow the runs further.
		export SROCE_VM_SLUB_DEBUG=''
		vm_opts=(--timeout 1500)
		# full: a suite in both lists runs once, as the full list has it.
		[ "$DEBUG_KERNEL" = full ] || debug_full=()
		for e in ${debug[@]+"${debug[@]}"}; do
			[[ " ${debug_full[*]%%:*} " == *" ${e%%:*} "* ]] ||
				vm_suite "$e" "$kdbg" "$top/build/stage-debug"
		done
		for e in ${debug_full[@]+"${debug_full[@]}"}; do
			vm_suite "$e" "$kdbg" "$top/build/stage-debug"
		done
		vm_opts=()
		unset SROCE_VM_SLUB_DEBUG
	fi
	[ $list = 1 ] || echo "debug pass: $(( $(date +%s) - dstart )) s wall"
fi

[ $list = 0 ] || exit 0
echo "make check: $(( $(date +%s) - start )) s wall"
# Each check counted once; SKIP, not built and known peer deviations apart.
summary=$(scripts/tap-count.sh "$res"/*.tap)
echo "$summary"
tail -n 1 <<<"$summary" | grep -qE '^[1-9][0-9]* passed, 0 failed' 
