#!/usr/bin/env bash
# vm-initramfs.sh KVER OUT.cpio [base|ulp|py]
# Build the base initramfs of the test VM from the host's own files: the
# userspace tools and every library they load, the provider libraries, and
# the kernel modules of KVER with their dependencies. It does not change from
# run to run, so it is cached; the per-run files come in a second archive
# (vm-overlay.sh) that the kernel unpacks on top. The ulp flavour adds the
# kernel ULPs' modules and tools (twice the size: only their suites pay
# for it); the py flavour adds Python and rdma-core's pyverbs with its
# test suite (tests/vm/suites/pyverbs.sh).
set -euo pipefail

die() { echo "vm-initramfs: $*" >&2; exit 1; }
[ $# -eq 2 ] || [ $# -eq 3 ] || die "usage: vm-initramfs.sh KVER OUT.cpio [base|ulp|py]"
kver=$1 out=$2 flavour=${3:-base}
here=$(cd "$(dirname "$0")" && pwd)
init=$here/vm-init.sh
moddir=/lib/modules/$kver
[ -d "$moddir" ] || die "no $moddir (is linux-image-$kver installed?)"

if [ -s "$out" ] && [ "$out" -nt "$0" ] && [ "$out" -nt "$init" ] &&
	[ "$out" -nt "$moddir/modules.dep" ]; then
	exit 0
fi

# Packages whose programs go in whole. coreutils, findutils, procps and
# util-linux are there because busybox's timeout/env/xargs run busybox's
# own applets instead of the real tools.
PROG_PKGS=(bash coreutils findutils grep sed mawk diffutils gzip procps
	util-linux kmod iproute2 iputils-ping ethtool tcpdump strace
	rdma-core ibverbs-utils rdmacm-utils perftest iperf3 linux-perf ndctl)
# iperf3 and perf serve `make bench` (TCP on the same link) and `make
# profile` (perf record -a -g in the guest); linux-perf's /usr/bin/perf is
# the 6.1 tool itself, which also reads the 6.12 kernel's samples. ndctl
# (with nfit, dax_pmem and device_dax below) turns a suite's emulated
# NVDIMM into a device-DAX mapping (tests/vm/suites/pmem.sh).
# Packages that are only needed for some tools are allowed to be absent.
OPT_PKGS=(iputils-ping)

# Modules the suites rely on; dependencies are resolved below.
MODULES=(ib_core ib_uverbs ib_umad rdma_ucm rdma_cm ib_cm iw_cm rdma_rxe
	virtio_pci virtio_net virtio_blk veth 8021q bonding tun dummy sch_netem
	udp_tunnel ip6_udp_tunnel ipv6 af_packet
	nfit dax_pmem device_dax)
# The ulp flavour: NVMe over Fabrics (nvme-cli, fio), NFS over RDMA, RDS,
# iSER (open-iscsi), their modules and block devices to serve.
if [ "$flavour" = ulp ]; then
	PROG_PKGS+=(fio nvme-cli nfs-kernel-server nfs-common rpcbind open-iscsi)
	MODULES+=(nvmet nvmet-rdma nvme-rdma brd null_blk rds rds_rdma
		nfsd nfs nfsv3 nfsv4 rpcrdma
		ib_isert ib_iser target_core_mod target_core_iblock iscsi_target_mod sd_mod)
fi
# The py flavour: every file of Python's packages and pyverbs', and the
# byte code Debian compiled for them on the host (the guest would
# otherwise compile the standard library it imports on every boot).
PY_PKGS=()
[ "$flavour" = py ] && PY_PKGS=(python3-minimal python3.11-minimal libpython3.11-minimal
	libpython3.11-stdlib libpython3.11 python3 python3-pyverbs)
# The crc32/crc32c implementations rxe's ICRC may ask for by crypto name,
# and a few that may be built in or absent depending on the kernel.
OPT_MODULES=(crc32_generic crc32c_generic crc32-pclmul crc32c-intel
	libcrc32c sch_tbf sch_prio sch_htb sch_red cls_u32 configfs)

root=$(mktemp -d "$(dirname "$out")/.initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT
mkdir -p "$(dirname "$out")"

# Mirror the host's merged-/usr symlinks so every path a binary or
# ld.so.cache names resolves the same way inside the guest.
for d in bin sbin lib lib32 lib64 libx32; do
	if [ -L "/$d" ]; then
		ln -s "$(readlink "/$d")" "$root/$d"
	fi
done
mkdir -p "$root"/{dev,proc,sys,tmp,run,root,mnt,etc,var/tmp,usr/bin,usr/sbin,usr/lib}

# add PATH: copy one host file, keeping symlinks as symlinks (and adding
# their targets). The directory part is canonicalised so nothing is copied
# "through" a merged-/usr symlink into a real directory.
add() {
	local p=$1 dir name dst t
	dir=$(realpath -e "$(dirname "$p")") || die "missing $p"
	name=${p##*/}
	dst=$root$dir/$name
	[ -e "$dst" ] || [ -L "$dst" ] && return 0
	mkdir -p "$root$dir"
	if [ -L "$dir/$name" ]; then
		t=$(readlink "$dir/$name")
		ln -s "$t" "$dst"
		case $t in
		/*) add "$t" ;;
		*) add "$dir/$t" ;;
		esac
	elif [ -d "$dir/$name" ]; then
		mkdir -p "$dst"
	elif [ -e "$dir/$name" ]; then
		cp -p "$dir/$name" "$dst"
	else
		die "missing $p"
	fi
}

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

for pkg in "${PROG_PKGS[@]}"; do
	if ! installed "$pkg"; then
		[[ " ${OPT_PKGS[*]} " == *" $pkg "* ]] && continue
		die "package $pkg is not installed (run scripts/deps.sh)"
	fi
	while read -r f; do
		[ -d "$f" ] && [ ! -L "$f" ] && continue
		add "$f"
	done < <(dpkg -L "$pkg" | grep -E '^/(usr/)?s?bin/[^/]+$')
done

for pkg in ${PY_PKGS[@]+"${PY_PKGS[@]}"}; do
	installed "$pkg" || die "package $pkg is not installed (run scripts/deps.sh)"
	while read -r f; do
		[ -d "$f" ] && [ ! -L "$f" ] && continue
		[ -e "$f" ] || [ -L "$f" ] || continue
		add "$f"
		case $f in
		*.py)
			b=${f##*/}
			for c in "${f%/*}"/__pycache__/"${b%.py}".cpython-*.pyc; do
				[ -f "$c" ] && add "$c"
			done
			;;
		esac
	done < <(dpkg -L "$pkg")
done
# rdma-core's tests as Debian ships them, some compressed: runnable.
if [ "$flavour" = py ]; then
	find "$root/usr/share/doc/rdma-core/tests" -name '*.gz' -exec gunzip -f {} +
fi

# busybox only fills the gaps (poweroff, ...): its applets live in a
# directory that comes last in the guest's PATH.
add /bin/busybox
mkdir -p "$root/usr/lib/sroce-busybox"
for a in $(/bin/busybox --list); do
	ln -s /bin/busybox "$root/usr/lib/sroce-busybox/$a"
done

# Verbs: libibverbs dlopens every provider named in /etc/libibverbs.d; glibc
# dlopens libgcc_s for pthread_cancel (rping aborts without it), and ldd
# names neither.
multi=/usr/lib/x86_64-linux-gnu
for f in "$multi"/libibverbs.so.1* "$multi"/librdmacm.so.1* "$multi"/libgcc_s.so.1 \
	"$multi"/libibverbs/* /etc/libibverbs.d/*; do
	add "$f"
done
for f in "$multi"/librdmacm/*; do
	[ -e "$f" ] && add "$f"
done

# Every library any ELF file in the tree needs, transitively (ldd already
# follows the chain, so one pass over the files is enough).
elf() { [ -f "$1" ] && [ ! -L "$1" ] && [ "$(head -c4 "$1" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ]; }
while read -r -d '' f; do
	h=${f#"$root"}
	elf "$f" || continue
	ldd "$h" 2>/dev/null | awk '/=> \// {print $3} /^\t\// {print $1}' || true
done < <(find "$root" -type f -print0) | sort -u | while read -r lib; do
	add "$lib"
done

# Kernel modules and everything they depend on, then a fresh index.
mods() {
	local deps
	# Without the host's /etc/modprobe.d (-C /dev/null): an "install"
	# rule there (ndctl's for libnvdimm) shows a dependency as a command,
	# not as the module the guest, which has no such rule, needs.
	deps=$(modprobe -C /dev/null -S "$kver" --show-depends "$1" 2>/dev/null) || return 1
	awk '$1 == "insmod" {print $2}' <<<"$deps"
}
for m in "${MODULES[@]}"; do
	# Built-in modules (ipv6, af_packet on Debian) print "builtin" and no path.
	paths=$(mods "$m") || die "kernel $kver has no module $m"
	for p in $paths; do add "$p"; done
done
for m in "${OPT_MODULES[@]}"; do
	paths=$(mods "$m") || { echo "vm-initramfs: note: no module $m in $kver" >&2; continue; }
	for p in $paths; do add "$p"; done
done
for f in modules.order modules.builtin modules.builtin.modinfo; do
	[ -e "$moddir/$f" ] && add "$moddir/$f"
done
depmod -b "$root" "$kver"

# A few configuration files, written here rather than copied so the host's
# accounts and names do not leak into the guest.
# rpcbind and rpc.statd drop their privileges to _rpc and statd.
printf '%s\n' 'root:x:0:0:root:/root:/bin/bash' \
	'_rpc:x:100:65534::/run/rpcbind:/usr/sbin/nologin' \
	'statd:x:101:65534::/var/lib/nfs:/usr/sbin/nologin' \
	'nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin' >"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost\n' >"$root/etc/hosts"
printf 'passwd: files\ngroup: files\nhosts: files\nservices: files\nprotocols: files\n' >"$root/etc/nsswitch.conf"
echo sroce-vm >"$root/etc/hostname"
for f in /etc/protocols /etc/services /etc/netconfig /etc/ld.so.conf /etc/ld.so.conf.d \
	/etc/iproute2; do
	[ -e "$f" ] && cp -a "$f" "$root/etc/"
done
ldconfig -r "$root" 2>/dev/null || echo "vm-initramfs: note: ldconfig -r failed; the guest runs without ld.so.cache" >&2

install -m 0755 "$init" "$root/init"
# The kernel opens /dev/console before /init mounts devtmpfs.
[ "$(id -u)" = 0 ] && mknod -m 600 "$root/dev/console" c 5 1

# Not compressed: every boot would inflate it again under TCG, some
# 1.4 s of each boot for the base image's 85 MB.
tmp=$(mktemp "$out.XXXXXX")
(cd "$root" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) >"$tmp"
mv "$tmp" "$out"
echo "vm-initramfs: built $out ($(du -h "$out" | cut -f1))" >&2
