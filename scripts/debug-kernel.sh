#!/usr/bin/env bash
# debug-kernel.sh [--print]
# Build (or find) the debug kernel the `make check-debug` pass boots: the
# linux-source-6.1 package's tree, configured from x86_64_defconfig,
# kvm_guest.config and scripts/debug-kernel.config (KASAN, lockdep,
# kmemleak, CSD lock and list debugging, and the modules the VM suites
# load), built with ccache, its modules installed in /lib/modules/KREL
# with build/ pointing at the object tree (the module builds against it,
# vm-vmlinux.sh boots its bzImage). Prints KREL.
# The build lives in SROCE_DEBUG_KCACHE (default /var/cache/sroce/
# debug-kernel), outside the tree, so every clone on the machine finds it;
# KREL names a hash of the source version, the config fragment's options
# (not its comments) and the recipe below (bump it when the build
# changes), so a change to either builds a new kernel rather than reusing
# a stale one. --print prints KREL without building.
set -euo pipefail

die() { echo "debug-kernel: $*" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
frag=$here/debug-kernel.config
tarball=/usr/src/linux-source-6.1.tar.xz
[ -r "$tarball" ] || die "no $tarball (run make deps)"
srcver=$(dpkg-query -W -f '${Version}' linux-source-6.1)
recipe=2
# The fragment's options, not its comments: a comment edit builds nothing.
opts=$(sed -e '/^# CONFIG_[A-Za-z0-9_]* is not set$/b' -e '/^[[:space:]]*#/d' \
	-e '/^[[:space:]]*$/d' "$frag")
hash=$(printf '%s %s\n%s\n' "$srcver" "$recipe" "$opts" | sha256sum | cut -c1-8)
cache=${SROCE_DEBUG_KCACHE:-/var/cache/sroce/debug-kernel}
src=$cache/src-$srcver
obj=$cache/obj-$hash
lv=-sroce-debug-$hash

if [ -f "$obj/.sroce-done" ]; then
	krel=$(cat "$obj/.sroce-done")
else
	krel=''
fi
if [ "${1:-}" = --print ]; then
	[ -n "$krel" ] || die "not built yet"
	echo "$krel"
	exit 0
fi
if [ -n "$krel" ] && [ -e "/lib/modules/$krel/build/arch/x86/boot/bzImage" ]; then
	echo "$krel"
	exit 0
fi

command -v ccache >/dev/null || die "no ccache (run make deps)"
mkdir -p "$cache"
exec 8>"$cache/.lock"
flock 8
if [ ! -f "$src/.sroce-unpacked" ]; then
	echo "debug-kernel: unpacking $tarball" >&2
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xJf "$tarball" -C "$src.tmp" --strip-components=1
	touch "$src.tmp/.sroce-unpacked"
	mv "$src.tmp" "$src"
fi

mk() {
	make -C "$src" O="$obj" CC="ccache gcc" LOCALVERSION="$lv" \
		KBUILD_BUILD_TIMESTAMP='2025-01-01 00:00 UTC' KBUILD_BUILD_USER=sroce \
		KBUILD_BUILD_HOST=sroce "$@"
}
export CCACHE_DIR=$cache/ccache CCACHE_MAXSIZE=5G CCACHE_NOHASHDIR=1
mkdir -p "$obj"
if [ ! -f "$obj/.config" ] || ! cmp -s "$frag" "$obj/.sroce-fragment"; then
	mk -s x86_64_defconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
		"$src/kernel/configs/kvm_guest.config" "$frag" >/dev/null
	mk -s olddefconfig
	# Every option the fragment asks for must have survived olddefconfig
	# (a dependency the fragment forgot silently drops it otherwise).
	bad=0
	while IFS= read -r line; do
		case $line in CONFIG_*=n) opt=${line%=n}
			grep -q "^$opt=" "$obj/.config" && { echo "debug-kernel: $opt still set" >&2; bad=1; } ;;
		CONFIG_*) grep -qx "$line" "$obj/.config" ||
			grep -qx "${line%=m}=y" "$obj/.config" ||
			{ echo "debug-kernel: $line did not stick" >&2; bad=1; } ;;
		esac
	done < <(grep '^CONFIG_' "$frag")
	[ $bad = 0 ] || die "the config fragment does not apply to $srcver"
	cp "$frag" "$obj/.sroce-fragment"
fi
echo "debug-kernel: building in $obj (ccache $CCACHE_DIR)" >&2
start=$SECONDS
mk -j"$(nproc)" -s bzImage modules
krel=$(mk -s kernelrelease)
rm -rf "/lib/modules/$krel"
mk -s INSTALL_MOD_PATH=/ modules_install
ln -sfn "$obj" "/lib/modules/$krel/build"
ln -sfn "$src" "/lib/modules/$krel/source"
echo "$krel" >"$obj/.sroce-done"
echo "debug-kernel: $krel built in $((SECONDS - start)) s" >&2
echo "$krel"
