#!/bin/bash
# PID 1 of the sroce test VM (installed as /init by vm-initramfs.sh).
# Sets up a minimal system without udev, runs /sroce-test/run, scans the
# kernel log for splats and prints one SROCE-RESULT line that vm-run.sh
# parses, then powers off. No `set -e`: whatever fails, PID 1 must still
# reach the result line and the power-off, or the host only sees a timeout.
set -u

# Real coreutils/iproute2 first: busybox's applets (last in PATH) lack
# features the tests need, e.g. its `ip` has no netns.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/usr/lib/sroce-busybox
export HOME=/root TERM=dumb LANG=C.UTF-8

log() { echo "sroce-init: $*"; }

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
# What udev would add: bash's process substitution needs /dev/fd.
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin
ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# The kernel may have started us without a console on fd 0-2.
exec </dev/null >/dev/console 2>&1
# First words at once: vm-run.sh takes 60 s of silence from /init for a
# boot hang, and the debug kernel is slow to reach the lines below.
printf '\nsroce-init: started on %s\n' "$(uname -r)"

# Parameters from the kernel command line (vm-run.sh sets them).
host=1 net=user tmo=540
read -ra words </proc/cmdline
for w in "${words[@]}"; do
	case $w in
	sroce_host=*) host=${w#*=} ;;
	sroce_net=*) net=${w#*=} ;;
	sroce_timeout=*) tmo=${w#*=} ;;
	# Boot-time profiling: every init step with a timestamp.
	sroce_trace=1) PS4='+ ${EPOCHREALTIME} '; set -x ;;
	esac
done

kver=$(uname -r)
# A task stuck in D state for 30 s is a bug here, not slowness; the hung
# task detector then logs its stack (and the dmesg scan fails the run)
# long before the suite's timeout.
echo 30 >/proc/sys/kernel/hung_task_timeout_secs 2>/dev/null
# The per-run overlay may have added modules under extra/.
[ -d "/lib/modules/$kver/extra" ] && depmod -a
# No udev: load what it would have loaded. rdma_ucm provides
# /dev/infiniband/rdma_cm, ib_uverbs the uverbs char devices.
modprobe -a virtio_pci virtio_net ib_uverbs rdma_ucm || log "modprobe failed"

ip link set lo up
for _ in $(seq 50); do
	[ -e /sys/class/net/eth0 ] && break
	sleep 0.1
done

# Addresses: user networking (slirp, restrict=on: no way out) expects
# 10.0.2.15; the point-to-point link of --two uses 10.77.0.N. The ULA v6
# address gets `nodad` so it is usable at once instead of after DAD.
peer=$((3 - host))
case $net in
user) ip4=10.0.2.15 peer4='' peer6='' ;;
p2p) ip4=10.77.0.$host peer4=10.77.0.$peer peer6=fd77::$peer ;;
*) log "unknown sroce_net=$net"; ip4='' peer4='' peer6='' ;;
esac
ip6=fd77::$host
if [ -e /sys/class/net/eth0 ]; then
	ip link set eth0 up
	ip addr add "$ip4/24" dev eth0
	ip addr add "$ip6/64" dev eth0 nodad
	# Carrier comes a moment after "up"; tests should not race it.
	for _ in $(seq 30); do
		[ "$(cat /sys/class/net/eth0/operstate)" = up ] && break
		sleep 0.1
	done
else
	log "no eth0"
fi

export SROCE_HOST=$host SROCE_NETDEV=eth0 SROCE_IP4=$ip4 SROCE_IP6=$ip6
export SROCE_PEER_IP4=$peer4 SROCE_PEER_IP6=$peer6 KVER=$kver
export SROCE_TESTS=/sroce-test/tests
SROCE_SUITE=$(cat /sroce-test/name 2>/dev/null || echo run)
export SROCE_SUITE

# A kernel with kmemleak (the debug kernel): what boot itself leaked is
# marked as seen, so the scan after the test reports only what the test
# leaked.
kml=/sys/kernel/debug/kmemleak
if [ -w $kml ]; then
	log "kmemleak: scanning what boot left"
	t0=$SECONDS
	echo scan >$kml
	echo clear >$kml
	log "kmemleak: boot's objects marked seen in $((SECONDS - t0)) s"
