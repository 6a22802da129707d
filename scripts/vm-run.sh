#!/usr/bin/env bash
# vm-run.sh [--kver KVER] [--two] [--timeout SEC] [--stage DIR] [--log FILE]
#           [--file SRC[:DEST]]... TEST_SCRIPT [ARGS...]
# Boot Debian's kernel under QEMU (TCG) with the cached base initramfs plus a
# per-run overlay, run TEST_SCRIPT ARGS... inside, stream the console, and
# exit with the test's status. Also fails when the guest's dmesg shows a
# splat, when no SROCE-RESULT line arrives (panic, hang) or on timeout.
# --two boots two VMs joined by a point-to-point link (h1 and h2).
# --file puts a host file into the guest (default /sroce-test/files/NAME).
# --log FILE keeps the console (in --two mode, prefixed, plus FILE.h1/.h2).
# Environment: SROCE_VM_APPEND (more kernel parameters), SROCE_VM_QEMU_ARGS
# (more QEMU options), SROCE_VM_SLUB_DEBUG (see below), SROCE_VM_LOCK (the
# lock file every run on the machine takes turns on), SROCE_VM_LINK_RCVBUF
# (the two-VM link's receive buffer in bytes, vm-link.pl).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
usage() {
	sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "$0" >&2
	exit 2
}

# The link's receive buffer per VM (vm-link.pl), in bytes of the socket's
# accounting (the kernel doubles the request): an RC window of frames each
# way fits, and a guest that falls behind queues tens of milliseconds of
# them, not seconds (a much larger buffer made RC time out on queueing).
link_rcvbuf=${SROCE_VM_LINK_RCVBUF:-1048576}
kver='' two=0 timeout=600 stage=$top/build/stage logfile='' files=()
while [ $# -gt 0 ]; do
	case $1 in
	--kver) kver=$2; shift 2 ;;
	--two) two=1; shift ;;
	--timeout) timeout=$2; shift 2 ;;
	--stage) stage=$2; shift 2 ;;
	--log) logfile=$2; shift 2 ;;
	--file) files+=("$2"); shift 2 ;;
	--help|-h) usage ;;
	--) shift; break ;;
	-*) echo "vm-run: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || usage
test=$1
shift
[ -f "$test" ] || { echo "vm-run: no test script $test" >&2; exit 2; }
if ! [[ $timeout =~ ^[0-9]+$ ]] || [ "$timeout" -lt 20 ]; then
	echo "vm-run: --timeout wants whole seconds >= 20" >&2
	exit 2
fi
[ -n "$kver" ] || kver=$("$top/scripts/kver.sh" 6.1)

vmdir=$top/build/vm
mkdir -p "$vmdir"
# The machine has two cores: VM runs from several shells (developers,
# helpers, make check, other clones of the tree) take turns instead of
# starving each other, so the lock is the machine's, not the tree's.
if [ -z "${SROCE_VM_LOCKED:-}" ]; then
	exec 9>"${SROCE_VM_LOCK:-/tmp/sroce-vm.lock}"
	flock 9
	export SROCE_VM_LOCKED=1
fi
vmlinux=$vmdir/vmlinux-$kver
# A suite that says "# vm-image: ulp" boots the image with the kernel
# ULPs' tools (fio, nvme-cli, NFS, open-iscsi), one that says
# "# vm-image: py" the one with Python and pyverbs; the others boot the
# smaller one, which starts seconds sooner.
flavour=base
grep -q '^# vm-image: ulp$' "$test" && flavour=ulp
grep -q '^# vm-image: py$' "$test" && flavour=py
base=$vmdir/$flavour-$kver.cpio
"$top/scripts/vm-vmlinux.sh" "$kver" "$vmlinux"
"$top/scripts/vm-initramfs.sh" "$kver" "$base" "$flavour"

