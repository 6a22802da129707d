#!/usr/bin/env bash
# Install everything sroce needs from Debian's archive, idempotently.
# The archive address is read from the machine's apt configuration; no
# host name is written here. A second run only checks and returns.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${SROCE_CACHE:-$top/build/cache}
mkdir -p "$cache"

RDMA_CORE_VER=56.1
RDMA_CORE_TAR=rdma-core_${RDMA_CORE_VER}.orig.tar.gz
RDMA_CORE_SHA256=$(cat "$top/scripts/rdma-core.sha256")

PKGS=(qemu-system-x86 linux-image-amd64 linux-headers-amd64 linux-source-6.1
      busybox-static kmod cpio xz-utils zstd bc rdma-core ibverbs-utils
      rdmacm-utils perftest iproute2 sparse libibverbs-dev cmake ninja-build
      pkg-config librdmacm-dev libnl-3-dev libnl-route-3-dev libudev-dev gcc make curl
      libclang-rt-14-dev clang dkms procps ethtool tcpdump strace
      iperf3 linux-perf fio nvme-cli nfs-kernel-server open-iscsi ndctl
      ccache flex bison libelf-dev libssl-dev python3 python3-pyverbs)

sudo_() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# The Debian mirror this machine already uses for bookworm.
debian_uri() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN{RS=""} /Suites:[^\n]*bookworm([ \n]|$)/ && !/security/ {
			if (match($0, /URIs:[ \t]*[^ \t\n]+/)) {
				s = substr($0, RSTART, RLENGTH); sub(/URIs:[ \t]*/, "", s); print s; exit } }' "$f"
	done | head -n1 | grep . && return 0
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		awk '$1 == "deb" && $3 == "bookworm" { print $2; exit }' "$f"
	done | head -n1 | grep . && return 0
	echo "deps: no bookworm source in the apt configuration" >&2
	return 1
}

URI=$(debian_uri)
URI=${URI%/}

have_all() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || return 1
	done
}

# bookworm-backports carries the 6.12 headers.
bp=/etc/apt/sources.list.d/sroce-backports.sources
updated=0
if [ ! -f "$bp" ]; then
	printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
		"$URI" | sudo_ tee "$bp" >/dev/null
	sudo_ apt-get update -q
	updated=1
fi

# The daemons that come with tools only copied into the VM image (nfsd's
# helpers, iscsid, rdma-core's) are not started on this host: a
# policy-rc.d that forbids every start (101) while apt installs, unless
# the machine has its own.
no_daemons() {
	[ ! -e /usr/sbin/policy-rc.d ] || return 0
	printf '#!/bin/sh\nexit 101\n' | sudo_ tee /usr/sbin/policy-rc.d >/dev/null
	sudo_ chmod 755 /usr/sbin/policy-rc.d
	trap 'sudo_ rm -f /usr/sbin/policy-rc.d' EXIT
}

if ! have_all "${PKGS[@]}"; then
	no_daemons
	[ $updated = 1 ] || sudo_ apt-get update -q
	updated=1
	sudo_ env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${PKGS[@]}"
fi

# The newest 6.12 headers and image in the archive (not the metapackages,
# which would replace the 6.1 ones): the module is built against both
# kernels and the VM suites boot both.
hdr612=$(apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+\+deb[0-9]+-amd64$' |
	 awk '{print $1}' | sort -V | tail -n1)
if [ -z "$hdr612" ]; then
	echo "deps: no 6.12 headers found in the archive (bookworm-backports or -security)" >&2
	exit 1
fi
# A kernel that reached the archive through bookworm-security may come as
# the -unsigned image only: the same kernel, the same /boot and
# /lib/modules paths, which is all the VM needs.
has_candidate() {
	LC_ALL=C apt-cache policy "$1" 2>/dev/null | grep -q 'Candidate: [^(]'
}
img612=linux-image-${hdr612#linux-headers-}
if ! have_all "$img612" && ! has_candidate "$img612"; then
	img612=$img612-unsigned
fi
if ! have_all "$hdr612" "$img612"; then
	no_daemons
	sudo_ env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		-t bookworm-backports "$hdr612" "$img612"
fi

# rdma-core's private provider headers: the upstream tarball from the pool.
tar=$cache/$RDMA_CORE_TAR
if ! echo "$RDMA_CORE_SHA256  $tar" | sha256sum -c --quiet - 2>/dev/null; then
	curl -fsSL --retry 3 -o "$tar.part" "$URI/pool/main/r/rdma-core/$RDMA_CORE_TAR"
	echo "$RDMA_CORE_SHA256  $tar.part" | sha256sum -c --quiet -
	mv "$tar.part" "$tar"
fi

# checkpatch is not in the headers package; take it from linux-source-6.1.
cp_dir=$cache/checkpatch
if [ ! -x "$cp_dir/scripts/checkpatch.pl" ]; then
	mkdir -p "$cp_dir"
	src=$(ls /usr/src/linux-source-6.1.tar.* | head -n1)
	tar -C "$cp_dir" --strip-components=1 -xf "$src" --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch'
fi
echo "deps: ok"