fi

args=()
[ -f /sroce-test/args ] && mapfile -d '' -t args </sroce-test/args

status=127
if [ -f /sroce-test/run ]; then
	# Own line: the firmware banner before us ends without a newline, and
	# TAP wants its plan line at the start of a line.
	printf '\nsroce-init: running %s on %s, host %s, %s\n' "$SROCE_SUITE" "$kver" "$host" "$ip4"
	cd /sroce-test || true
	# -k: a test that ignores SIGTERM still ends, and we still report.
	suite=$(cat /sroce-test/path 2>/dev/null || echo /sroce-test/run)
	timeout -k 5 "$tmo" bash "$suite" "${args[@]}"
	status=$?
	cd / || true
	if [ $status -eq 124 ]; then
		log "test timed out after ${tmo}s; blocked tasks:"
		# sysrq-w logs the stack of every task in D state: where it hung.
		echo w >/proc/sysrq-trigger
		sleep 0.5
		dmesg | sed -n '/sysrq: Show Blocked State/,$p' | sed 's/^/sroce-init: /'
	fi
else
	log "no /sroce-test/run"
fi

# kmemleak: unload the driver and its test modules (what they still hold
# becomes unreferenced if it leaked) and scan twice (the second drops
# false positives of objects in flight); the second scan starts when
# every object the modules held is past kmemleak's 5 s minimum age (a
# scan of the debug kernel takes about 9 s, so it rarely waits; 7 whole
# seconds of $SECONDS are at least 6 real ones).
leaks=''
if [ -w $kml ]; then
	modprobe -r sroce_test_kverbs sroce_test_rc sroce rdma_rxe 2>/dev/null
	unloaded=$SECONDS
	echo scan >$kml
	while [ $((SECONDS - unloaded)) -lt 7 ]; do
		sleep 1
	done
	echo scan >$kml
	leaks=$(sed 's/^/kmemleak: /' $kml)
	log "kmemleak: $(grep -c 'unreferenced object' <<<"$leaks") unreferenced objects after the test"
fi

# "BUG cache (Tainted...)" is how SLUB reports a red zone or poison hit.
# KASAN, lockdep ("WARNING: possible circular locking ...", "WARNING:
# suspicious RCU usage", an uninitialised lock's "INFO: trying to register
# non-static key"), the CSD lock watchdog and kmemleak are the debug
# kernel's.
pat='BUG:|BUG [^ ]+ \((Not tainted|Tainted)|WARNING:|Oops|refcount_t:|soft lockup|detected stall|blocked for more than|general protection|UBSAN|kernel BUG|KASAN|list_add corruption|list_del corruption'
pat="$pat|INFO: trying to register non-static key|csd: Detected non-responsive"
# A user process's fault ("traps: prog[pid] general protection fault ip:..
# in lib") is not the kernel's: its test sees the exit status.
hits=$(dmesg | grep -E "$pat" |
	grep -Ev '^\[ *[0-9.]+\] traps: [^ ]+\[[0-9]+\] general protection fault ip:')
if [ -n "$leaks" ]; then
	hits=$(printf '%s\n%s' "$hits" "$(grep 'unreferenced object' <<<"$leaks")" | sed '/^$/d')
fi
dm=clean
if [ -n "$hits" ]; then
	dm=dirty
	log "kernel log shows problems:"
	printf '%s\n' "$hits" | sed 's/^/sroce-init: dmesg: /'
	# The whole splat (with its trace) is what a developer needs next.
	log "full dmesg follows"
	dmesg | sed 's/^/sroce-init: dmesg: /'
	[ -z "$leaks" ] || printf '%s\n' "$leaks" | sed 's/^/sroce-init: /'
fi
# The leading newline ends any partial line (firmware banner, a test's
# last output without a newline) so the host finds the result.
printf '\nSROCE-RESULT: test=%s dmesg=%s\n' "$status" "$dm"
# Let the serial port drain the line before the machine disappears.
sleep 0.2
poweroff -f
echo o >/proc/sysrq-trigger
sleep 5
echo b >/proc/sysrq-trigger
