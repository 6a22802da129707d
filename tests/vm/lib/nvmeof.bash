# tests/vm/lib/nvmeof.bash - NVMe over Fabrics helpers for the in-VM suites
# (sourced after lib.sh): an nvmet target on configfs with a brd ramdisk
# and a memory-backed null_blk as its namespaces, an nvme-rdma host
# through nvme-cli, and fio runs that check every block they read back.

nvmeof_nqn=nqn.2026-12.org.sroce:test
nvmeof_cfs=/sys/kernel/config/nvmet

# nvmeof_modules: the target and host modules and their block devices
# (64 MiB of brd; null_blk stores only with memory_backed=1, so fio's
# verify would fail on the plain one).
nvmeof_modules() {
	run_ok "modprobe nvmet, nvmet-rdma, nvme-rdma" bash -c \
		'modprobe configfs && { mountpoint -q /sys/kernel/config ||
		mount -t configfs none /sys/kernel/config; } &&
		modprobe nvmet && modprobe nvmet-rdma && modprobe nvme-rdma'
	run_ok "a 64 MiB ramdisk (brd) and a memory-backed null_blk" bash -c \
		'modprobe brd rd_nr=1 rd_size=65536 &&
		modprobe null_blk nr_devices=1 memory_backed=1 gb=1 &&
		[ -b /dev/ram0 ] && [ -b /dev/nullb0 ]'
	mkdir -p /etc/nvme
	[ -s /etc/nvme/hostnqn ] || nvme gen-hostnqn >/etc/nvme/hostnqn
	[ -s /etc/nvme/hostid ] || cat /proc/sys/kernel/random/uuid >/etc/nvme/hostid
}

# nvmet_target_up_ns: the subsystem (any host may connect) with ram0 as
# namespace 1 and nullb0 as namespace 2, on no port yet.
nvmet_target_up_ns() {
	local s=$nvmeof_cfs/subsystems/$nvmeof_nqn
	run_ok "nvmet subsystem with namespaces ram0 and nullb0" bash -c "
		mkdir -p $s && echo 1 > $s/attr_allow_any_host &&
		mkdir -p $s/namespaces/1 && echo /dev/ram0 > $s/namespaces/1/device_path &&
		echo 1 > $s/namespaces/1/enable &&
		mkdir -p $s/namespaces/2 && echo /dev/nullb0 > $s/namespaces/2/device_path &&
		echo 1 > $s/namespaces/2/enable"
}

# nvmet_target_up ADDR FAMILY(ipv4|ipv6) PORT_ID: that subsystem, served
# by an RDMA port on ADDR:4420.
nvmet_target_up() {
	nvmet_target_up_ns
	nvmet_port_up "$@"
}

# nvmet_port_up ADDR FAMILY PORT_ID: an RDMA port that serves the subsystem.
nvmet_port_up() {
	local addr=$1 fam=$2 p=$nvmeof_cfs/ports/$3
	run_ok "nvmet RDMA port $3 on $addr:4420" bash -c "
		mkdir -p $p && echo rdma > $p/addr_trtype && echo $fam > $p/addr_adrfam &&
		echo $addr > $p/addr_traddr && echo 4420 > $p/addr_trsvcid &&
		ln -s $nvmeof_cfs/subsystems/$nvmeof_nqn $p/subsystems/$nvmeof_nqn"
}

# nvmet_target_down: ports, namespaces and the subsystem go (those that
# are there).
nvmet_target_down() {
	run_ok "nvmet target removed" bash -c "
		shopt -s nullglob
		for l in $nvmeof_cfs/ports/*/subsystems/*; do rm \$l || exit 1; done
		for p in $nvmeof_cfs/ports/*; do rmdir \$p || exit 1; done
		for n in $nvmeof_cfs/subsystems/*/namespaces/*; do
			echo 0 > \$n/enable && rmdir \$n || exit 1; done
		for s in $nvmeof_cfs/subsystems/*; do rmdir \$s || exit 1; done"
}

# nvme_ctrl: the host's controller of the test subsystem (nvme0), or
# nothing.
nvme_ctrl() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = "$nvmeof_nqn" ] &&
			[ "$(cat "$c/transport" 2>/dev/null)" = rdma ] &&
			{ echo "${c##*/}"; return 0; }
	done
	return 1
}

