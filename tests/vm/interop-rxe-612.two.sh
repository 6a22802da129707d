#!/bin/bash
# interop-rxe-612.two.sh: sroce on host 1, the kernel's rdma_rxe on host
# 2, both VMs on Linux 6.12 (make check runs it there only): what
# rdma_rxe has that its 6.1 lacks, IBTA 1.5's ATOMIC WRITE (rc_peer -A:
# every RC operation, then 8 bytes each way over the peer's word, which a
# FETCH_AND_ADD then returns), and against 6.12's rdma_rxe too UC, memory
# windows and multicast. Each case runs with each side once as server.
# FLUSH is not here: no verb of Debian 12's userspace or of the kernel
# posts one (Documentation/sroce-verbs.rst); a19_wire plays its requester.
#   scripts/vm-run.sh --two --kver 6.12... tests/vm/interop-rxe-612.two.sh
set -u
# shellcheck source=tests/vm/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")}/lib.sh"
# shellcheck source=tests/vm/rc-two.bash
. "${SROCE_TESTS:-$(dirname "$0")}/rc-two.bash"

rc_two_setup sroce rxe
P=/usr/libexec/sroce
for s in 8 4096 65536; do
	rc_two_both "rc_peer -A (ATOMIC WRITE) -s $s IPv4" \
		$P/rc_peer -d "$dev" -g "$gid4" -s "$s" -m 1024 -n 3 -A
done
rc_two_both "rc_peer -A (ATOMIC WRITE) -s 4096 IPv6" \
	$P/rc_peer -d "$dev" -g "$gid6" -s 4096 -m 4096 -n 3 -A
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
