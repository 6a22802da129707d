#!/bin/bash
# kverbs-rxe.sh: the kernel-consumer RC data test (sroce_test_rc) run
# against the kernel's own rdma_rxe, to validate the test itself. The
# module prints one TAP line per check in dmesg; they are copied here so
# they are counted with this suite's own results.
#   scripts/vm-run.sh tests/vm/kverbs-rxe.sh
# No `set -e`: a failed check is a TAP result, not the end of the suite.
set -u
# shellcheck source=tests/vm/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")}/lib.sh"

dev=rxe0
nd=${SROCE_NETDEV:-eth0}

# gid_index DEV IPV4: the index of the RoCE v2 GID that carries IPV4.
gid_index() {
	local dev=$1 ip=$2 want g i
	local IFS=.
	# shellcheck disable=SC2086 # splitting the dotted quad is the point
	set -- $ip
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$1" "$2" "$3" "$4")
	unset IFS
	for _ in $(seq 50); do
		for g in /sys/class/infiniband/"$dev"/ports/1/gids/*; do
			i=${g##*/}
			if [ "$(cat "$g" 2>/dev/null)" = "$want" ] &&
				[ "$(cat /sys/class/infiniband/"$dev"/ports/1/gid_attrs/types/"$i" 2>/dev/null)" = "RoCE v2" ]; then
				echo "$i"
				return 0
			fi
		done
		sleep 0.1
	done
	return 1
}

diag "kernel $KVER"
run_ok "modprobe rdma_rxe" modprobe rdma_rxe
run_ok "rdma link add $dev on $nd" rdma link add "$dev" type rxe netdev "$nd"
gid=$(gid_index "$dev" "$SROCE_IP4") || gid=
ok "$([ -n "$gid" ] && echo 1 || echo 0)" "RoCE v2 GID for $SROCE_IP4 (index ${gid:-none})"

run_ok "modprobe sroce_test_rc dev=$dev gid_index=${gid:--1}" \
	timeout 300 modprobe sroce_test_rc dev="$dev" gid_index="${gid:--1}"
# The module's own TAP lines and "# " diagnostics as they are; other
# lines it caused (the core names the caller) as diagnostics.
dmesg | grep 'sroce_test_rc: ' | sed -e 's/.*sroce_test_rc: //' -e '/^\(ok \|not ok \|# \)/!s/^/# /'
ok "$(dmesg | grep -c 'sroce_test_rc: ok ')" "the module reported its checks"
ok "! dmesg | grep -qE 'BUG:|WARNING:|Oops|refcount_t:|general protection'" \
	"no kernel warnings"
rmmod sroce_test_rc 2>/dev/null

run_ok "rdma link delete $dev" rdma link delete "$dev"
run_ok "rmmod rdma_rxe" rmmod rdma_rxe
done_testing
