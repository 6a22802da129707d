#!/bin/bash
# iser.sh: iSCSI over RDMA (iSER) on one sroce device: the kernel's LIO
# target with its iSER transport (isert), set up through configfs with a
# brd ramdisk as its LUN, and the ib_iser initiator driven by open-iscsi
# (iscsid, iscsiadm): discovery, login over iSER, fio writes and reads of
# the SCSI disk with every block checked, logout, and a second login that
# finds the data still there.
#   scripts/vm-run.sh tests/vm/suites/iser.sh
# vm-image: ulp
set -u
# shellcheck source=tests/vm/lib/lib.sh
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"
# shellcheck source=tests/vm/lib/nvmeof.bash
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/nvmeof.bash"	# fio_run

dev=sroce0
ND=${SROCE_NETDEV:-eth0}
IP4=$SROCE_IP4
T=/sys/kernel/config/target
IQN=iqn.2026-12.org.sroce:target
TPG=$T/iscsi/$IQN/tpgt_1

sroce_up "$dev" "$ND" "$IP4"

# The target: a 64 MiB ramdisk as LUN 0, any initiator, no CHAP, and a
# portal on the device's address with iSER on.
run_ok "LIO target modules, isert, ib_iser, a ramdisk" bash -c '
	modprobe -a configfs target_core_mod target_core_iblock iscsi_target_mod ib_isert ib_iser sd_mod &&
	{ mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config; } &&
	modprobe brd rd_nr=1 rd_size=65536'
run_ok "LIO: an iblock backstore on ram0 and an iSCSI target with LUN 0" bash -c "
	mkdir -p $T/core/iblock_0/disk0 &&
	echo udev_path=/dev/ram0 >$T/core/iblock_0/disk0/control &&
	echo 1 >$T/core/iblock_0/disk0/enable &&
	mkdir -p $TPG/lun/lun_0 &&
	ln -s $T/core/iblock_0/disk0 $TPG/lun/lun_0/disk0 &&
	echo 1 >$TPG/attrib/generate_node_acls && echo 0 >$TPG/attrib/authentication &&
	echo 0 >$TPG/attrib/demo_mode_write_protect && echo 1 >$TPG/attrib/cache_dynamic_acls"
run_ok "LIO: a portal on $IP4:3260 with iSER on" bash -c "
	mkdir -p $TPG/np/$IP4:3260 && echo 1 >$TPG/np/$IP4:3260/iser &&
	echo 1 >$TPG/enable && [ \"\$(cat $TPG/np/$IP4:3260/iser)\" = 1 ]"
ok "rdma res show cm_id | grep -q 'state LISTEN.*:3260 '" \
	"isert's RDMA CM id listens on 3260" || diag "$(rdma res show cm_id)"

# The initiator: open-iscsi with its own name, iscsid running.
mkdir -p /etc/iscsi /var/lib/iscsi /run/lock/iscsi
echo "InitiatorName=iqn.2026-12.org.sroce:initiator" >/etc/iscsi/initiatorname.iscsi
printf '%s\n' 'node.startup = manual' 'node.session.timeo.replacement_timeout = 20' \
	>/etc/iscsi/iscsid.conf
run_ok "iscsid" iscsid
out=$(iscsiadm -m discovery -t st -p "$IP4:3260" -I iser 2>&1)
ok "$(grep -q "$IQN" <<<"$out" && echo 1 || echo 0)" \
	"iscsiadm discovery finds the target" || diag "$out"

# iser_disk: the SCSI disk of the iSER session, or nothing.
iser_disk() {
	local b
	for b in /sys/class/iscsi_session/session*/device/target*/*/block/*; do
		[ -e "$b" ] && { echo "/dev/${b##*/}"; return 0; }
	done
	return 1
}

# iser_login: log in over iSER; the session is iSER's and its disk shows.
iser_login() {
	run_ok "iscsiadm login over iSER" iscsiadm -m node -T "$IQN" -p "$IP4:3260" -I iser --login
	ok "iscsiadm -m session -P 1 2>/dev/null | grep -q 'Iface Transport: iser'" \
		"the session's transport is iser" || diag "$(iscsiadm -m session -P 1 2>&1)"
	for _ in $(seq 100); do iser_disk >/dev/null && break; sleep 0.1; done
	disk=$(iser_disk) || disk=
	ok "[ -b '$disk' ]" "the LUN is a SCSI disk (${disk:-none})"
}

iser_login
ok "rdma res show qp link $dev/1 | grep -q 'type RC'" \
	"the session's connection is an RC QP on $dev" || diag "$(rdma res show qp)"
fio_run "randwrite 4k..128k QD1" "$disk" --rw=randwrite --bsrange=4k-128k --size=8M --iodepth=1
fio_run "randwrite 4k..128k QD32" "$disk" --rw=randwrite --bsrange=4k-128k --size=32M --iodepth=32
run_ok "iscsiadm logout" iscsiadm -m node -T "$IQN" -p "$IP4:3260" --logout
ok "! iser_disk" "the disk went with the session"
iser_login
fio_run "randread after a new login, verify only" "$disk" --rw=randwrite \
	--bsrange=4k-128k --size=32M --iodepth=32 --verify_only
run_ok "iscsiadm logout" iscsiadm -m node -T "$IQN" -p "$IP4:3260" --logout

pkill iscsid
run_ok "LIO target removed" bash -c "
	echo 0 >$TPG/enable && echo 0 >$TPG/np/$IP4:3260/iser &&
	rmdir $TPG/np/$IP4:3260 && rm $TPG/lun/lun_0/disk0 && rmdir $TPG/lun/lun_0 &&
	rmdir $TPG && rmdir $T/iscsi/$IQN && rmdir $T/core/iblock_0/disk0 &&
	rmdir $T/core/iblock_0"
run_ok "rmmod ib_iser ib_isert" rmmod ib_iser ib_isert
run_ok "rdma link delete $dev" rdma link delete "$dev"
run_ok "rmmod sroce" rmmod sroce
done_testing
