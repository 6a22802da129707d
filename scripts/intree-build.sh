#!/usr/bin/env bash
# intree-build.sh: prove that sroce builds as part of a kernel tree, as it
# would once upstream. Into the linux-source-6.1 package's tree (make deps
# installs it) it copies drivers/infiniband/sw/sroce and
# include/uapi/rdma/sroce-abi.h, sources the driver's Kconfig from
# drivers/infiniband/Kconfig and adds it to drivers/infiniband/sw/Makefile,
# configures x86_64_defconfig with CONFIG_RDMA_SROCE=m (and InfiniBand),
# and builds sroce.ko twice against that tree:
#   - as part of the tree: drivers/infiniband/sw/ (which must descend into
#     sroce/ by the Makefile line), then drivers/infiniband/sw/sroce/sroce.ko;
#   - with make M= on a copy of the dropped-in folder, which finds the uapi
#     header where the kernel keeps its own.
# The unpacked tree, its configuration and its prepared object tree are
# kept in build/intree/<package version> (SROCE_INTREE_DIR), so a second
# run only copies the driver again and recompiles what changed. A step
# that fails stops the script with the tail of build/intree/*/build.log.
set -euo pipefail

die() { echo "intree-build: $*" >&2; exit 1; }
say() { echo "intree-build: $*"; }
top=$(cd "$(dirname "$0")/.." && pwd)
tarball=/usr/src/linux-source-6.1.tar.xz
[ -r "$tarball" ] || die "no $tarball (run make deps)"
srcver=$(dpkg-query -W -f '${Version}' linux-source-6.1) || die "linux-source-6.1 is not installed"
base=${SROCE_INTREE_DIR:-$top/build/intree}
work=$base/$srcver
src=$work/linux	# the unpacked source, with sroce dropped in
obj=$work/obj	# the kernel's object tree (O=)
ext=$work/ext/sroce	# the copy make M= builds in
log=$work/build.log
# The configuration: bump when the options below change.
recipe="x86_64_defconfig 2"

mkdir -p "$base"
exec 8>"$base/.lock"
flock 8
# Trees of an older package version are of no more use.
find "$base" -mindepth 1 -maxdepth 1 -type d ! -name "$srcver" -exec rm -rf {} +
mkdir -p "$work"
: >"$log"
start=$SECONDS

# run WHAT CMD...: CMD's output goes to the log; on failure its tail is
# shown and the script stops.
run() {
	local what=$1 t=$SECONDS
	shift
	echo "== $what: $*" >>"$log"
	if ! "$@" >>"$log" 2>&1; then
		tail -n 40 "$log" | sed 's/^/    /' >&2
		die "$what failed (log: $log)"
	fi
	say "$what: $((SECONDS - t)) s"
}
mk() { make -C "$src" O="$obj" "$@"; }

if [ ! -f "$src/.sroce-unpacked" ]; then
	rm -rf "$src" "$src.tmp" "$obj" "$work/ext"
	mkdir -p "$src.tmp"
	run "unpack $tarball" tar -xJf "$tarball" -C "$src.tmp" --strip-components=1
	# The two files the drop-in edits, as the package has them.
	mkdir -p "$work/orig"
	cp "$src.tmp/drivers/infiniband/Kconfig" "$work/orig/Kconfig"
	cp "$src.tmp/drivers/infiniband/sw/Makefile" "$work/orig/Makefile"
	touch "$src.tmp/.sroce-unpacked"
	mv "$src.tmp" "$src"
fi

# copy_src FROM TO: the sources of FROM over TO, timestamps kept (make
# then rebuilds only what changed), no build products.
copy_src() {
	mkdir -p "$2"
	tar -C "$1" -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude='.*.cmd' --exclude='*.a' \
		--exclude=modules.order --exclude=Module.symvers . | tar -C "$2" -xf -
}

# replace FILE TEXT: FILE becomes TEXT, unless it already is (its
# timestamp then stays, and make does not read the configuration again).
replace() {
	[ "$(cat "$1")" = "$2" ] || printf '%s\n' "$2" >"$1"
}

# The driver and its uapi header where they would be upstream.
rm -rf "$src/drivers/infiniband/sw/sroce"
copy_src "$top/drivers/infiniband/sw/sroce" "$src/drivers/infiniband/sw/sroce"
cp -p "$top/include/uapi/rdma/sroce-abi.h" "$src/include/uapi/rdma/sroce-abi.h"
# Its Kconfig entry and its Makefile line, after siw's, from the package's
# files each time.
line='source "drivers/infiniband/sw/sroce/Kconfig"'
text=$(awk -v add="$line" '{ print } $0 == "source \"drivers/infiniband/sw/siw/Kconfig\"" { print add }' \
	"$work/orig/Kconfig")
