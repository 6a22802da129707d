# tests/vm/lib/kverbs.bash - the kernel-consumer RC data test (sroce_test_rc)
# on one device, sourced by kverbs-sroce.sh and kverbs-rxe.sh (after
# lib.sh). The module prints one TAP line per check in dmesg; they are
# copied here so they are counted with the suite's own results.
#
# kverbs_main DRV: DRV is sroce or rxe.

# kverbs_load DEV GID: load sroce_test_rc, print its TAP lines from the
# kernel log, exit with modprobe's status.
kverbs_load() {
	local st
	timeout 300 modprobe sroce_test_rc dev="$1" gid_index="$2" >/dev/null 2>&1
	st=$?
	dmesg | sed -n 's/.*sroce_test_rc: //p'
	return $st
}

kverbs_main() {
	local drv=$1 mod dev=${1}0 nd=${SROCE_NETDEV:-eth0} gid h
	mod=$([ "$drv" = rxe ] && echo rdma_rxe || echo "$drv")

	diag "kernel $KVER"
	sroce_up -t "$drv" -g "$dev" "$nd" "$SROCE_IP4"
	gid=${up_gids[0]:-}

	# sroce, debugfs fault injection: each access through an FRMR lasts
	# 500 us longer, so invalidations under a stream find copies running
	# and wait; and the responder's worker sleeps 300 ms after the copies
	# an invalidation waited for ended, so that "both at once" reuses the
	# key before that invalidation looks again.
	if [ "$drv" = sroce ]; then
		run_ok "fault injection: fault_copy_us 500, fault_inv_wake_ms 300" \
			sh -c "echo 500 >/sys/kernel/debug/sroce/$dev/fault_copy_us &&
			       echo 300 >/sys/kernel/debug/sroce/$dev/fault_inv_wake_ms"
	fi
	# The module prints its TAP (plan included) into the kernel log and
	# its load fails if a check failed: tap_merge counts each check once
	# and flags a load whose status disagrees with the checks.
	tap_merge sroce_test_rc kverbs_load "$dev" "${gid:--1}"
	if [ "$drv" = sroce ]; then
		# Invalidations that found copies under the key still running
		# (the module's streams make some likely, none certain).
		ok "rdma statistic show link $dev/1 | grep -qw inv_deferred" \
			"rdma statistic shows inv_deferred"
		diag "$(rdma statistic show link "$dev/1" | grep -oE 'inv_deferred [0-9]+')"
		# The burst checks post 16 signaled SENDs in one list from
		# process context: a stream one way (sroce_req_stream()), so
		# the receiver's engines ran on another CPU (the counter is
		# the whole module's; the bursts are what must move it), and
		# each burst's data was checked above.
		h=$(rdma statistic show link "$dev/1" | grep -oE 'stream_handoffs [0-9]+' | cut -d' ' -f2)
		if [ "$(nproc)" -ge 2 ]; then
			ok "$((${h:-0} > 0))" "kernel posts in lists handed their receiver to another CPU (stream_handoffs ${h:-none})"
		else
			skip "one CPU: no other to run on" "kernel posts in lists handed their receiver to another CPU"
		fi
	fi
	ok "! dmesg | grep -qE 'BUG:|WARNING:|Oops|refcount_t:|general protection'" \
		"no kernel warnings"
	rmmod sroce_test_rc 2>/dev/null

	run_ok "rdma link delete $dev" rdma link delete "$dev"
	run_ok "rmmod $mod" rmmod "$mod"
}