# nvme_ns NSID: the block device of namespace NSID of the test subsystem
# (the multipath head's, or the controller's own without multipath).
nvme_ns() {
	local d c
	for d in /sys/class/nvme-subsystem/*; do
		[ "$(cat "$d/subsysnqn" 2>/dev/null)" = "$nvmeof_nqn" ] && break
		d=
	done
	c=$(nvme_ctrl) || return 1
	for d in ${d:+"$d"/nvme*n*} /sys/class/nvme/"$c"/nvme*n*; do
		[ "$(cat "/sys/block/${d##*/}/nsid" 2>/dev/null)" = "$1" ] || continue
		echo "/dev/${d##*/}"
		return 0
	done
	return 1
}

# nvme_ns_nodes: both namespaces have block device nodes.
nvme_ns_nodes() {
	local a b
	a=$(nvme_ns 1) && b=$(nvme_ns 2) && [ -b "$a" ] && [ -b "$b" ]
}

# nvme_state STATE: the controller is in STATE (live, connecting, ...).
# nvme_state_is STATE SECONDS: it reaches STATE within SECONDS.
nvme_state() {
	local c
	c=$(nvme_ctrl) && [ "$(cat "/sys/class/nvme/$c/state" 2>/dev/null)" = "$1" ]
}
nvme_state_is() { within "$2" nvme_state "$1"; }

# nvme_connect ADDR [OPTIONS...]: the host connects over RDMA, and its two
# namespaces appear.
nvme_connect() {
	local addr=$1
	shift
	run_ok "nvme connect -t rdma -a $addr $*" \
		nvme connect -t rdma -a "$addr" -s 4420 -n "$nvmeof_nqn" "$@"
	ok "nvme_state_is live 30" "the controller is live" ||
		diag "$(nvme list-subsys 2>&1; dmesg | tail -n 20)"
	# The block device's sysfs entry comes before its /dev node (the
	# kernel adds that after): wait for the nodes, up to 60 s.
	within 60 nvme_ns_nodes
	ns1=$(nvme_ns 1) || ns1=
	ns2=$(nvme_ns 2) || ns2=
	ok "$([ -b "$ns1" ] && [ -b "$ns2" ] && echo 1 || echo 0)" \
		"its namespaces are block devices (${ns1:-none} ${ns2:-none})" ||
		diag "$(ls -l /dev/nvme* 2>&1; grep -H . /sys/block/nvme*/dev \
			/sys/class/nvme-subsystem/*/nvme*n*/dev 2>&1; dmesg | tail -n 30)"
}

# nvme_disconnect: the host lets go of the subsystem.
nvme_disconnect() {
	run_ok "nvme disconnect" nvme disconnect -n "$nvmeof_nqn"
	ok "! nvme_ctrl" "the controller is gone"
}

# fio's options for checked I/O: direct, through libaio, the same random
# sequence each run, crc32c in every block, checked as read, fatal; never
# a file of its own: a job that opens a namespace after its controller
# went (no multipath head disk to hold the node) must fail, not create a
# regular file at the node's path that the next connect's node cannot
# replace.
fio_checked=(--ioengine=libaio --direct=1 --randrepeat=1 --verify=crc32c --verify_fatal=1
	--allow_file_create=0)

# fio_run NAME DEV ARGS...: one fio job on DEV with fio_checked; it fails
# on any I/O error and on any block that does not read back as written.
fio_run() {
	local name=$1 dev=$2
	shift 2
	run_ok "fio $name on ${dev#/dev/}" fio --name="$name" --filename="$dev" \
		"${fio_checked[@]}" --output-format=terse --terse-version=3 "$@"
}
