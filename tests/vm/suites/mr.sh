#!/bin/bash
# Memory registration: libsroce's reg/rereg/dereg through libibverbs, a
# kernel consumer's fast-reg MRs and global-rkey PD, then removal of the
# device under a process that still holds MRs.
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"
ND=${SROCE_NETDEV:-eth0}

run_ok "rdma link add s0" rdma link add s0 type sroce netdev "$ND"
run_ok "mr_test: access flags, sizes, refusals, keys, rereg, 1000 MRs" \
	/usr/libexec/sroce/mr_test s0
run_ok "kernel consumer: PDs, a CQ, fast-reg MRs, global rkey, UD, multicast" \
	modprobe sroce_test_kverbs dev=s0
rmmod sroce_test_kverbs 2>/dev/null
# Its multicast QPs detached: the netdev left their group.
is "$(ip maddr show dev "$ND" | grep -c 239.9.9.9)" 0 \
	"the kernel consumer's multicast group is left"

/usr/libexec/sroce/mr_test s0 hold > /tmp/hold 2>&1 &
holder=$!
for _ in $(seq 100); do grep -q ready /tmp/hold && break; sleep 0.1; done
run_ok "a holder has 100 MRs registered" grep -q ready /tmp/hold
run_ok "rdma link delete with MRs registered completes" \
	timeout 30 rdma link delete s0
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
run_ok "rmmod sroce" rmmod sroce
done_testing
