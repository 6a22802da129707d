#!/bin/bash
# Device lifecycle: rdma link add/delete on every kind of Ethernet netdev,
# GIDs, port state and events, MTU, bad input, provider matching, PDs from
# userspace and the kernel, and rmmod with devices present.
. "${SROCE_TESTS:-$(dirname "$0")/..}/lib/lib.sh"

not() { ! "$@"; }
dev_exists() { [ -e "/sys/class/infiniband/$1" ]; }
no_devices() { [ -z "$(ibv_devices | awk 'NR > 2')" ]; }
lists() { ibv_devices | awk 'NR > 2 { print $1 }' | grep -Fqx -- "$1"; }
link_on() { rdma link show | grep -Eq "^link $1/1 .* netdev $2 *\$"; }
is_num_links() { [ "$(rdma link show | grep -c "^link $1/")" = "$2" ]; }
dmesg_has() { dmesg | grep -q "$1"; }
module_loaded() { grep -q "^$1 " /proc/modules; }
# The core fills GIDs and dispatches events from workqueues, so their
# effects are waited for (within, lib.sh), not looked at once.


# has_gid DEV GID TYPE: the GID table of port 1 holds GID with that type.
has_gid() {
	local d=/sys/class/infiniband/$1/ports/1 f v
	for f in "$d"/gids/*; do
		sysfs_get v "$f"
		[ "$v" = "$2" ] || continue
		sysfs_get v "$d/gid_attrs/types/${f##*/}"
		[ "$v" = "$3" ] && return 0
	done
	return 1
}

