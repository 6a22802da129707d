# tests/vm/kverbs.bash - the kernel-consumer RC data test (sroce_test_rc)
# on one device, sourced by kverbs-sroce.sh and kverbs-rxe.sh (after
# lib.sh). The module prints one TAP line per check in dmesg; they are
# copied here so they are counted with the suite's own results.
#
# kverbs_main DRV: DRV is sroce or rxe.

kverbs_main() {
	local drv=$1 mod dev=${1}0 nd=${SROCE_NETDEV:-eth0} gid
	mod=$([ "$drv" = rxe ] && echo rdma_rxe || echo "$drv")

	diag "kernel $KVER"
	run_ok "modprobe $mod" modprobe "$mod"
	run_ok "rdma link add $dev on $nd" rdma link add "$dev" type "$drv" netdev "$nd"
	gid=$(gid_index "$dev" "$SROCE_IP4") || gid=
	ok "$([ -n "$gid" ] && echo 1 || echo 0)" "RoCE v2 GID for $SROCE_IP4 (index ${gid:-none})"

	run_ok "modprobe sroce_test_rc dev=$dev gid_index=${gid:--1}" \
		timeout 300 modprobe sroce_test_rc dev="$dev" gid_index="${gid:--1}"
	# The module's own TAP lines and "# " diagnostics as they are; other
	# lines it caused (the core names the caller) as diagnostics.
	dmesg | grep 'sroce_test_rc: ' |
		sed -e 's/.*sroce_test_rc: //' -e '/^\(ok \|not ok \|# \)/!s/^/# /'
	ok "$(dmesg | grep -c 'sroce_test_rc: ok ')" "the module reported its checks"
	ok "! dmesg | grep -qE 'BUG:|WARNING:|Oops|refcount_t:|general protection'" \
		"no kernel warnings"
	rmmod sroce_test_rc 2>/dev/null

	run_ok "rdma link delete $dev" rdma link delete "$dev"
	run_ok "rmmod $mod" rmmod "$mod"
}
