#!/bin/bash
# verbs-fuzz.sh [SECONDS]: random verbs (verbs_fuzz) from four processes
# for SECONDS (60 by default; the debug pass runs 600): create, modify
# and destroy every object, post every opcode with real and made-up keys,
# resize, re-register, deregister in use, fork and exit mid-traffic.
# Every episode must end by itself, every clean-up destroy succeed, and
# afterwards the device holds what it held before (rdma resource), works,
# and goes away with its module (nothing holds a reference).
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"

secs=${1:-60}
veth_device sx
gid=$(gid_index sx 10.99.0.1) || gid=0
# The device's line of `rdma resource show`: pd, cq, qp, cm_id, mr, ctx,
# srq counts.
res() { rdma resource show | grep ' sx:' | sed 's/^[0-9]*: //'; }
before=$(res)
diag "before: $before"
seed=$RANDOM
timeout $((secs + 300)) /usr/libexec/sroce/verbs_fuzz sx "$gid" "$secs" 4 "$seed" >/tmp/fuzz.log 2>&1
is "$?" 0 "4 processes of random verbs for $secs s (seed $seed): every episode ends by itself, every clean-up destroy succeeds" ||
	diag "$(grep -v '^worker' /tmp/fuzz.log | head -20)"
diag "$(grep -E '^(worker|all)' /tmp/fuzz.log)"
# The generator did what it is there for: sends on QPs in RTS that
# completed (its pairs carry traffic), not only refused calls.
ok "$(awk '/^all:/ { print ($6 > 0 && $9 > 0) ? 1 : 0 }' /tmp/fuzz.log)" \
	"... QPs reached RTS and work completed"
# A process of it that died of a signal: where (the kernel's line).
faults=$(dmesg | grep -E 'verbs_fuzz\[[0-9]+\]: segfault|traps: verbs_fuzz' | head -5)
[ -z "$faults" ] || diag "$faults"
# Processes are gone; the core releases what they held as their files
# close. Wait for that, with a deadline.
for _ in $(seq 600); do
	[ "$(res)" = "$before" ] && break
	sleep 0.1
done
is "$(res)" "$before" "the device holds what it held before (rdma resource)"
rping_ok 10.99.0.1 10 "the RDMA CM connects and moves verified data afterwards (rping -V)"
run_ok "rdma link delete sx" rdma link delete sx
run_ok "rmmod sroce: nothing holds a reference" rmmod sroce
done_testing
