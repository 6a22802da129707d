#!/bin/bash
# vm-image: py
# rdma-core's own Python test suite (pyverbs, as Debian ships it with
# python3-pyverbs) on sroce0 and on rdma_rxe's rxe0, one after the other
# in the same boot, each on eth0. Per device it prints what unittest
# counted:
#   # PYVERBS <dev> ran N passed P skipped S failures F errors E
# and each test that failed or erred. sroce must fail none and err none;
# rdma_rxe's figures are the yardstick, not a check (its failures are
# the peer's). make check runs it on 6.12; make pyverbs runs it alone.
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/roce.sh"
tests=/usr/share/doc/rdma-core/tests

# run_suite DEV: unittest's verbose log of the whole suite on DEV in
# /tmp/pyverbs-DEV.log; its exit status is unittest's.
run_suite() {
	(cd "$tests" && timeout 2400 python3 run_tests.py --dev "$1" -v) \
		>"/tmp/pyverbs-$1.log" 2>&1
}

# counts DEV: the summary of DEV's log as "ran passed skipped failures
# errors", from unittest's last lines ("Ran N tests", then "OK" or
# "FAILED", with their (name=count, ...) list); empty when there is none.
counts() {
	awk '/^Ran [0-9]+ tests? in / { ran = $2 }
		/^(OK|FAILED)/ {
			res = $0
			for (k in c) delete c[k]
			n = split(res, w, /[(), ]+/)
			for (i = 1; i <= n; i++)
				if (split(w[i], kv, "=") == 2) c[kv[1]] = kv[2]
		}
		END {
			if (ran == "" || res == "") exit
			f = c["failures"] + 0; e = c["errors"] + 0; s = c["skipped"] + 0
			x = c["expected failures"] + c["unexpected successes"]
			print ran, ran - f - e - s - x, s, f, e
		}' "/tmp/pyverbs-$1.log"
}

# report DEV: the counts as a diagnostic line, each failed or erred test
# by name, and the skips counted by their reason (what the device lacks,
# or a vendor's tests).
report() {
	local r p s f e
	read -r r p s f e <<<"$(counts "$1")"
	diag "PYVERBS $1 ran ${r:-?} passed ${p:-?} skipped ${s:-?} failures ${f:-?} errors ${e:-?}"
	grep -E '^(FAIL|ERROR): ' "/tmp/pyverbs-$1.log" | sed "s/^/$1 /" | while read -r l; do
		diag "$l"
	done
	sed -n "s/.* (tests\.\([a-z0-9_]*\)\..*) \.\.\. skipped '\(.*\)'\$/\1: \2/p" \
		"/tmp/pyverbs-$1.log" | cut -c1-110 |
		sort | uniq -c | sort -rn | while read -r l; do
		diag "$1 skipped $l"
	done
}

# The MR tests over huge pages skip without a pool of 2 MiB pages.
echo 128 >/proc/sys/vm/nr_hugepages
ok "$(cat /proc/sys/vm/nr_hugepages)" "2 MiB huge pages allocated for the MR tests"

modprobe sroce
run_ok "rdma link add sroce0" rdma link add sroce0 type sroce netdev eth0
ok "gid_index sroce0 $SROCE_IP4 >/dev/null" "sroce0 has a RoCE v2 GID for $SROCE_IP4"
run_suite sroce0
st=$?
report sroce0
c=$(counts sroce0)
ok "$((${#c} > 0))" "pyverbs on sroce0 ran to its summary (unittest exit $st)"
read -r _ passed _ fails errs <<<"${c:-0 0 0 1 1}"
ok "$((passed > 0))" "pyverbs on sroce0: tests passed ($passed)"
is "$fails $errs" "0 0" "pyverbs on sroce0: no failure, no error"
rdma link delete sroce0
rmmod sroce

modprobe rdma_rxe
run_ok "rdma link add rxe0" rdma link add rxe0 type rxe netdev eth0
run_suite rxe0
report rxe0
c=$(counts rxe0)
ok "$((${#c} > 0))" "pyverbs on rxe0 ran to its summary"
rdma link delete rxe0
rmmod rdma_rxe
done_testing
