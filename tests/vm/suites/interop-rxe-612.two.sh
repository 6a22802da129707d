#!/bin/bash
# interop-rxe-612.two.sh: sroce on host 1, the kernel's rdma_rxe on host
# 2, both VMs on Linux 6.12 (make check runs it there only): what
# rdma_rxe has that its 6.1 lacks, IBTA 1.5's ATOMIC WRITE and FLUSH (rc_peer -A:
# every RC operation, then 8 bytes each way over the peer's word, which a
# FETCH_AND_ADD then returns), and against 6.12's rdma_rxe too UC, memory
# windows and multicast. Each case runs with each side once as server.
# FLUSH (rc_peer56 -F) runs under rdma-core 56.1's libibverbs and rxe
# provider, built for the tests: Debian 12's libibverbs 44 has no verb
# that posts one, nor has the kernel (Documentation/sroce-verbs.rst).
# Only rdma_rxe's FLUSHes reach their target (see below).
#   scripts/vm-run.sh --two --kver 6.12... tests/vm/suites/interop-rxe-612.two.sh
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"
# shellcheck source=tests/vm/lib/rc-two.bash
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/rc-two.bash"

rc_two_setup sroce rxe
P=/usr/libexec/sroce
for s in 8 4096 65536; do
	rc_two_both "rc_peer -A (ATOMIC WRITE) -s $s IPv4" \
		$P/rc_peer -d "$dev" -g "$gid4" -s "$s" -m 1024 -n 3 -A
done
rc_two_both "rc_peer -A (ATOMIC WRITE) -s 4096 IPv6" \
	$P/rc_peer -d "$dev" -g "$gid6" -s 4096 -m 4096 -n 3 -A
# FLUSH: rc_peer56 runs under rdma-core 56.1's libibverbs and providers.
# rdma_rxe computes a FLUSH's ICRC over its headers twice (rxe_opcode.c
# gives FLUSH no payload offset, so the "payload" starts at the BTH): sroce
# takes that ICRC from rdma_rxe, and rdma_rxe drops sroce's, which is the
# IBTA's. So rdma_rxe flushes (-F) and sroce only grants (-G); the other
# way is a known deviation of rdma_rxe, reported if it starts passing.
if [ "$SROCE_HOST" = 1 ]; then fl=-G; else fl=-F; fi
for s in 4096 65536; do
	rc_two_both "rc_peer56 -A, FLUSH from rdma_rxe to sroce, -s $s IPv4" \
		env "$(rc56_env)" $P/rc_peer56 -d "$dev" -g "$gid4" -s "$s" \
		-m 1024 -n 3 -A "$fl"
done
if [ "$SROCE_HOST" = 1 ]; then fl=-F; else fl=-G; fi
rc_two_todo="rdma_rxe 6.12 drops a FLUSH with the IBTA's ICRC" \
	rc_two_both "rc_peer56 FLUSH from sroce to rdma_rxe" \
	env "$(rc56_env)" $P/rc_peer56 -d "$dev" -g "$gid4" -s 4096 \
	-m 1024 -n 1 -t 10 "$fl"
rc_two_both "rc_peer -u (UC) 40 x 4 KiB" $P/rc_peer -d "$dev" -g "$gid4" \
	-s 4096 -m 1024 -n 10 -u
rc_two_both "rc_peer -w (through memory windows) 4 KiB" $P/rc_peer \
	-d "$dev" -g "$gid4" -s 4096 -m 1024 -n 2 -w
mc_two_both 239.1.2.5
rc_two_end
if [ "$SROCE_HOST" = 1 ]; then
	run_ok "rmmod sroce" rmmod sroce
else
	run_ok "rmmod rdma_rxe" rmmod rdma_rxe
fi
done_testing
