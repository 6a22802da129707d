#!/bin/bash
# FLUSH with placement type PERSISTENT over persistent memory: the VM's
# emulated NVDIMM (vm-run.sh's "vm-pmem" below) becomes a device DAX
# mapping, /dev/dax0.0, and pmem_flush registers MRs over it and flushes
# them, sroce's QPs talking to its own address. A kprobe on the kernel's
# cache write-back (arch_wb_cache_pmem) shows the bytes each FLUSH
# wrote back. Then the same program against rdma_rxe in the same boot,
# which must agree, but for the deviations listed. Linux 6.12 only (make
# check runs it there): 6.1's core refuses the FLUSH access flags.
# vm-pmem: 128
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"

P=/usr/libexec/sroce
dax=/dev/dax0.0
tr=/sys/kernel/tracing

# rdma_rxe's deviations: pmem_flush -t ID=REASON reports them as TODO.
rxe_todo=(-t "window-ram=rdma_rxe 6.12 lets a window over ordinary memory grant FLUSH_PERSISTENT"
	-t "rereg-ram=rdma_rxe 6.12 takes no FLUSH right in a rereg at all (EOPNOTSUPP)"
	-t "window-mr=rdma_rxe 6.12 writes back a window's whole MR for a FLUSH of the MR level through it (2 MiB for a 64-byte window)")

run_ok "the NVDIMM's drivers load (nfit, dax_pmem, device_dax)" \
	modprobe -a nfit dax_pmem device_dax
for _ in $(seq 600); do [ -e /sys/bus/nd/devices/namespace0.0 ] && break; sleep 0.1; done
run_ok "the label-less NVDIMM shows as namespace0.0" test -e /sys/bus/nd/devices/namespace0.0
run_ok "ndctl makes it device DAX" \
	timeout 60 ndctl create-namespace -f -e namespace0.0 -m devdax
for _ in $(seq 600); do [ -c $dax ] && break; sleep 0.1; done
run_ok "$dax appears" test -c $dax

ip link add va type veth peer name vb
ip link set va up
ip link set vb up
ip addr add 10.99.0.1/24 dev va

# wb_sum: the bytes arch_wb_cache_pmem() was given since the trace was
# cleared (the kprobe's size argument, one line per call).
wb_sum() {
	awk '/sroce_wb:/ { for (i = 1; i <= NF; i++) if ($i ~ /^size=/) { sub(/^size=/, "", $i); s += $i } }
		END { print s + 0 }' "$tr/trace"
}
mountpoint -q $tr || mount -t tracefs tracefs $tr
run_ok "a kprobe on arch_wb_cache_pmem" \
	sh -c "echo 'p:sroce_wb arch_wb_cache_pmem size=%si:u64' >> $tr/kprobe_events && echo 1 > $tr/events/kprobes/sroce_wb/enable"

# flush_run NAME DEV [TODO...]: pmem_flush on DEV under rdma-core 56.1's
# libibverbs, then the bytes it asked to write back against those the
# kernel wrote back.
flush_run() {
	local name=$1 dev=$2 gid want
	shift 2
	gid=$(gid_index "$dev" 10.99.0.1) || gid=
	ok "$([ -n "$gid" ] && echo 1 || echo 0)" "$name: RoCE v2 GID for 10.99.0.1 (index ${gid:-none})"
	: >"$tr/trace"
	tap_merge "$name" bash -o pipefail -c '"$@" | tee /tmp/pmem_flush.out' _ \
		env "$(rc56_env)" timeout 120 $P/pmem_flush "$@" "$dev" "${gid:-0}" $dax
	want=$(awk '$2 == "wb-bytes" { print $3 }' /tmp/pmem_flush.out)
	is "$(wb_sum)" "${want:-none}" "$name: the kernel wrote back what the PERSISTENT FLUSHes asked for"
}

run_ok "an sroce device on veth va" rdma link add sx type sroce netdev va
flush_run pmem_flush-sroce sx
run_ok "rdma link delete sx" rdma link delete sx
run_ok "rmmod sroce frees the port" rmmod sroce

run_ok "rdma_rxe loads" modprobe rdma_rxe
run_ok "an rxe device on veth va" rdma link add rxe0 type rxe netdev va
flush_run pmem_flush-rxe rxe0 "${rxe_todo[@]}"
run_ok "rdma link delete rxe0" rdma link delete rxe0
run_ok "rmmod rdma_rxe" rmmod rdma_rxe
echo 0 > $tr/events/kprobes/sroce_wb/enable
echo '-:sroce_wb' >> $tr/kprobe_events
done_testing
