#!/usr/bin/env bash
# Build libsroce, the rdma-core provider, as OUTDIR/libsroce-rdmav34.so.
#
# libibverbs-dev lacks the private provider headers, so we take them from the
# rdma-core 56.1 tarball (fetched by scripts/deps.sh). Of rdma-core's build we
# need what cmake generates (config.h, the include/ symlink farm) and one
# generated kernel-ABI header. The provider links against the system
# libibverbs (bookworm's 44, same provider ABI 34), so a private symbol 44
# lacks fails the link here, not at dlopen. 56.1's libibverbs and rxe
# provider are built too, but only for tests (OUTDIR/rc56, below).
#
# Extraction and configuration happen once (stamp files); later runs only
# recompile the provider.
set -euo pipefail

if [ $# -ne 1 ]; then
	echo "usage: $0 OUTDIR" >&2
	exit 2
fi

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${SROCE_CACHE:-$top/build/cache}
ver=56.1
tarball=$cache/rdma-core_$ver.orig.tar.gz
src=$top/build/rdma-core-$ver
bld=$top/build/rdma-core-build
cmake_args=(-GNinja -DNO_PYVERBS=1 -DNO_MAN_PAGES=1)

mkdir -p "$1" "$top/build"
out=$(cd "$1" && pwd)

# Two builds at once (make -j, or two checkouts' helpers) must not extract or
# configure over each other.
exec 9>"$top/build/.rdma-core.lock"
flock 9

if [ ! -f "$src/.sroce-extracted" ]; then
	if [ ! -f "$tarball" ]; then
		echo "build-provider: $tarball missing; run scripts/deps.sh" >&2
		exit 1
	fi
	rm -rf "$src"
	tar -xzf "$tarball" -C "$top/build"
	touch "$src/.sroce-extracted"
fi

# cmake's include/ farm holds absolute symlinks into $src, so the stamp
# records $src and the arguments: a moved tree or new flags reconfigure.
stamp="$src ${cmake_args[*]}"
if [ "$(cat "$bld/.sroce-configured" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$bld"
	mkdir -p "$bld"
	if ! cmake -S "$src" -B "$bld" "${cmake_args[@]}" >"$bld/configure.log" 2>&1; then
		tail -n 30 "$bld/configure.log" >&2
		exit 1
	fi
	# kern-abi.h includes this generated wrapper; nothing else is needed.
	ninja -C "$bld" include/kernel-abi/ib_user_verbs.h >/dev/null
	echo "$stamp" >"$bld/.sroce-configured"
fi

pabi=$(sed -n 's/^#define IBVERBS_PABI_VERSION \([0-9]*\)$/\1/p' "$bld/include/config.h")
if [ "$pabi" != 34 ]; then
	echo "build-provider: rdma-core $ver has provider ABI '$pabi', expected 34" >&2
	exit 1
fi

# rdma-core's headers go in as system headers: rdma-core itself builds with
# -Wno-unused-parameter and its inlines would trip -Wextra -Werror. They are
# still searched before /usr/include, so the build dir's include/ supplies
# driver.h, config.h, ccan/ and the verbs.h matching them; the tarball root
# supplies util/.
gcc -O2 -g -Wall -Wextra -Werror -fPIC -shared \
	-I "$top/userspace-provider/providers/sroce" \
	-I "$top/include/uapi" \
	-isystem "$bld/include" \
	-isystem "$src" \
	-o "$out/libsroce-rdmav$pabi.so" \
	"$top"/userspace-provider/providers/sroce/*.c \
	-Wl,--no-undefined -Wl,-z,defs -libverbs

# rdma-core 56.1's own libibverbs and rxe provider, for the VM tests that
# post what Debian 12's libibverbs 44 has no verb for (ibv_wr_flush): they
# run with OUTDIR/rc56 as their library path (tests/vm/roce.sh, rc56).
ninja -C "$bld" ibverbs rxe-rdmav34 >"$bld/rc56.log" 2>&1 || {
	tail -n 30 "$bld/rc56.log" >&2
	exit 1
}
mkdir -p "$out/rc56"
cp "$bld/lib/libibverbs.so.1.14.$ver" "$out/rc56/libibverbs.so.1"
cp "$bld/lib/librxe-rdmav$pabi.so" "$out/rc56/"