grep -qxF "$line" <<<"$text" || die "no siw line in drivers/infiniband/Kconfig to add sroce after"
replace "$src/drivers/infiniband/Kconfig" "$text"
line=$'obj-$(CONFIG_RDMA_SROCE)\t\t+= sroce/'
text=$(awk -v add="$line" '{ print } /^obj-\$\(CONFIG_RDMA_SIW\)/ { print add }' "$work/orig/Makefile")
grep -qxF "$line" <<<"$text" || die "no siw line in drivers/infiniband/sw/Makefile to add sroce after"
replace "$src/drivers/infiniband/sw/Makefile" "$text"

# A small configuration: x86_64_defconfig, InfiniBand with userspace
# verbs (the driver's user memory paths), tracepoints (its trace events)
# and sroce as a module. Every option must survive olddefconfig: sroce's
# in particular shows that its Kconfig entry parses and that what it
# depends on can be met.
want=(INFINIBAND=m INFINIBAND_USER_ACCESS=m INFINIBAND_USER_MEM=y CONFIGFS_FS=y
	DEBUG_FS=y EVENT_TRACING=y RDMA_SROCE=m)
mkdir -p "$obj"
if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.sroce-config" 2>/dev/null)" != "$recipe" ]; then
	rm -f "$obj/.sroce-config"
	run "configure" mk x86_64_defconfig
	opts=()
	for o in "${want[@]}"; do
		case $o in *=m) opts+=(-m "${o%=m}") ;; *=y) opts+=(-e "${o%=y}") ;; esac
	done
	"$src/scripts/config" --file "$obj/.config" "${opts[@]}"
	run "olddefconfig" mk olddefconfig
	echo "$recipe" >"$obj/.sroce-config"
fi
run "modules_prepare" mk -j"$(nproc)" modules_prepare
for o in "${want[@]}"; do
	# (configure again next time, once whatever dropped it is fixed)
	grep -qx "CONFIG_$o" "$obj/.config" ||
		{ rm -f "$obj/.sroce-config"; die "CONFIG_$o did not stick (see $obj/.config)"; }
done

# check_ko KO: a loadable module, built for this tree.
krel=$(mk -s kernelrelease)
check_ko() {
	[ -f "$1" ] || die "no $1"
	readelf -sW "$1" | awk '$4 == "FUNC" && $8 == "init_module" { f = 1 } END { exit !f }' ||
		die "$1 has no init_module"
	[ "$(modinfo -F vermagic "$1" | cut -d' ' -f1)" = "$krel" ] ||
		die "$1 is not built for $krel"
	say "$1: $(stat -c %s "$1") bytes, vermagic $krel"
}

# (a) As part of the tree: the directory above descends into sroce/ only
# by its Makefile line and CONFIG_RDMA_SROCE=m; then the module itself.
rm -f "$obj/drivers/infiniband/sw/modules.order"
run "in-tree build (drivers/infiniband/sw/)" mk -j"$(nproc)" drivers/infiniband/sw/
grep -q 'drivers/infiniband/sw/sroce/sroce' "$obj/drivers/infiniband/sw/modules.order" ||
	die "drivers/infiniband/sw/ did not build sroce (its Makefile line or CONFIG_RDMA_SROCE)"
run "in-tree build (sroce.ko)" mk -j"$(nproc)" drivers/infiniband/sw/sroce/sroce.ko
check_ko "$obj/drivers/infiniband/sw/sroce/sroce.ko"

# (b) make M= on a copy of the folder as dropped in: its objects stay
# beside its sources, away from the tree's. Sources gone from the repo
# go from the copy too.
mkdir -p "$ext"
find "$ext" -type f ! -name '*.o' ! -name '*.ko' ! -name '*.mod' ! -name '*.mod.c' \
	! -name '.*.cmd' ! -name '*.a' ! -name modules.order ! -name Module.symvers -delete
copy_src "$src/drivers/infiniband/sw/sroce" "$ext"
run "external build (make M=)" mk -j"$(nproc)" M="$ext" modules
check_ko "$ext/sroce.ko"

say "sroce builds in linux-source-6.1 $srcver, in the tree and with M=: $((SECONDS - start)) s"