run=$(mktemp -d "$vmdir/run.XXXXXX")
pids=()
# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	local f
	# Stop only the QEMUs this run started (by the pid each one wrote).
	for f in "$run"/h*.pid; do
		if [ -f "$f" ]; then kill "$(cat "$f")" 2>/dev/null || true; fi
	done
	[ ${#pids[@]} = 0 ] || wait "${pids[@]}" 2>/dev/null || true
	rm -rf "$run"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Arguments travel NUL-separated so any byte survives.
: >"$run/args"
for a in "$@"; do printf '%s\0' "$a" >>"$run/args"; done
"$top/scripts/vm-overlay.sh" "$stage" "$test" "$run/overlay.cpio" \
	${files[@]+"${files[@]}"} "$run/args:/sroce-test/args"
cat "$base" "$run/overlay.cpio" >"$run/initrd"

# The guest's own limit leaves time for boot, the dmesg scan and the
# result line, so a hung test still reports instead of being cut off.
if [ "$timeout" -ge 120 ]; then
	guest_timeout=$((timeout - 40))
else
	guest_timeout=$((timeout * 2 / 3))
fi
# SLUB red zones, poisoning and owner tracking on the kmalloc caches (where
# the verbs objects and most driver memory live) and on any cache sroce
# creates: catches overflows and use-after-free for ~0.3 s per boot, where
# slub_debug=FZPU on every cache costs ~4 s. SROCE_VM_SLUB_DEBUG overrides
# it ("" turns it off, "FZPU" covers all caches).
slub=${SROCE_VM_SLUB_DEBUG-'FZPU,kmalloc-*;FZPU,sroce*'}
# A CPU stuck in the kernel panics (softlockup_panic), and the panic
# replays the whole kernel log at full verbosity (panic_print=0x20), so the
# stack that loglevel=4 kept off the console reaches the log and the run
# ends at once instead of at the host's timeout.
cmdline="console=ttyS0 loglevel=4 oops=panic panic=-1 quiet${slub:+ slub_debug=$slub}"
cmdline="$cmdline softlockup_panic=1 panic_print=0x20"
# A KASAN kernel (scripts/debug-kernel.sh) boots with 4-level paging. On
# QEMU's `-cpu max` the guest would take 5-level (LA57), and 6.1's
# identify_cpu() wipes the boot CPU's feature bits with interrupts on: an
# interrupt in that window sees pgtable_l5_enabled() false, so KASAN takes
# the direct map (0xff11...) for a wild address and reports a bug in
# handle_edge_irq() at 0.65 s (seen once, in a loaded run).
# It also routes PCI interrupts from the BIOS's table, not ACPI
# (acpi=noirq): under KASAN and lockdep, ACPICA's interpretation of the
# PCI link devices' methods when the virtio NIC is first enabled took
# 27 s of every boot (the modprobe of virtio_pci in vm-init.sh: 29 s with
# ACPI routing, 1.3 s without).
if grep -qx 'CONFIG_KASAN=y' "/lib/modules/$kver/build/.config" 2>/dev/null; then
	cmdline="$cmdline no5lvl acpi=noirq"
fi
# SROCE_VM_APPEND comes last so it can override sroce_timeout, for example.
cmdline="$cmdline sroce_timeout=$guest_timeout ${SROCE_VM_APPEND:-}"

# A suite that says "# vm-pmem: MIB" gets an emulated NVDIMM of MIB MiB
# in each VM: persistent memory as the firmware's NFIT describes it, label-
# less, so the guest sees one raw namespace (tests/vm/suites/pmem.sh).
mem=(-m 2G)
pmem_mib=$(sed -n 's/^# vm-pmem: \([0-9][0-9]*\)$/\1/p' "$test" | head -n1)
if [ -n "$pmem_mib" ]; then
	# shellcheck disable=SC2054 # the commas are QEMU's
	mem=(-machine pc,nvdimm=on -m "2G,slots=2,maxmem=$((2048 + pmem_mib))M"
		-object "memory-backend-ram,id=pm0,size=${pmem_mib}M"
		-device nvdimm,id=nv0,memdev=pm0)
fi

# SROCE_VM_QEMU_ARGS adds QEMU options (e.g. a -virtfs share for captures).
# shellcheck disable=SC2206,SC2054 # split the extra options; commas are QEMU's
qemu_common=(qemu-system-x86_64 -accel tcg,thread=multi -cpu max "${mem[@]}"
	-nographic -no-reboot -kernel "$vmlinux" -initrd "$run/initrd"
	${SROCE_VM_QEMU_ARGS:-})

# Two consecutive ports on 127.0.0.1 no UDP or TCP socket uses (the link and
# the monitors take them), from a random base so parallel
# harness runs do not pick the same pair.
free_ports() {
	local used a
	used=$(ss -Htuan 2>/dev/null | awk '{print $5}')
	for _ in $(seq 50); do
		a=$((20000 + RANDOM % 40000))
		if ! grep -qE ":($a|$((a + 1)))\$" <<<"$used"; then
			echo "$a $((a + 1))"
			return 0
		fi
	done
	echo "vm-run: no free UDP port pair" >&2
	return 1
}

# hostlog N: where VM N's console is kept. Written while the VM runs, so
# an interrupted run still leaves it behind when --log was given.
hostlog() {
	if [ -z "$logfile" ]; then
		echo "$run/h$1.log"
	elif [ $two = 1 ]; then
		echo "$logfile.h$1"
	else
		echo "$logfile"
	fi
}

# boot N [--link LOCAL_PORT PEER_PORT] NETDEV_ARGS...: start VM N in the
# background; its console (with the serial CRs removed) goes to $run/hN.log
# and to stdout, prefixed in --two mode. QEMU's own exit status goes to
# $run/hN.rc. --link: QEMU gets its end of the point-to-point link as a
# UDP socket with a large receive buffer (vm-link.pl: why), "@FD@" in
# NETDEV_ARGS.
boot() {
	local n=$1 smp prefix wrap=()
	shift
	if [ "$1" = --link ]; then
		wrap=(perl "$top/scripts/vm-link.pl" "$2" "$3" "$link_rcvbuf")
		shift 3
	fi
	# Two VMs share the host's cores, one vCPU each, but never "-smp 1"
	# alone: QEMU's TCG (7.2) translates a guest with one possible CPU
	# without its memory barriers (CF_PARALLEL is set only for
	# maxcpus > 1: no other vCPU could tell), while the NIC is emulated
	# in QEMU's main thread on another host core at the same time. The
	# guest's virtio barrier between publishing a transmit frame and reading
	# QEMU's avail_event then orders nothing, the guest reads a stale
	# event index, skips the kick QEMU waits for, and the link stands
	# still (NETDEV WATCHDOG; the ring had frames QEMU never looked at,
	# and a pause and resume, which makes QEMU look, freed it). A second
	# possible CPU that never comes online makes TCG keep the barriers.
	if [ $two = 1 ]; then smp=1,maxcpus=2 prefix="[h$n] "; else smp=2 prefix=; fi
	(
		set +e
		timeout -k 5 "$timeout" ${wrap[@]+"${wrap[@]}"} "${qemu_common[@]}" -smp "$smp" -pidfile "$run/h$n.pid" "$@" \
			-append "$cmdline sroce_host=$n sroce_net=$net" </dev/null 2>&1 |
			sed -u -e 's/\r$//' -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' -e 's/\x1bc//g' | tee "$(hostlog "$n")" | sed -u "s/^/$prefix/"
		echo "${PIPESTATUS[0]}" >"$run/h$n.rc"
	) &
	pids+=($!)
}

if [ -n "$logfile" ]; then
	mkdir -p "$(dirname "$logfile")"
	: >"$logfile"
fi
# watch_boot N: under TCG a guest very rarely fails in early boot, before
# any sroce code can run (the module loads from /init's tests): it hangs,
# or Debian's kernel oopses (6.12 once: an int3 its own code patching
# left for a moment, hit by the other vCPU, whose TCG translation was
# stale). If /init has not spoken after 60 s, or the guest ended before
# it spoke, mark the run for one retry and stop its VMs: a peer waiting
# for the failed one would only fail later.
watch_boot() {
	local n=$1 log f
	log=$(hostlog "$n")
	for _ in $(seq 120); do
		grep -qa 'sroce-init:' "$log" 2>/dev/null && return 0
		if [ -f "$run/h$n.rc" ]; then
			grep -qa 'sroce-init:' "$log" 2>/dev/null && return 0
			# Killed because the other VM failed first.
			ls "$run"/h*.boothang >/dev/null 2>&1 && return 0
			echo "vm-run: [h$n] the guest ended before /init spoke: boot failure ($(grep -a -m1 -E 'Oops|BUG:|Kernel panic' "$log" || echo 'no oops on the console'))" >&2
			break
		fi
		sleep 0.5
	done
	[ -f "$run/h$n.rc" ] || echo "vm-run: [h$n] /init silent after 60 s: boot hang" >&2
	: >"$run/h$n.boothang"
	for f in "$run"/h*.pid; do
		kill "$(cat "$f" 2>/dev/null)" 2>/dev/null || true
	done
}

# monitor N CMD...: QEMU N's monitor answers CMD... (one per line, in one
# session; vm-monitor.pl waits for each answer). Nothing when the monitor
# is gone (the VM has ended); its complaint when it does not answer.
monitor() {
	local n=$1 port
	shift
	port=$(cat "$run/h$n.monport" 2>/dev/null) || return 0
	perl "$top/scripts/vm-monitor.pl" "$port" "$@" 2>&1 || true
}

# ring_dump N Q: virtqueue Q of VM N's NIC (0 receive, 1 transmit) as QEMU
# keeps it, and in the same monitor session the split ring's own indices
# read from guest memory (xp): the guest's avail.idx and used_event, the
# used.idx and avail_event QEMU published. QEMU's last_avail_idx and
# shadow_avail_idx are its cached copies, so only the ring tells whether
# the guest posted frames QEMU never looked at (QEMU stopped looking or
# missed a kick), QEMU holds frames it never completed (inuse > 0: the
# backend refused them, virtio-net's async_tx), or QEMU completed
# everything and the guest did not reclaim it (no TX interrupt). A live
# link moves between the reads, so the TX verdict is printed only when
# the indices stood still since the previous call (ring_prev_NQ).
ring_dump() {
	local n=$1 q=$2 dev=/machine/peripheral/nic0/virtio-backend st
	local num avail used inuse lavail uidx g_avail g_uevent g_used g_aevent
	local prev now
	st=$(monitor "$n" "info virtio-queue-status $dev $q")
	num=$(sed -n 's/^ *num: *\([0-9]*\)$/\1/p' <<<"$st")
	avail=$(sed -n 's/^ *avail: *\(0x[0-9a-f]*\)$/\1/p' <<<"$st")
	used=$(sed -n 's/^ *used: *\(0x[0-9a-f]*\)$/\1/p' <<<"$st")
	if [ -z "$num" ] || [ -z "$avail" ] || [ -z "$used" ] || [ $((avail)) = 0 ]; then
		sed -n '/^\/machine/,$p' <<<"$st" | sed "s/^/[h$n qemu] /"
		return 0
	fi
	st=$(monitor "$n" "info virtio-queue-status $dev $q" \
		"xp /1hx $((avail + 2))" "xp /1hx $((avail + 4 + 2 * num))" \
		"xp /1hx $((used + 2))" "xp /1hx $((used + 4 + 8 * num))")
	sed -n '/^\/machine/,/^ *used:/p' <<<"$st" | sed "s/^/[h$n qemu] /"
	inuse=$(sed -n 's/^ *inuse: *\([0-9]*\)$/\1/p' <<<"$st")
	lavail=$(sed -n 's/^ *last_avail_idx: *\([0-9]*\)$/\1/p' <<<"$st")
	uidx=$(sed -n 's/^ *used_idx: *\([0-9]*\)$/\1/p' <<<"$st")
	# shellcheck disable=SC2046 # one value per line
	set -- $(sed -n 's/^[0-9a-f]*: \(0x[0-9a-f]*\)$/\1/p' <<<"$st")
	[ $# = 4 ] || return 0
	g_avail=$(($1)) g_uevent=$(($2)) g_used=$(($3)) g_aevent=$(($4))
	echo "[h$n qemu] queue $q in guest memory: avail.idx $g_avail used_event $g_uevent used.idx $g_used avail_event $g_aevent"
	now="$inuse $lavail $uidx $g_avail $g_used"
	prev=$(eval "echo \"\${ring_prev_$n$q:-}\"")
	eval "ring_prev_$n$q=\"\$now\""
	[ "$q" = 1 ] && [ "$prev" = "$now" ] || return 0
	if [ "${inuse:-0}" != 0 ]; then
		echo "[h$n qemu] TX stands still: QEMU holds $inuse popped frame(s) it never completed (the net backend refused them: async_tx)"
	elif [ "$g_avail" != "$lavail" ]; then
		echo "[h$n qemu] TX stands still: the guest posted $(((g_avail - lavail) & 0xffff)) frame(s) QEMU has not looked at (QEMU stopped looking or missed a kick)"
	elif [ "$g_used" = "$g_avail" ] && [ "$uidx" = "$g_used" ]; then
		echo "[h$n qemu] TX stands still and is empty: QEMU completed every frame the guest posted; a stopped transmit queue in the guest then means the guest did not reclaim them (no TX interrupt sent or taken: used_event $g_uevent)"
	fi
}

# nic_dump N: what QEMU N's monitor says of its NIC and both of its virtio
# queues. To stderr, marked "[hN qemu]".
nic_dump() {
	local n=$1 dev=/machine/peripheral/nic0/virtio-backend
	{
		monitor "$n" "info network" "info virtio-status $dev" |
			sed "s/^/[h$n qemu] /"
		ring_dump "$n" 0
		ring_dump "$n" 1
	} >&2
}

# watch_link: in a two-VM run, the first time a guest reports a dead link
# (link_alive in tests/vm/lib/roce.sh) or its kernel a stuck transmit queue,
# both QEMUs describe their NICs. Both VMs are paused for each look (a
# guest whose suite gives up on the link powers off within seconds, and
# a paused ring is one consistent picture), looked at twice with two
# seconds of running between (indices that moved are a slow link, not a
# dead one), then left to run on.
watch_link() {
	local i
	while [ ! -f "$run/h1.rc" ] || [ ! -f "$run/h2.rc" ]; do
		if grep -qaE 'SROCE-LINK-DEAD|NETDEV WATCHDOG' "$(hostlog 1)" "$(hostlog 2)" 2>/dev/null; then
			echo "vm-run: a guest reports a dead link; QEMU's view of both NICs follows" >&2
			for i in 1 2; do
				[ "$i" = 1 ] || { sleep 2; echo "vm-run: two seconds later:" >&2; }
				monitor 1 stop >/dev/null
				monitor 2 stop >/dev/null
				nic_dump 1
				nic_dump 2
				monitor 1 cont >/dev/null
				monitor 2 cont >/dev/null
			done
			return 0
		fi
		sleep 1
	done
}

# udp_rcvbuf_errors: the host's count of UDP datagrams dropped for a full
# receive buffer (the two-VM link's frames among them).
udp_rcvbuf_errors() {
	awk '/^Udp:/ { if (!h) { for (i = 1; i <= NF; i++) if ($i == "RcvbufErrors") c = i; h = 1 } else print $c }' /proc/net/snmp
}

# backlog_drops: frames the host dropped because a CPU's input backlog
# was full (net.core.netdev_max_backlog; the second column of
# /proc/net/softnet_stat). A loopback datagram is queued there before UDP
# sees it, so these losses never reach RcvbufErrors.
backlog_drops() {
	local t=0 c _
	while read -r _ c _; do t=$((t + 16#$c)); done </proc/net/softnet_stat
	echo "$t"
}

drops0=$(udp_rcvbuf_errors) backlog0=$(backlog_drops)
start=$(date +%s.%N)
for attempt in 1 2; do
	rm -f "$run"/h*.boothang "$run"/h*.rc
	if [ $two = 1 ]; then
		net=p2p
		read -r pa pb < <(free_ports)
		read -r m1 m2 < <(free_ports)
		echo "$m1" >"$run/h1.monport"
		echo "$m2" >"$run/h2.monport"
		boot 1 --link "$pa" "$pb" -netdev "dgram,id=l,local.type=fd,local.str=@FD@" \
			-device virtio-net-pci,id=nic0,netdev=l,mac=52:54:00:77:00:01,romfile= \
			-monitor "tcp:127.0.0.1:$m1,server=on,wait=off"
		boot 2 --link "$pb" "$pa" -netdev "dgram,id=l,local.type=fd,local.str=@FD@" \
			-device virtio-net-pci,id=nic0,netdev=l,mac=52:54:00:77:00:02,romfile= \
			-monitor "tcp:127.0.0.1:$m2,server=on,wait=off"
		hosts=(1 2)
		watch_link &
		pids+=($!)
	else
		net=user
		# restrict=on: the guest gets a NIC but no route to anything outside.
		boot 1 -netdev user,id=n0,restrict=on -device virtio-net-pci,netdev=n0,romfile=
		hosts=(1)
	fi
	watchers=()
	for n in "${hosts[@]}"; do
		watch_boot "$n" &
		watchers+=($!)
	done
	for p in "${pids[@]}" "${watchers[@]}"; do wait "$p" || true; done
	pids=()
	if ! ls "$run"/h*.boothang >/dev/null 2>&1; then
		break
	fi
	if [ $attempt = 1 ]; then
		echo "vm-run: booting again (a boot that fails before /init is QEMU's or the kernel's, not the test's)" >&2
		# Both VMs of a two-VM run go again.
		rm -f "$run"/h*.pid
	fi
done
end=$(date +%s.%N)
if [ $two = 1 ]; then
	drops=$(( $(udp_rcvbuf_errors) - drops0 ))
	[ "$drops" = 0 ] ||
		echo "vm-run: note: the host dropped $drops UDP datagrams for full receive buffers during the run (the link's frames among them): loss beyond netem's" >&2
	backlog=$(( $(backlog_drops) - backlog0 ))
	[ "$backlog" = 0 ] ||
		echo "vm-run: note: the host dropped $backlog frames for a full input backlog during the run (the link's among them): loss beyond netem's" >&2
fi

# Verdict: the first failure wins, but every host's problems are printed.
rc=0
for n in "${hosts[@]}"; do
	log=$(hostlog "$n")
	tag=vm-run:
	[ $two = 1 ] && tag="vm-run: [h$n]"
	if [ -n "$logfile" ] && [ $two = 1 ]; then
		sed "s/^/[h$n] /" "$log" >>"$logfile"
	fi
	qrc=$(cat "$run/h$n.rc" 2>/dev/null || echo 255)
	res=$(grep -aoE 'SROCE-RESULT: test=[0-9]+ dmesg=(clean|dirty)$' "$log" | tail -n1 || true)
	if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
		echo "$tag QEMU timed out after ${timeout}s" >&2
		[ "$rc" = 0 ] && rc=124
	elif [ -z "$res" ]; then
		echo "$tag no SROCE-RESULT line (guest crashed, panicked or hung; QEMU status $qrc)" >&2
		[ "$rc" = 0 ] && rc=125
	else
		t=$(sed -E 's/.*test=([0-9]+).*/\1/' <<<"$res")
		d=$(sed -E 's/.*dmesg=([a-z]+).*/\1/' <<<"$res")
		if [ "$t" != 0 ]; then
			echo "$tag test failed with status $t" >&2
			[ "$rc" = 0 ] && rc=$t
		fi
		if [ "$d" != clean ]; then
			echo "$tag guest dmesg is dirty" >&2
			[ "$rc" = 0 ] && rc=1
		fi
	fi
	# What the kernel prints after the result line (power-off) counts too.
	if grep -aqE 'Kernel panic - not syncing|BUG: soft lockup|self-detected stall' "$log"; then
		echo "$tag the kernel panicked or a CPU stalled (see the console log)" >&2
		[ "$rc" = 0 ] && rc=1
	fi
done
printf 'vm-run: %s %s in %.1f s: %s\n' "$(basename "$test")" \
	"$([ $two = 1 ] && echo '(two VMs)' || echo '(one VM)')" \
	"$(awk -v a="$start" -v b="$end" 'BEGIN{print b - a}')" "$([ "$rc" = 0 ] && echo PASS || echo "FAIL ($rc)")" >&2
exit "$rc"
