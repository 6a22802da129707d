#!/bin/bash
# Completion queues from userspace (libsroce's mapped rings) and from a
# kernel consumer, then removal with CQs still open.
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"
ND=${SROCE_NETDEV:-eth0}

run_ok "rdma link add s0" rdma link add s0 type sroce netdev "$ND"
run_ok "cq_test: sizes, limits, arming, channels, resize, 1000 CQs" \
	/usr/libexec/sroce/cq_test s0
run_ok "kernel consumer: PDs and a CQ" modprobe sroce_test_kverbs dev=s0
rmmod sroce_test_kverbs 2>/dev/null

# A process that holds CQs (and their mappings) while the device goes.
/usr/libexec/sroce/cq_hold s0 > /tmp/hold 2>&1 &
holder=$!
for _ in $(seq 50); do grep -q ready /tmp/hold && break; sleep 0.1; done
run_ok "a holder has CQs mapped" grep -q ready /tmp/hold
run_ok "rdma link delete with mapped CQs completes" timeout 30 rdma link delete s0
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
run_ok "rmmod sroce" rmmod sroce
done_testing