# has_gid_type DEV TYPE: some GID of port 1 has that type.
has_gid_type() {
	local f v
	for f in /sys/class/infiniband/"$1"/ports/1/gid_attrs/types/*; do
		sysfs_get v "$f"
		[ "$v" = "$2" ] && return 0
	done
	return 1
}

# The fe80:: GID of a netdev: its EUI-64, as the kernel forms it.
ll_gid() {
	local g
	g=$(guid_of_mac "$(cat /sys/class/net/"$1"/address)")
	echo "fe80:0000:0000:0000:$g"
}

devinfo_field() { # DEV FIELD: the value ibv_devinfo -v prints for FIELD
	ibv_devinfo -v -d "$1" | awk -v f="$2:" '$1 == f { print $2; exit }'
}

port_field() { ibv_devinfo -d "$1" | awk -v f="$2:" '$1 == f { print $2; exit }'; }
port_is() { [ "$(port_field "$1" "$2")" = "$3" ]; }
devinfo_is() { [ "$(devinfo_field "$1" "$2")" = "$3" ]; }

# The EUI-64 of a MAC, as ibv_devinfo prints a GUID.
guid_of_mac() {
	local IFS=: b
	read -ra b <<< "$1"
	printf '%02x%s:%s%s:%s%s:%s%s\n' $((0x${b[0]} ^ 2)) "${b[1]}" "${b[2]}" ff fe "${b[3]}" "${b[4]}" "${b[5]}"
}

ND=${SROCE_NETDEV:-eth0}

# --- module autoload and the first device ---
run_ok "sroce not loaded before the first rdma link add" not module_loaded sroce
run_ok "rdma link add s0 on $ND autoloads sroce" rdma link add s0 type sroce netdev "$ND"
run_ok "sroce module loaded by the link type" module_loaded sroce
run_ok "s0 in /sys/class/infiniband" dev_exists s0
run_ok "rdma link show names s0 on $ND" link_on s0 "$ND"
run_ok "rdma dev show s0" rdma dev show s0
is "$(cat /sys/class/infiniband/s0/sroce_abi_version)" 1 "sysfs sroce_abi_version"

# --- the provider: rdma-core's tools see the device ---
run_ok "ibv_devices lists s0" lists s0
is "$(port_field s0 link_layer)" Ethernet "link_layer Ethernet"
is "$(port_field s0 state)" PORT_ACTIVE "port state PORT_ACTIVE"
is "$(devinfo_field s0 phys_state)" LINK_UP "phys_state LINK_UP"
is "$(port_field s0 transport)" InfiniBand "transport InfiniBand (RoCE)"
is "$(port_field s0 node_guid)" "$(guid_of_mac "$(cat /sys/class/net/"$ND"/address)")" \
	"node_guid is the EUI-64 of the MAC"
is "$(port_field s0 active_mtu)" 1024 "active_mtu 1024 on a 1500-byte netdev"
is "$(port_field s0 max_mtu)" 4096 "max_mtu 4096"
is "$(devinfo_field s0 max_pd)" 65536 "max_pd advertised"
is "$(devinfo_field s0 max_qp)" 65536 "max_qp advertised"
is "$(devinfo_field s0 max_cq)" 65536 "max_cq advertised"
is "$(devinfo_field s0 max_mr)" 16777215 "max_mr advertised"
is "$(devinfo_field s0 vendor_id)" 0xffffff "vendor_id"

# --- GIDs: the core's RoCE GID management fills the table ---
run_ok "RoCE v2 GID for 10.0.2.15" within 60 has_gid s0 0000:0000:0000:0000:0000:ffff:0a00:020f 'RoCE v2'
run_ok "IPv6 link-local RoCE v2 GID" has_gid s0 "$(ll_gid "$ND")" 'RoCE v2'
# The wire is RoCE v2 only, so no RoCE v1 GID may be offered.
run_ok "no RoCE v1 GIDs" not has_gid_type s0 'IB/RoCE v1'
ip -6 addr add fd77::15/64 dev "$ND" nodad
run_ok "RoCE v2 GID appears with a new IPv6 address" within 60 has_gid s0 fd77:0000:0000:0000:0000:0000:0000:0015 'RoCE v2'
ip -6 addr del fd77::15/64 dev "$ND"
run_ok "the GID goes with the address" within 60 not has_gid s0 fd77:0000:0000:0000:0000:0000:0000:0015 'RoCE v2'

# --- PDs from userspace and from the kernel ---
run_ok "pd_test: context, query, PDs, unbuilt verbs fail" /usr/libexec/sroce/pd_test s0
run_ok "kernel consumer allocates PDs" modprobe sroce_test_kverbs dev=s0
rmmod sroce_test_kverbs 2>/dev/null

# --- bad input: a clean error and no device ---
fails_ok "unknown netdev is refused" rdma link add bad0 type sroce netdev nosuch0
modprobe tun
ip tuntap add dev tun0 mode tun
fails_ok "non-Ethernet netdev (tun) is refused" rdma link add bad1 type sroce netdev tun0
run_ok "no device left by the refused tun link" not dev_exists bad1
ip link del tun0
fails_ok "a netdev already bound to sroce is refused" rdma link add bad2 type sroce netdev "$ND"
run_ok "no device left by the second bind" not dev_exists bad2
ip link add dmy0 type dummy
fails_ok "a duplicate device name is refused" rdma link add s0 type sroce netdev dmy0
run_ok "s0 still bound once" is_num_links s0 1
fails_ok "a name the rxe provider would claim is refused" rdma link add rxe_s type sroce netdev dmy0
run_ok "no device left by the refused name" not dev_exists rxe_s

# --- several devices on every kind of Ethernet netdev ---
ip link set dmy0 up
ip link add veth0 type veth peer name veth1
ip link set veth0 up
ip link set veth1 up
modprobe 8021q
ip link add link "$ND" name vlan100 type vlan id 100
ip link set vlan100 up
modprobe bonding max_bonds=0
ip link add bond0 type bond
ip link set bond0 up
run_ok "device on a dummy netdev" rdma link add sd type sroce netdev dmy0
run_ok "device on veth0, any name" rdma link add my-rdma.dev_1 type sroce netdev veth0
run_ok "device on veth1" rdma link add sv1 type sroce netdev veth1
run_ok "device on a VLAN" rdma link add svlan type sroce netdev vlan100
run_ok "device on a bond" rdma link add sbond type sroce netdev bond0
run_ok "device on loopback" rdma link add slo type sroce netdev lo
for d in s0 sd my-rdma.dev_1 sv1 svlan sbond slo; do
	run_ok "ibv_devices lists $d" lists "$d"
done
is "$(port_field slo link_layer)" Ethernet "loopback device is Ethernet link layer"
run_ok "loopback device has a GID for 127.0.0.1" within 60 has_gid slo 0000:0000:0000:0000:0000:ffff:7f00:0001 'RoCE v2'

# --- the provider matches by its own attribute, not by name ---
# (rdma_rxe beside sroce, and its provider, are covered in rx.sh: the two
# cannot share UDP 4791 in one namespace.)
is "$(devinfo_field my-rdma.dev_1 vendor_part_id)" 24076 "an oddly named sroce device opens through libsroce"

# --- port state and events follow the netdev ---
ibv_asyncwatch -d sd > /tmp/events 2>&1 &
watch=$!
run_ok "ibv_asyncwatch has sd open (events from now on reach it)" \
	within 60 grep -q "async event FD" /tmp/events
ip link set dmy0 down
run_ok "port goes DOWN with the link" within 60 port_is sd state PORT_DOWN
run_ok "IBV_EVENT_PORT_ERR delivered" within 60 grep -q IBV_EVENT_PORT_ERR /tmp/events
ip link set dmy0 up
run_ok "port goes ACTIVE with the link" within 60 port_is sd state PORT_ACTIVE
run_ok "IBV_EVENT_PORT_ACTIVE delivered" within 60 grep -q IBV_EVENT_PORT_ACTIVE /tmp/events
kill "$watch" 2>/dev/null
wait "$watch" 2>/dev/null

# veth0 stays up but loses carrier when its peer goes down.
ip link set veth1 down
run_ok "no carrier: port DOWN" within 60 port_is my-rdma.dev_1 state PORT_DOWN
is "$(devinfo_field my-rdma.dev_1 phys_state)" POLLING "up without carrier: phys_state POLLING"
is "$(devinfo_field sv1 phys_state)" DISABLED "netdev down: phys_state DISABLED"
ip link set veth1 up
run_ok "carrier back: port ACTIVE" within 60 port_is my-rdma.dev_1 state PORT_ACTIVE

# --- MTU changes update active_mtu ---
ip link set dmy0 mtu 9000
is "$(port_field sd active_mtu)" 4096 "netdev MTU 9000 gives active_mtu 4096"
ip link set dmy0 mtu 2200
is "$(port_field sd active_mtu)" 2048 "netdev MTU 2200 gives active_mtu 2048"
ip link set dmy0 mtu 1500
is "$(port_field sd active_mtu)" 1024 "netdev MTU 1500 gives active_mtu 1024"

# --- removal: link delete, netdev unregister ---
run_ok "rdma link delete sv1" rdma link delete sv1
run_ok "sv1 gone after rdma link delete" not dev_exists sv1
run_ok "ibv_devices no longer lists sv1" not lists sv1
fails_ok "deleting it twice fails" rdma link delete sv1
ip link del veth0
run_ok "unregistering veth0 removes its device" within 60 not dev_exists my-rdma.dev_1
ip link del vlan100
run_ok "unregistering the VLAN removes its device" within 60 not dev_exists svlan

# --- removal while a process holds the device open ---
ibv_asyncwatch -d sd > /tmp/events2 2>&1 &
watch=$!
run_ok "ibv_asyncwatch has sd open" within 60 grep -q "async event FD" /tmp/events2
run_ok "rdma link delete with a context open completes" timeout 30 rdma link delete sd
run_ok "the holder gets IBV_EVENT_DEVICE_FATAL" within 60 grep -q IBV_EVENT_DEVICE_FATAL /tmp/events2
kill "$watch" 2>/dev/null
wait "$watch" 2>/dev/null
run_ok "a device on the freed netdev again" rdma link add sd type sroce netdev dmy0
ibv_asyncwatch -d sd > /tmp/events3 2>&1 &
watch=$!
run_ok "ibv_asyncwatch has the new sd open" within 60 grep -q "async event FD" /tmp/events3

# --- rmmod with devices present (and one held open) ---
run_ok "rmmod sroce with devices present, one held open" timeout 60 rmmod sroce
run_ok "the holder of the removed device gets IBV_EVENT_DEVICE_FATAL" within 60 grep -q IBV_EVENT_DEVICE_FATAL /tmp/events3
kill "$watch" 2>/dev/null
wait "$watch" 2>/dev/null
for d in s0 sd sbond slo; do
	run_ok "$d removed by rmmod" not dev_exists "$d"
done
run_ok "no RDMA devices left" no_devices
run_ok "the module loads again" modprobe sroce
run_ok "and takes a new device" rdma link add s0 type sroce netdev "$ND"
ip link del bond0
ip link del dmy0
run_ok "rmmod again" rmmod sroce
run_ok "no netdev reference leaked" not dmesg_has 'to become free'
run_ok "no port query failed (port events all delivered)" not dmesg_has 'ib_query_port failed'

done_testing
