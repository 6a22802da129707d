# tests/vm/roce.sh - RoCE helpers for the in-VM scripts (bash), sourced
# by lib.sh and by scripts that are not TAP suites (bench-guest.sh).

# gid_index DEV IPV4: the index of DEV's RoCE v2 GID that carries IPV4 (an
# IPv4-mapped IPv6 address). The core fills the GID table from a work
# queue after the device appears, so wait for it a little.
gid_index() {
	local dev=$1 want g i
	local -a b
	IFS=. read -ra b <<< "$2"
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' \
		"${b[0]}" "${b[1]}" "${b[2]}" "${b[3]}")
	for _ in $(seq 50); do
		for g in /sys/class/infiniband/"$dev"/ports/1/gids/*; do
			i=${g##*/}
			if [ "$(cat "$g" 2>/dev/null)" = "$want" ] &&
				[ "$(cat "/sys/class/infiniband/$dev/ports/1/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ]; then
				echo "$i"
				return 0
			fi
		done
		sleep 0.1
	done
	return 1
}
